/* halo_exchange PATTERN ITERATIONS FLOPS: an iterative solver's loop. Each iteration computes
 * (FLOPS floating-point operations, injected with smpi_execute_flops so that the simulated time
 * does not depend on this machine's load), then exchanges its halo: the rank's messages of
 * PATTERN, all posted at once. Rank 0 prints "seconds <t>" (the whole loop, slowest rank) and
 * "communication_seconds <c>" (the largest time a rank spent in the exchanges). Any pattern file
 * is a halo: a stencil's, an application's measured matrix. Built with smpicc. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank_messages.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4 || atoi(argv[2]) <= 0 || atof(argv[3]) < 0.0) {
    if (rank == 0) fprintf(stderr, "usage: halo_exchange PATTERN ITERATIONS>0 FLOPS>=0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int iterations = atoi(argv[2]);
  const double flops = atof(argv[3]);
  struct RankMessages messages = rank_messages_or_abort(argv[1]);

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  double communicating = 0.0;
  for (int i = 0; i < iterations; ++i) {
    smpi_execute_flops(flops);
    const double exchange_start = MPI_Wtime();
    exchange_once(&messages);
    communicating += MPI_Wtime() - exchange_start;
  }
  const double seconds = MPI_Wtime() - start;
  double slowest = 0.0;
  double most_communicating = 0.0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&communicating, &most_communicating, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("seconds %.9g\ncommunication_seconds %.9g\n", slowest, most_communicating);

  free_rank_messages(&messages);
  MPI_Finalize();
  return 0;
}
