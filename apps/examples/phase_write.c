/* Inside the job, 1: measure one phase of a running job and add its pattern to an HDF5 file.
 *
 *   mpirun -n 8 -x LD_PRELOAD=/usr/local/lib/libtreematch-profile.so phase_write pattern.h5
 *   treematch map --matrix pattern.h5:/phase/exchange --topology "pack:2 core:4"
 *
 * The counters are Open MPI's monitoring (mpirun --mca pml_monitoring_enable 1, where its MPI_T
 * variables exist) or the profiling library's; with neither, the phase API says so in one line
 * and the job goes on. */
#include <mpi.h>
#include <stdio.h>

#include "treematch_phase.h"

/* The phase: 64 KiB to the rank half the job away, 4 KiB to the next one. */
static void exchange(MPI_Comm comm, int rank, int size) {
  static char out[65536], in[65536];
  const int half = size / 2;
  MPI_Sendrecv(out, 65536, MPI_CHAR, (rank + half) % size, 0, in, 65536, MPI_CHAR,
               (rank + size - half) % size, 0, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(out, 4096, MPI_CHAR, (rank + 1) % size, 1, in, 4096, MPI_CHAR,
               (rank + size - 1) % size, 1, comm, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* path = argc > 1 ? argv[1] : "pattern.h5";

  treematch_phase phase = NULL;
  int rc = treematch_phase_start(MPI_COMM_WORLD, &phase); /* collective */
  if (rc == MPI_SUCCESS) {
    for (int step = 0; step < 10; ++step) exchange(MPI_COMM_WORLD, rank, size);
    treematch_phase_stop(phase);                         /* local */
    rc = treematch_phase_write(phase, path, "exchange"); /* collective, rank 0 writes */
    treematch_phase_free(&phase);
  }
  if (rank == 0 && rc == MPI_SUCCESS) printf("phase written to %s:/phase/exchange\n", path);
  if (rank == 0 && rc != MPI_SUCCESS) printf("no phase written (error %d), the job goes on\n", rc);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : 1;
}
