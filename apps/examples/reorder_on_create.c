/* Inside the job, 3: MPI's own reorder = 1, made real by libtreematch_reorder.so. Plain MPI: this
 * program does not know treematch; linked with -ltreematch_reorder ahead of libmpi, or run with
 *
 *   mpirun -n 8 -x LD_PRELOAD=/usr/local/lib/libtreematch_reorder.so reorder_on_create
 *
 * its MPI_Cart_create maps the periodic 2-D grid onto the allocation (or onto the machine named
 * by TREEMATCH_REORDER_TOPOLOGY, e.g. "pack:2 core:4") and returns the grid in that rank order. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Errors are returned, not fatal: a failed reorder must not end the job. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int dims[2] = {0, 0};
  const int periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid = MPI_COMM_NULL;
  double seconds = MPI_Wtime();
  const int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  seconds = MPI_Wtime() - seconds;
  if (rc != MPI_SUCCESS &&
      MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid) != MPI_SUCCESS) {
    if (rank == 0) printf("MPI_Cart_create failed with reorder = 1 (error %d) and = 0\n", rc);
    MPI_Finalize();
    return 1;
  }

  /* Every rank sends its grid rank to its four neighbours; each must get the ranks
   * MPI_Cart_shift names, in the order of MPI_Neighbor_allgather (dimension 0 down then up,
   * dimension 1 down then up). */
  int me = 0;
  MPI_Comm_rank(grid, &me);
  int got[4] = {-1, -1, -1, -1};
  MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, grid);
  int wrong = 0;
  for (int d = 0; d < 2; ++d) {
    int down = 0;
    int up = 0;
    MPI_Cart_shift(grid, d, 1, &down, &up);
    wrong += (got[2 * d] != down) + (got[2 * d + 1] != up);
  }
  int moved = me != rank;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf(
        "MPI_Cart_create(%d x %d, reorder = 1): %s in %.3f s, %d ranks moved, %d wrong "
        "neighbours\n",
        dims[0], dims[1], rc == MPI_SUCCESS ? "done" : "failed, rank order kept", seconds, moved,
        wrong);
  }
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
