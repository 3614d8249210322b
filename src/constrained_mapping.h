// TreeMatch under --cores: the allowed leaves unbalance the tree, so it maps top-down.
#pragma once

#include <vector>

#include "kernels/types.h"
#include "src/comm_graph.h"
#include "src/context.h"
#include "src/mapping.h"
#include "src/topology.h"
#include "src/treematch.h"

namespace treematch {

/// Maps onto ctx.placement.allowed_leaves only (logical leaves, sorted, distinct), each taking up
/// to ctx.placement.oversubscribe processes. The caller checked that the processes fit.
///
/// Hybrid of the TreeMatch library's top-down constrained mapping and the bottom-up driver: from
/// the root down, a node whose leaves are all allowed ("full") maps its processes with
/// treematch_map on the induced subgraph and its subtree; any other node splits its processes among
/// its children by capacity (allowed leaves below x oversubscribe) with split_processes. Sequential
/// top-down, so the result never depends on the number of threads (the bottom-up runs are
/// deterministic themselves). O(nnz log nnz) per tree level plus the bottom-up runs.
///
/// `levels`: when every leaf is allowed, exactly treematch_map's result (bottom-up levels).
/// Otherwise one entry per depth at which a node was split, root first, with heuristic
/// "constrained top-down", arity = that level's arity, order = processes split there, candidates =
/// nodes split there; then, if any full subtree was mapped bottom-up, one entry with heuristic
/// "bottom-up TreeMatch on full subtrees", arity 0 (several subtrees), order = processes mapped so,
/// candidates = the candidates of all those runs. `seconds` is wall time (informative only).
///
/// Empty allowed_leaves means every leaf (treematch_map). Throws std::invalid_argument if
/// oversubscribe < 1, an allowed leaf is out of range or not strictly increasing, or the processes
/// do not fit.
TreeMatchResult constrained_treematch_map(const CommGraph& graph, const Topology& topology,
                                          const Context& ctx);

/// How top_down_treematch_map splits a node's processes among its children.
enum class NodeSplit {
  kGreedy,      ///< split_processes: greedy growing + pairwise swaps
  kMultilevel,  ///< multilevel_partition with ctx.partition, then split_processes' swap passes
};

/// The same top-down recursion over the whole tree (every leaf usable), splitting every node
/// above depth `split_depth` as `node_split` says (so the traffic crossing the upper, costlier
/// links is cut first) and running the bottom-up treematch_map inside each subtree at that
/// depth (split_depth = tree depth: split down to the leaves). Deterministic for any thread
/// count. Throws std::invalid_argument when the processes do not fit.
TreeMatchResult top_down_treematch_map(const CommGraph& graph, const Topology& topology,
                                       const Context& ctx, int split_depth,
                                       NodeSplit node_split = NodeSplit::kGreedy);

/// Pairwise-swap passes split_processes makes at most (it stops earlier after a pass without
/// swaps).
inline constexpr int kSplitSwapPasses = 8;

/// The k-way split of one tree node: parts of exactly the given sizes (sizes[q] >= 1, summing to
/// graph.n), with a small weight of edges between parts (the cut). Greedy graph growing (part q in
/// order: seed = the unassigned process with the most communication to unassigned ones, then the
/// unassigned process most connected to the part, smallest index on ties or when none is
/// connected; the last part takes the rest), then at most `swap_passes` passes of pairwise swaps
/// of boundary processes between two parts, each applied only if it strictly lowers the cut (so the
/// cut never grows with more passes). Returns the part of each process. Sequential and
/// deterministic; O(nnz log nnz) per pass. Throws std::invalid_argument if the sizes do not sum to
/// graph.n, one is < 1, or swap_passes < 0.
std::vector<kernels::Index> split_processes(kernels::CsrView graph,
                                            const std::vector<kernels::Index>& sizes,
                                            int swap_passes = kSplitSwapPasses);

}  // namespace treematch
