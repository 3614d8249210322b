/* Built against an installed treematch (find_package or pkg-config): maps a ring of 8 processes,
 * numbered so that rank order is bad, onto "pack:2 core:4 pu:1" with the C API; checks that the
 * mapping is a permutation cheaper than rank order, and that bad arguments give a status and a
 * message. Prints "c: ok" and exits 0 when every check passed. */
#include <stdio.h>
#include <string.h>

#include <treematch.h>

#define N 8

static int failed(const char* what) {
  fprintf(stderr, "c: %s (%s)\n", what, treematch_last_error());
  return 1;
}

int main(void) {
  /* The ring 0-4-1-5-2-6-3-7-0: neighbours are 4 apart in rank order, in the other package. */
  const int ring[N] = {0, 4, 1, 5, 2, 6, 3, 7};
  long long offsets[N + 1];
  int targets[2 * N];
  double weights[2 * N];
  for (int i = 0; i < N; ++i) offsets[i] = 2 * i;
  offsets[N] = 2 * N;
  for (int k = 0; k < N; ++k) {
    const int v = ring[k];
    targets[2 * v] = ring[(k + 1) % N];
    targets[2 * v + 1] = ring[(k + N - 1) % N];
    weights[2 * v] = weights[2 * v + 1] = 1000.0;
  }
  treematch_topology machine = NULL;
  if (treematch_topology_read("pack:2 core:4 pu:1", &machine) != TREEMATCH_OK)
    return failed("read");
  if (treematch_topology_leaves(machine) != N) return failed("leaves");
  int leaf[N];
  double cost = 0.0;
  if (treematch_map_csr(machine, N, offsets, targets, weights, "default", leaf, &cost) !=
      TREEMATCH_OK)
    return failed("map");
  int seen[N] = {0};
  for (int i = 0; i < N; ++i) {
    if (leaf[i] < 0 || leaf[i] >= N || seen[leaf[i]]++) return failed("not a permutation");
  }
  /* Rank order: each of the 16 directed edges crosses the packages (4 tree edges). */
  if (!(cost < 16 * 1000.0 * 4)) return failed("not cheaper than rank order");

  treematch_topology none = NULL;
  if (treematch_topology_read("pack:2 core:x", &none) != TREEMATCH_ERR_INPUT || none != NULL)
    return failed("a bad machine was accepted");
  if (strstr(treematch_last_error(), "core:x") == NULL) return failed("the message names nothing");
  targets[3] = N;
  if (treematch_map_csr(machine, N, offsets, targets, weights, NULL, leaf, NULL) !=
      TREEMATCH_ERR_ARG)
    return failed("a target out of range was accepted");
  if (treematch_map_csr(machine, N, offsets, targets, weights, "quick", leaf, NULL) !=
      TREEMATCH_ERR_ARG)
    return failed("an unknown preset was accepted");
  treematch_topology_free(&machine);
  if (machine != NULL) return failed("free");
  printf("c: ok, cost %.0f\n", cost);
  return 0;
}
