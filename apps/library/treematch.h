/* C API of the mapping (libtreematch.so): place the processes of a communication matrix on the
 * leaves of a machine's tree, as `treematch map` does. No MPI needed. C++: treematch.hpp. */
#ifndef TREEMATCH_H
#define TREEMATCH_H

#if defined(__GNUC__)
#define TREEMATCH_EXPORT __attribute__((visibility("default")))
#else
#define TREEMATCH_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What a call returns. */
enum treematch_status {
  TREEMATCH_OK = 0,
  TREEMATCH_ERR_ARG = 1,     /**< a NULL, negative or inconsistent argument */
  TREEMATCH_ERR_INPUT = 2,   /**< a machine or matrix that cannot be used (too many processes) */
  TREEMATCH_ERR_NO_MEM = 3,  /**< out of memory */
  TREEMATCH_ERR_INTERNAL = 4 /**< anything else (a defect: please report the message) */
};

/** A machine: a tree whose leaves are the places of processes (cores or PUs). */
typedef struct treematch_topology_s* treematch_topology;

/**
 * Reads a machine, as `treematch map --topology SPEC` does: an hwloc synthetic string
 * ("pack:2 core:4 pu:1"), an hwloc XML file (*.xml), a Scotch/TreeMatch tleaf file (*.tgt) or
 * line ("tleaf 2 2 10 4 1"), or "" for the machine this runs on (leaves are cores).
 * `allocation` (an MPI job's cores) is not accepted here.
 * Returns TREEMATCH_OK and `*topology` (free it with treematch_topology_free), or an error with
 * `*topology` = NULL and the reason in treematch_last_error().
 */
TREEMATCH_EXPORT int treematch_topology_read(const char* spec, treematch_topology* topology);

/** The number of leaves of `topology` (0 for NULL). */
TREEMATCH_EXPORT long long treematch_topology_leaves(treematch_topology topology);

/** Frees the topology and sets `*topology` to NULL (NULL and *NULL are ignored). */
TREEMATCH_EXPORT void treematch_topology_free(treematch_topology* topology);

/**
 * Maps `n` processes onto the leaves of `topology`. The matrix is given in CSR form: process i
 * sends weights[k] (bytes or messages) to process targets[k] for k in [offsets[i], offsets[i+1]);
 * offsets has n + 1 entries starting at 0, targets are in [0, n), weights finite and >= 0, in any
 * order (duplicates add up, the diagonal is ignored). A directed matrix is mapped as C + C^T.
 * `preset`: "fast", "default" or "strong" (NULL = "default"), the presets of `treematch map`.
 *
 * On success leaf_of_process[i] is the leaf of process i (0 .. leaves - 1, hwloc's logical order
 * of the cores or PUs; distinct while n <= leaves) and, when not NULL, *hop_bytes the cost of the
 * mapping (sum over i != j of C[i][j] x the tree edges between their leaves). More processes
 * than leaves is TREEMATCH_ERR_INPUT. The same mapping for any thread count. Thread-safe: calls
 * may run at once on different or shared topologies.
 */
TREEMATCH_EXPORT int treematch_map_csr(treematch_topology topology, int n,
                                       const long long offsets[], const int targets[],
                                       const double weights[], const char* preset,
                                       int leaf_of_process[], double* hop_bytes);

/** The message of the last call of this thread that failed ("" when none has). */
TREEMATCH_EXPORT const char* treematch_last_error(void);

#ifdef __cplusplus
}
#endif

/* TreeMatch 1.x's tm_* functions, for code written against TreeMatch's own treematch.h. */
#include "treematch_tm.h"

#endif /* TREEMATCH_H */
