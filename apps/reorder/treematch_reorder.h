/* C API of the in-job rank reordering: a communicator whose rank order follows TreeMatch. */
#ifndef TREEMATCH_REORDER_H
#define TREEMATCH_REORDER_H

#include <mpi.h>

#if defined(__GNUC__)
#define TREEMATCH_REORDER_EXPORT __attribute__((visibility("default")))
#else
#define TREEMATCH_REORDER_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reorders the ranks of `comm` after the communication pattern given as MPI_Dist_graph_create
 * takes it (seed paper, Appendix C). Collective over `comm`, an intracommunicator, on every rank.
 *
 * This process describes `n` source ranks: source sources[i] sends to the next degrees[i] ranks
 * of `destinations`, with the matching `weights` (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY or NULL:
 * every edge weighs 1). Any rank may describe any edge, e.g. rank 0 all of them and the others
 * n = 0; the edges are summed into the matrix TreeMatch maps.
 *
 * Every process reports the PU it runs on (its binding when bound to one PU, otherwise where it
 * runs now); the job's nodes are described with hwloc (the PUs the job may use, identical on every
 * node); rank 0 maps the matrix onto the PUs the processes occupy (a process count per PU larger
 * than 1 is handled as oversubscription). TreeMatch says "application rank k should run on slot
 * s(k)"; the processes are already placed, so the process on slot s(k) becomes rank k of
 * `*reordered` (MPI_Comm_split with key k).
 *
 * Returns MPI_SUCCESS and a new communicator the caller frees with MPI_Comm_free; otherwise the
 * same error class on every rank (MPI_ERR_ARG for bad input, MPI_ERR_COMM for an
 * intercommunicator, MPI_ERR_NO_MEM, MPI_ERR_OTHER), `*reordered` = MPI_COMM_NULL and one message
 * on stderr (from the rank that failed). Never throws; MPI must be initialised.
 */
TREEMATCH_REORDER_EXPORT int treematch_reorder_dist_graph(MPI_Comm comm, int n, const int sources[],
                                                          const int degrees[],
                                                          const int destinations[],
                                                          const int weights[], MPI_Comm* reordered);

/**
 * As treematch_reorder_dist_graph, the matrix read on rank 0 from `path` (any format the treematch
 * command reads: dense text .mat, .csv, METIS, HDF5) with `metric` "size", "msg" or "avg" (NULL =
 * "size"). `path` and `metric` are read on rank 0 only; the matrix must have one row per rank.
 */
TREEMATCH_REORDER_EXPORT int treematch_reorder_matrix_file(MPI_Comm comm, const char* path,
                                                           const char* metric, MPI_Comm* reordered);

#ifdef __cplusplus
}
#endif

#endif /* TREEMATCH_REORDER_H */
