/* Inside the job, 2: measure one phase, then go on with the ranks reordered after it.
 *
 *   mpirun -n 8 -x LD_PRELOAD=/usr/local/lib/libtreematch-profile.so phase_reorder [TOPOLOGY]
 *
 * TOPOLOGY (e.g. "pack:2 core:4", rank r on its leaf r) stands for the machine; without it the
 * machine is the job's allocation: the core each rank is bound to. After the reorder, rank k of
 * the new communicator plays the part rank k played in the phase, from where TreeMatch put it. */
#include <mpi.h>
#include <stdio.h>

#include "treematch_phase.h"

/* The phase: 64 KiB to the rank half the job away, 4 KiB to the next one; each message carries
 * the sender's rank, checked on arrival. Returns the number of wrong messages. */
static int exchange(MPI_Comm comm) {
  static int out[16384], in[16384];
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int half = size / 2;
  out[0] = rank;
  MPI_Sendrecv(out, 16384, MPI_INT, (rank + half) % size, 0, in, 16384, MPI_INT,
               (rank + size - half) % size, 0, comm, MPI_STATUS_IGNORE);
  int wrong = in[0] != (rank + size - half) % size;
  MPI_Sendrecv(out, 1024, MPI_INT, (rank + 1) % size, 1, in, 1024, MPI_INT,
               (rank + size - 1) % size, 1, comm, MPI_STATUS_IGNORE);
  return wrong + (in[0] != (rank + size - 1) % size);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* topology = argc > 1 ? argv[1] : NULL; /* NULL: the allocation */

  MPI_Comm comm = MPI_COMM_WORLD; /* where the rest of the run happens */
  MPI_Comm reordered = MPI_COMM_NULL;
  treematch_phase phase = NULL;
  int wrong = 0;
  double seconds = 0.0;
  int rc = treematch_phase_start(MPI_COMM_WORLD, &phase); /* collective */
  if (rc == MPI_SUCCESS) {
    for (int step = 0; step < 10; ++step) wrong += exchange(MPI_COMM_WORLD);
    treematch_phase_stop(phase); /* local */
    seconds = MPI_Wtime();
    rc = treematch_phase_reorder(phase, "size", topology, &reordered); /* collective */
    seconds = MPI_Wtime() - seconds;
    treematch_phase_free(&phase);
  }
  if (rc == MPI_SUCCESS) comm = reordered; /* otherwise MPI_COMM_WORLD goes on */
  for (int step = 0; step < 10; ++step) wrong += exchange(comm);

  int new_rank = 0;
  MPI_Comm_rank(comm, &new_rank);
  int moved = new_rank != rank;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && rc == MPI_SUCCESS)
    printf("reordered in %.3f s: %d ranks moved, %d wrong messages\n", seconds, moved, wrong);
  if (rank == 0 && rc != MPI_SUCCESS)
    printf("not reordered (error %d): %d wrong messages\n", rc, wrong);
  if (reordered != MPI_COMM_NULL) MPI_Comm_free(&reordered);
  MPI_Finalize();
  return rc == MPI_SUCCESS && wrong == 0 ? 0 : 1;
}
