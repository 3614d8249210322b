/* TreeMatch 1.x compatibility (libtreematch.so): the tm_* functions and structures of TreeMatch's
 * public header, as Open MPI's topo/treematch component and other TreeMatch 1.x callers use
 * them, computed by this library's mapper. Included by treematch.h, so code written for
 * TreeMatch 1.x keeps its `#include <treematch.h>`.
 *
 * What differs from TreeMatch 1.x, on purpose:
 *   - tm_topology_t holds node_id and node_rank per level (node_id[level][j]), the form Open MPI
 *     4.1's component fills; only the last level's ids are used (the leaves' ids).
 *   - Link costs (`cost`) and tm_build_tree_from_topology's obj_weight and com_speed are
 *     ignored: the mapping minimises hop-bytes, as `treematch map` does on a tree without costs.
 *   - tm_optimize_topology does nothing: the mapper splits large arities itself.
 *   - The returned tm_tree_t carries the mapping for tm_compute_mapping; only its root fields
 *     (arity 0, nb_processes) are filled, it is not TreeMatch's group hierarchy.
 *   - Failures return NULL (or 0) with one line on stderr and treematch_last_error() set.
 * Everything returned is allocated with malloc (as the caller may free the affinity matrix with
 * free(), as Open MPI does) and freed by the matching tm_free_* function. */
#ifndef TREEMATCH_TM_H
#define TREEMATCH_TM_H

#include <stddef.h>

#ifndef TREEMATCH_EXPORT
#if defined(__GNUC__)
#define TREEMATCH_EXPORT __attribute__((visibility("default")))
#else
#define TREEMATCH_EXPORT
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of topology file tm_load_topology reads. */
typedef enum { TM_FILE_TYPE_UNDEF, TM_FILE_TYPE_XML, TM_FILE_TYPE_TGT } tm_file_type_t;

/** A balanced tree: level 0 is the root, level nb_levels - 1 the leaves (arity 0). */
typedef struct {
  int* arity;            /**< children of a node of each level */
  int nb_levels;         /**< levels, the leaves' included */
  size_t* nb_nodes;      /**< nodes of each level */
  int** node_id;         /**< node_id[l][j]: id of the j-th node of level l (leaves: core ids) */
  int** node_rank;       /**< node_rank[l][id]: position of the node whose id is id */
  size_t* nb_free_nodes; /**< unused, may be NULL */
  int** free_nodes;      /**< unused, may be NULL */
  double* cost;          /**< per level; ignored (hop-bytes) */
  int* constraints;      /**< ids of the leaves processes may use (NULL: all) */
  int nb_constraints;    /**< entries of constraints */
  int oversub_fact;      /**< processes per leaf at most (>= 1) */
  int nb_proc_units;     /**< leaves */
} tm_topology_t;

/** An order x order affinity matrix, rows not copied (mat stays the caller's). */
typedef struct {
  double** mat;
  double* sum_row;
  int order;
  long int nnz;
} tm_affinity_mat_t;

/** What tm_build_tree_from_topology returns: here a carrier of the mapping. */
typedef struct tm_tree_s {
  int constraint;
  struct tm_tree_s** child;
  struct tm_tree_s* parent;
  double val;
  int arity;
  int depth;
  int id;
  int nb_processes;
} tm_tree_t;

/** sigma[i]: id of the leaf process i runs on. k[c][j]: the processes on leaf c (j <
 * oversub_fact, -1 when fewer), c being the position in `constraints` when the topology has
 * constraints (k_length = nb_constraints), otherwise the leaf id (k_length = nb_proc_units). */
typedef struct {
  int* sigma;
  size_t sigma_length;
  int** k;
  size_t k_length;
  int oversub_fact;
} tm_solution_t;

/** Reads an hwloc XML or tleaf (.tgt) file (TM_FILE_TYPE_UNDEF: by its name). */
TREEMATCH_EXPORT tm_topology_t* tm_load_topology(char* arch_filename, tm_file_type_t type);
/** A tree of nb_levels levels with arity[l] children per node (arity[nb_levels - 1] = 0); leaf
 * ids follow core_numbering by blocks of nb_core_per_nodes (TreeMatch's round robin). */
TREEMATCH_EXPORT tm_topology_t* tm_build_synthetic_topology(int* arity, double* cost, int nb_levels,
                                                            int* core_numbering,
                                                            int nb_core_per_nodes);
/** Wraps mat (not copied) and computes the row sums. */
TREEMATCH_EXPORT tm_affinity_mat_t* tm_build_affinity_mat(double** mat, int order);
/** Copies `constraints` (leaf ids) into the topology; 1 on success, 0 for an unknown id. */
TREEMATCH_EXPORT int tm_topology_set_binding_constraints(int* constraints, int nb_constraints,
                                                         tm_topology_t* topology);
TREEMATCH_EXPORT void tm_enable_oversubscribing(tm_topology_t* topology, unsigned int oversub_fact);
/** Does nothing (see above). */
TREEMATCH_EXPORT void tm_optimize_topology(tm_topology_t** topology);
/** Maps the matrix onto the topology (default preset); NULL on failure. */
TREEMATCH_EXPORT tm_tree_t* tm_build_tree_from_topology(tm_topology_t* topology,
                                                        tm_affinity_mat_t* aff_mat,
                                                        double* obj_weight, double* com_speed);
/** The mapping of `comm_tree` as sigma and k. */
TREEMATCH_EXPORT tm_solution_t* tm_compute_mapping(tm_topology_t* topology, tm_tree_t* comm_tree);
TREEMATCH_EXPORT void tm_free_topology(tm_topology_t* topology);
TREEMATCH_EXPORT void tm_free_tree(tm_tree_t* comm_tree);
TREEMATCH_EXPORT void tm_free_solution(tm_solution_t* sol);
/** Frees sum_row and the structure, not mat. */
TREEMATCH_EXPORT void tm_free_affinity_mat(tm_affinity_mat_t* aff_mat);
/** Verbosity is this library's own (nothing printed but failures); kept for callers. */
TREEMATCH_EXPORT void tm_set_verbose_level(unsigned int level);
TREEMATCH_EXPORT unsigned int tm_get_verbose_level(void);
/** Nothing to release. */
TREEMATCH_EXPORT void tm_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* TREEMATCH_TM_H */
