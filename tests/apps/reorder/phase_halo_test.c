/* A 2-D halo (periodic, heavier along x) whose cells are played by ranks relabelled at random, so
 * that rank order is a bad placement: one phase measured with the phase API, written to HDF5, and
 * the ranks reordered after it. Prints the placement of the reordered ranks for treematch eval.
 *   phase_halo_test PATTERN.h5 TOPOLOGY OUT.perm IDENTITY.perm   (run under mpiexec, 4 or 8 ranks)
 *   phase_halo_test none                                         (no counters: the error path)
 * Prints "checks: ok" on rank 0 when every check passed (a token an error line of another rank,
 * printed on the same stream by mpirun, cannot hide). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/reorder/treematch_phase.h"

enum { kIterations = 10, kBytesX = 4096, kBytesY = 512 };

static int fail(const char* what) {
  fprintf(stderr, "failed: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

/* The cell played by each rank: a fixed pseudo-random permutation (same on every rank). */
static void shuffle(int n, int cell_of_rank[]) {
  unsigned state = 12345u;
  for (int i = 0; i < n; ++i) cell_of_rank[i] = i;
  for (int i = n - 1; i > 0; --i) {
    state = state * 1103515245u + 12345u;
    const int j = (int)((state >> 8) % (unsigned)(i + 1));
    const int t = cell_of_rank[i];
    cell_of_rank[i] = cell_of_rank[j];
    cell_of_rank[j] = t;
  }
}

/* One halo exchange: each cell sends kBytesX to its x neighbours and kBytesY to its y ones. */
static void halo(int rank, int size, const int cell_of_rank[], const int rank_of_cell[]) {
  static char out[4][kBytesX];
  static char in[4][kBytesX];
  const int nx = size / 2;
  const int cell = cell_of_rank[rank];
  const int x = cell % nx;
  const int y = cell / nx;
  const int peers[4] = {rank_of_cell[y * nx + (x + 1) % nx],
                        rank_of_cell[y * nx + (x + nx - 1) % nx],
                        rank_of_cell[((y + 1) % 2) * nx + x], rank_of_cell[((y + 1) % 2) * nx + x]};
  const int bytes[4] = {kBytesX, kBytesX, kBytesY, kBytesY};
  MPI_Request requests[8];
  for (int d = 0; d < 4; ++d) {
    MPI_Irecv(in[d], bytes[d], MPI_CHAR, peers[d], d, MPI_COMM_WORLD, &requests[d]);
  }
  for (int d = 0; d < 4; ++d) {
    /* The message that arrives as direction d at the peer left in direction d ^ 1. */
    MPI_Isend(out[d], bytes[d], MPI_CHAR, peers[d], d ^ 1, MPI_COMM_WORLD, &requests[4 + d]);
  }
  /* Real statuses: MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC's
     -Wstringop-overflow takes for an 8-element array of size 0. */
  MPI_Status statuses[8];
  MPI_Waitall(8, requests, statuses);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) return fail("usage");
  treematch_phase phase = NULL;
  if (strcmp(argv[1], "none") == 0) {
    /* Neither the monitoring nor the profiling library: an error on every rank, the job goes on. */
    const int rc = treematch_phase_start(MPI_COMM_WORLD, &phase);
    if (rc != MPI_ERR_UNSUPPORTED_OPERATION || phase != NULL) return fail("start without counters");
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) return fail("MPI_COMM_WORLD after the error");
    if (rank == 0) printf("checks: ok\n");
    MPI_Finalize();
    return 0;
  }
  if (argc != 5 || size % 2 != 0 || size < 4) return fail("usage (even size >= 4)");
  int* cell_of_rank = malloc(sizeof(int) * (size_t)size);
  int* rank_of_cell = malloc(sizeof(int) * (size_t)size);
  unsigned long long* row = malloc(sizeof(unsigned long long) * (size_t)size);
  shuffle(size, cell_of_rank);
  for (int r = 0; r < size; ++r) rank_of_cell[cell_of_rank[r]] = r;

  halo(rank, size, cell_of_rank, rank_of_cell); /* before the phase: must not count */
  if (treematch_phase_start(MPI_COMM_WORLD, &phase) != MPI_SUCCESS) return fail("start");
  for (int i = 0; i < kIterations; ++i) halo(rank, size, cell_of_rank, rank_of_cell);
  if (treematch_phase_stop(phase) != MPI_SUCCESS) return fail("stop");
  if (treematch_phase_stop(phase) != MPI_ERR_ARG) return fail("second stop accepted");

  /* This rank's row: exactly the halo of the phase (right and left x neighbours may coincide). */
  if (treematch_phase_row(phase, row, NULL) != MPI_SUCCESS) return fail("row");
  unsigned long long total = 0;
  for (int r = 0; r < size; ++r) total += row[r];
  if (total != (unsigned long long)kIterations * 2 * (kBytesX + kBytesY)) {
    fprintf(stderr, "rank %d: phase row sums to %llu bytes\n", rank, total);
    return fail("row total");
  }

  if (treematch_phase_write(phase, argv[1], "halo") != MPI_SUCCESS) return fail("write");
  if (treematch_phase_write(phase, argv[1], "halo") != MPI_ERR_IO) return fail("rewrite accepted");

  MPI_Comm reordered = MPI_COMM_NULL;
  if (treematch_phase_reorder(phase, "size", argv[2], &reordered) != MPI_SUCCESS)
    return fail("reorder");
  /* Rank r sits on leaf r of the topology; new rank k plays row k of the matrix (old rank k's
   * part), so role k now runs on the leaf of the process that got new rank k. */
  int new_rank = 0;
  MPI_Comm_rank(reordered, &new_rank);
  int* leaf_of_role = malloc(sizeof(int) * (size_t)size);
  MPI_Gather(&rank, 1, MPI_INT, leaf_of_role, 1, MPI_INT, 0, reordered);
  if (new_rank == 0) {
    FILE* out = fopen(argv[3], "w");
    FILE* identity = fopen(argv[4], "w");
    if (out == NULL || identity == NULL) return fail("cannot write the placements");
    for (int k = 0; k < size; ++k) {
      fprintf(out, "%d\n", leaf_of_role[k]);
      fprintf(identity, "%d\n", k);
    }
    fclose(out);
    fclose(identity);
  }
  MPI_Comm_free(&reordered);
  treematch_phase_free(&phase);
  if (phase != NULL) return fail("free");
  free(leaf_of_role);
  free(row);
  free(rank_of_cell);
  free(cell_of_rank);
  if (rank == 0) printf("checks: ok\n");
  MPI_Finalize();
  return 0;
}
