/* TreeMatch 1.x's tm_* API called as Open MPI 4.1's topo/treematch component calls it
 * (ompi/mca/topo/treematch/topo_treematch_dist_graph_create.c): a tm_topology_t filled by hand
 * with malloc, per-level node_id/node_rank, constraints = the cores the ranks sit on in rank
 * order, a symmetric matrix, then tm_optimize_topology, tm_build_affinity_mat,
 * tm_build_tree_from_topology(..., NULL, NULL), tm_compute_mapping, k[idx][0] as the new rank of
 * rank idx, and the same frees (the affinity matrix by free()). Then tm_build_synthetic_topology
 * and tm_load_topology without constraints (k by core id), and the failures.
 * Prints "ok" and exits 0 when every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

#define N 8
static int failures;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "failed: %s\n", what);
    ++failures;
  }
}

/* A ring 0-4-1-5-2-6-3-7-0, heavy: in rank order every edge crosses the two packages. */
static double** ring_pattern(double* storage) {
  static const int ring[N] = {0, 4, 1, 5, 2, 6, 3, 7};
  double** rows = (double**)malloc(N * sizeof(double*));
  memset(storage, 0, sizeof(double) * N * N);
  for (int i = 0; i < N; ++i) rows[i] = storage + i * N;
  for (int k = 0; k < N; ++k) {
    rows[ring[k]][ring[(k + 1) % N]] = 100.0;
    rows[ring[(k + 1) % N]][ring[k]] = 100.0;
  }
  return rows;
}

/* Hops between two cores of a 2 x 4 machine whose core c is in package c / 4. */
static int hops(int a, int b) {
  return a == b ? 0 : (a / 4 == b / 4 ? 2 : 4);
}

/* The ring's cost when role r runs on core core_of_role[r]. */
static int ring_cost(double** pattern, const int core_of_role[]) {
  int cost = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      if (pattern[i][j] > 0) cost += hops(core_of_role[i], core_of_role[j]);
  return cost;
}

static void as_open_mpi_does(void) {
  double storage[N * N];
  double** pattern = ring_pattern(storage);
  const int levels = 3; /* machine, package, core */
  const int arities[3] = {2, 4, 0};
  tm_topology_t* topology = (tm_topology_t*)malloc(sizeof(tm_topology_t));
  topology->nb_levels = levels;
  topology->arity = (int*)calloc(levels, sizeof(int));
  topology->nb_nodes = (size_t*)calloc(levels, sizeof(size_t));
  topology->node_id = (int**)malloc(levels * sizeof(int*));
  topology->node_rank = (int**)malloc(levels * sizeof(int*));
  size_t nodes = 1;
  for (int l = 0; l < levels; ++l) {
    topology->arity[l] = arities[l];
    topology->nb_nodes[l] = nodes;
    topology->node_id[l] = (int*)calloc(nodes, sizeof(int));
    topology->node_rank[l] = (int*)calloc(nodes, sizeof(int));
    for (size_t j = 0; j < nodes; ++j) topology->node_id[l][j] = topology->node_rank[l][j] = (int)j;
    if (arities[l] > 0) nodes *= (size_t)arities[l];
  }
  topology->cost = (double*)calloc(levels, sizeof(double));
  topology->nb_proc_units = N;
  /* Rank i sits on core core_of_rank[i] (the ranks of a package listed backwards). */
  static const int core_of_rank[N] = {3, 2, 1, 0, 7, 6, 5, 4};
  topology->nb_constraints = N;
  topology->constraints = (int*)calloc(N, sizeof(int));
  for (int i = 0; i < N; ++i) topology->constraints[i] = core_of_rank[i];
  topology->oversub_fact = 1;

  tm_optimize_topology(&topology);
  tm_affinity_mat_t* aff_mat = tm_build_affinity_mat(pattern, N);
  check(aff_mat != NULL && aff_mat->sum_row[0] == 200.0 && aff_mat->nnz == 2 * N, "affinity");
  tm_tree_t* comm_tree = tm_build_tree_from_topology(topology, aff_mat, NULL, NULL);
  check(comm_tree != NULL, "tree");
  tm_solution_t* sol = tm_compute_mapping(topology, comm_tree);
  check(sol != NULL && sol->k_length == N && sol->sigma_length == N, "solution lengths");
  if (sol != NULL && sol->k_length == N) {
    /* Rank idx takes new rank k[idx][0]: role k[idx][0] runs on rank idx's core. */
    int core_of_role[N];
    int seen[N] = {0};
    for (int idx = 0; idx < N; ++idx) {
      const int role = sol->k[idx][0];
      check(role >= 0 && role < N && !seen[role], "k is a permutation");
      if (role < 0 || role >= N) return;
      seen[role] = 1;
      core_of_role[role] = core_of_rank[idx];
      check(sol->sigma[role] == core_of_rank[idx], "sigma is k's inverse");
    }
    check(ring_cost(pattern, core_of_role) < ring_cost(pattern, core_of_rank), "cheaper");
    /* The optimum: 4 directed entries across the packages (4 hops), 12 inside (2 hops). */
    check(ring_cost(pattern, core_of_role) == 4 * 4 + 12 * 2, "optimal ring");
  }
  free(pattern);
  free(aff_mat->sum_row);
  free(aff_mat);
  tm_free_solution(sol);
  tm_free_tree(comm_tree);
  tm_free_topology(topology);
}

