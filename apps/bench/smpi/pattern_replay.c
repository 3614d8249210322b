/* pattern_replay PATTERN: every rank sends all its messages of PATTERN at once, one per
 * receiver, and receives all of its own; rank 0 prints "seconds <t>", the time from a barrier to
 * the last rank's last message. The simulated counterpart of the predicted time treematch reports
 * (the pattern sent at once as one message per pair). Built with smpicc, run with smpirun. */
#include <mpi.h>
#include <stdio.h>

#include "rank_messages.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 2) {
    if (rank == 0) fprintf(stderr, "usage: pattern_replay PATTERN\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  struct RankMessages messages = rank_messages_or_abort(argv[1]);

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  exchange_once(&messages);
  const double seconds = MPI_Wtime() - start;
  double slowest = 0.0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("seconds %.9g\n", slowest);

  free_rank_messages(&messages);
  MPI_Finalize();
  return 0;
}
