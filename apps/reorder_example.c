/* treematch-reorder-example: reorder MPI_COMM_WORLD after a pattern file, then a ring exchange. */
/*
 * As the IS kernel of the seed paper (Appendix C): the pattern comes from a file named on the
 * command line, the ranks are reordered right after MPI_Init, and the rest of the program uses the
 * reordered communicator instead of MPI_COMM_WORLD.
 *
 *   mpirun -np 4 treematch-reorder-example PATTERN [size|msg|avg]
 *       treematch_reorder_matrix_file: rank 0 reads PATTERN (any format `treematch map` reads).
 *   mpirun -np 4 treematch-reorder-example --dist-graph PATTERN
 *       rank 0 reads PATTERN itself (dense text, n x n numbers, n = the number of ranks) and passes
 *       it as MPI_Dist_graph_create takes it; the other ranks pass n = 0.
 *
 * Rank 0 prints "old -> new" for every rank; every rank then sends its old rank to its right
 * neighbour on the reordered ring and checks what it receives from its left one.
 * Exit status 0 on success, 1 on failure (the same on every rank).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/reorder/treematch_reorder.h"

/* A pattern in MPI_Dist_graph_create form; all arrays malloc'ed. */
struct Pattern {
  int n;
  int* sources;
  int* degrees;
  int* destinations;
  int* weights;
};

static void free_pattern(struct Pattern* pattern) {
  free(pattern->sources);
  free(pattern->degrees);
  free(pattern->destinations);
  free(pattern->weights);
  memset(pattern, 0, sizeof *pattern);
}

/* Reads a dense size x size matrix of non-negative numbers; returns 0 and fills `pattern`, or
 * prints why not and returns 1. Entries are rounded to int weights; the diagonal is ignored. */
static int read_pattern(const char* path, int size, struct Pattern* pattern) {
  FILE* file = fopen(path, "r");
  if (file == NULL) {
    fprintf(stderr, "treematch-reorder-example: cannot open '%s'\n", path);
    return 1;
  }
  const size_t cells = (size_t)size * (size_t)size;
  double* matrix = malloc(cells * sizeof *matrix);
  size_t count = 0;
  double value = 0.0;
  int bad = matrix == NULL;
  while (!bad && fscanf(file, "%lf", &value) == 1) {
    if (count == cells || !isfinite(value) || value < 0.0 || value > 2147483647.0) {
      bad = 1;
      break;
    }
    matrix[count++] = value;
  }
  if (!bad && (!feof(file) || count != cells)) bad = 1;
  fclose(file);
  if (bad) {
    fprintf(stderr,
            "treematch-reorder-example: '%s' is not a dense %d x %d matrix of numbers in "
            "[0, 2^31)\n",
            path, size, size);
    free(matrix);
    return 1;
  }

  memset(pattern, 0, sizeof *pattern);
  pattern->n = size;
  pattern->sources = malloc((size_t)size * sizeof(int));
  pattern->degrees = calloc((size_t)size, sizeof(int));
  pattern->destinations = malloc((cells > 0 ? cells : 1) * sizeof(int));
  pattern->weights = malloc((cells > 0 ? cells : 1) * sizeof(int));
  if (pattern->sources == NULL || pattern->degrees == NULL || pattern->destinations == NULL ||
      pattern->weights == NULL) {
    fprintf(stderr, "treematch-reorder-example: out of memory\n");
    free(matrix);
    free_pattern(pattern);
    return 1;
  }
  size_t edges = 0;
  for (int i = 0; i < size; ++i) {
    pattern->sources[i] = i;
    for (int j = 0; j < size; ++j) {
      const int weight = (int)lround(matrix[(size_t)i * (size_t)size + (size_t)j]);
      if (i == j || weight == 0) continue;
      pattern->destinations[edges] = j;
      pattern->weights[edges] = weight;
      ++edges;
      ++pattern->degrees[i];
    }
  }
  free(matrix);
  return 0;
}

static int usage(int rank) {
  if (rank == 0) {
    fprintf(stderr,
            "usage: treematch-reorder-example PATTERN [size|msg|avg]\n"
            "       treematch-reorder-example --dist-graph PATTERN   (dense text matrix)\n");
  }
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0;
  int world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  const int dist_graph = argc > 1 && strcmp(argv[1], "--dist-graph") == 0;
  const int first = dist_graph ? 2 : 1;
  if (argc <= first || argc > first + (dist_graph ? 1 : 2)) {
    const int status = usage(world_rank);
    MPI_Finalize();
    return status;
  }
  const char* path = argv[first];
  const char* metric = argc > first + 1 ? argv[first + 1] : "size";

  MPI_Comm comm_to_use = MPI_COMM_NULL;
  int error = MPI_SUCCESS;
  if (!dist_graph) {
    error = treematch_reorder_matrix_file(MPI_COMM_WORLD, path, metric, &comm_to_use);
  } else {
    /* Rank 0 holds the whole pattern; the others describe no edge (n = 0), as in Appendix C. */
    struct Pattern pattern;
    memset(&pattern, 0, sizeof pattern);
    int read_failed = world_rank == 0 ? read_pattern(path, world_size, &pattern) : 0;
    MPI_Bcast(&read_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (read_failed) {
      MPI_Finalize();
      return 1;
    }
    error =
        treematch_reorder_dist_graph(MPI_COMM_WORLD, pattern.n, pattern.sources, pattern.degrees,
                                     pattern.destinations, pattern.weights, &comm_to_use);
    free_pattern(&pattern);
  }
  if (error != MPI_SUCCESS) {
    if (world_rank == 0) {
      fprintf(stderr, "treematch-reorder-example: the reorder failed (MPI error class %d)\n",
              error);
    }
    MPI_Finalize();
    return 1;
  }

  int new_rank = 0;
  MPI_Comm_rank(comm_to_use, &new_rank);
  int* new_of_old = malloc((size_t)world_size * sizeof(int));
  int* old_of_new = malloc((size_t)world_size * sizeof(int));
  if (new_of_old == NULL || old_of_new == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(&new_rank, 1, MPI_INT, new_of_old, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("old -> new rank\n");
    for (int r = 0; r < world_size; ++r) printf("%d -> %d\n", r, new_of_old[r]);
  }

  /* From here on the program uses comm_to_use, as the reordered IS kernel does. */
  MPI_Allgather(&world_rank, 1, MPI_INT, old_of_new, 1, MPI_INT, comm_to_use);
  const int right = (new_rank + 1) % world_size;
  const int left = (new_rank + world_size - 1) % world_size;
  int received = -1;
  MPI_Sendrecv(&world_rank, 1, MPI_INT, right, 0, &received, 1, MPI_INT, left, 0, comm_to_use,
               MPI_STATUS_IGNORE);
  const int ok = received == old_of_new[left];
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm_to_use);
  if (world_rank == 0) {
    printf("ring exchange on the reordered communicator: %s\n", all_ok ? "ok" : "FAILED");
  }

  free(new_of_old);
  free(old_of_new);
  MPI_Comm_free(&comm_to_use);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