static void synthetic_and_loaded(void) {
  double storage[N * N];
  double** pattern = ring_pattern(storage);
  int arity[3] = {2, 4, 0};
  double cost[3] = {10, 1, 0};
  int numbering[2] = {1, 0}; /* the cores of each pair of leaves swapped */
  tm_topology_t* synthetic = tm_build_synthetic_topology(arity, cost, 3, numbering, 2);
  check(synthetic != NULL && synthetic->nb_proc_units == N, "synthetic");
  check(synthetic != NULL && synthetic->node_id[2][0] == 1 && synthetic->node_id[2][3] == 2,
        "synthetic numbering");
  tm_topology_t* loaded = tm_load_topology("pack:2 core:4 pu:1", TM_FILE_TYPE_UNDEF);
  check(loaded != NULL && loaded->nb_levels == 3 && loaded->nb_nodes[2] == N, "loaded");
  tm_affinity_mat_t* aff_mat = tm_build_affinity_mat(pattern, N);
  tm_topology_t* both[2] = {synthetic, loaded};
  for (int t = 0; t < 2; ++t) {
    if (both[t] == NULL) continue;
    tm_tree_t* tree = tm_build_tree_from_topology(both[t], aff_mat, NULL, NULL);
    tm_solution_t* sol = tm_compute_mapping(both[t], tree);
    check(sol != NULL && sol->k_length == N, "k by core id");
    for (int i = 0; sol != NULL && i < N; ++i)
      check(sol->k[sol->sigma[i]][0] == i, "k[sigma[i]] holds i");
    tm_free_solution(sol);
    tm_free_tree(tree);
  }
  /* Failures: NULL (or 0), a message, nothing thrown. */
  check(tm_load_topology("pack:2 core:x", TM_FILE_TYPE_UNDEF) == NULL, "bad machine refused");
  check(strstr(treematch_last_error(), "tm_load_topology") != NULL, "message names the call");
  int unknown = 99;
  check(synthetic == NULL || tm_topology_set_binding_constraints(&unknown, 1, synthetic) == 0,
        "unknown constraint refused");
  pattern[0][1] = -1.0;
  check(synthetic == NULL || tm_build_tree_from_topology(synthetic, aff_mat, NULL, NULL) == NULL,
        "negative affinity refused");
  tm_free_affinity_mat(aff_mat);
  tm_free_topology(synthetic);
  tm_free_topology(loaded);
  free(pattern);
  tm_finalize();
}

int main(void) {
  as_open_mpi_does();
  synthetic_and_loaded();
  if (failures == 0) printf("ok\n");
  return failures == 0 ? 0 : 1;
}
