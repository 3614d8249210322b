// Rank and size in MPI_COMM_WORLD, for the tests run under mpiexec.
#pragma once

#include <mpi.h>

namespace treematch::testing {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace treematch::testing
