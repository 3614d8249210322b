/* C API of phase monitoring: measure what the ranks of a communicator send each other during a
 * phase of a running job, then write it (HDF5) and/or reorder the ranks after it. */
#ifndef TREEMATCH_PHASE_H
#define TREEMATCH_PHASE_H

#include <mpi.h>

#include "treematch_reorder.h" /* beside this header, in the tree and installed */

#ifdef __cplusplus
extern "C" {
#endif

/** A phase being measured or measured. */
typedef struct treematch_phase_s* treematch_phase;

/** Which counters a phase reads (treematch_phase_source). */
enum treematch_phase_counters {
  TREEMATCH_PHASE_MPI_T = 1,  /**< Open MPI's monitoring, pml_monitoring_messages_size / _count */
  TREEMATCH_PHASE_PROFILE = 2 /**< libtreematch-profile.so's counters (all classes) */
};

/**
 * Starts a phase on `comm` (an intracommunicator; collective over it, on every rank). Reads the
 * counters now; what each rank sends from here to treematch_phase_stop is the phase.
 *
 * Counters: Open MPI's monitoring through MPI_T (the performance variables
 * pml_monitoring_messages_size and pml_monitoring_messages_count, class SIZE, bound to `comm`;
 * loaded with mpirun --mca pml_monitoring_enable 1 or 2), otherwise the counters of the profiling
 * library libtreematch-profile.so when it is loaded (LD_PRELOAD or linked). Neither: returns
 * MPI_ERR_UNSUPPORTED_OPERATION on every rank with one line on stderr from rank 0, `*phase` =
 * NULL, and the application goes on.
 *
 * Returns MPI_SUCCESS, or the same error class on every rank (MPI_ERR_COMM, MPI_ERR_NO_MEM,
 * MPI_ERR_OTHER). Never throws.
 */
TREEMATCH_REORDER_EXPORT int treematch_phase_start(MPI_Comm comm, treematch_phase* phase);

/** Ends the phase (local, not collective). MPI_ERR_ARG for NULL or a phase already stopped. */
TREEMATCH_REORDER_EXPORT int treematch_phase_stop(treematch_phase phase);

/** TREEMATCH_PHASE_MPI_T or TREEMATCH_PHASE_PROFILE; 0 for NULL. */
TREEMATCH_REORDER_EXPORT int treematch_phase_source(treematch_phase phase);

/**
 * This rank's row of the stopped phase (local): bytes[r] and messages[r] sent to rank r of the
 * communicator, as many entries as it has ranks (either array may be NULL). MPI_ERR_ARG before
 * stop.
 */
TREEMATCH_REORDER_EXPORT int treematch_phase_row(treematch_phase phase, unsigned long long bytes[],
                                                 unsigned long long messages[]);

/**
 * Collective: adds the stopped phase to the HDF5 file `path` (created if missing) as the group
 * /phase/NAME holding `size` (bytes) and `msg` (messages), csr_matrix groups with row i, column j
 * = sent by rank i to rank j, and attributes `source` and `ranks`: `treematch map --matrix
 * path:/phase/NAME` maps it. Rank 0 writes; the file changes all at once or not at all.
 * `path` and `name` are read on rank 0 only. MPI_ERR_IO (every rank) when it cannot be written or
 * the phase is already there.
 */
TREEMATCH_REORDER_EXPORT int treematch_phase_write(treematch_phase phase, const char* path,
                                                   const char* name);

/**
 * Collective: maps the stopped phase (`metric` "size" = bytes or "msg" = messages; NULL = "size")
 * and returns the reordered communicator, as treematch_reorder_dist_graph does: onto the job's
 * allocation (the PU each rank is bound to) when `topology` is NULL, otherwise onto the machine
 * `topology` names (any treematch --topology form but allocation: a synthetic string such as
 * "pack:2 core:4", a tleaf line, an hwloc XML file; rank r sits on its leaf r). The caller frees
 * `*reordered`; on failure it is MPI_COMM_NULL on every rank, the phase's communicator usable.
 */
TREEMATCH_REORDER_EXPORT int treematch_phase_reorder(treematch_phase phase, const char* metric,
                                                     const char* topology, MPI_Comm* reordered);

/** Frees the phase (stopped or not) and sets `*phase` to NULL; local. */
TREEMATCH_REORDER_EXPORT int treematch_phase_free(treematch_phase* phase);

#ifdef __cplusplus
}
#endif

#endif /* TREEMATCH_PHASE_H */
