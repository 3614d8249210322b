// TreeMatch under --cores: the allowed leaves unbalance the tree, so it maps top-down.
#pragma once

#include <functional>
#include <vector>

#include "kernels/types.h"
#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/mapping.h"
#include "src/model/mapping_result.h"
#include "src/tree/topology.h"

namespace treematch {

/// Maps the processes of a graph onto a whole subtree (every leaf usable): the walk the top-down
/// mappings run inside the subtrees they reach.
using SubtreeMapping =
    std::function<TreeMatchResult(const CommGraph& graph, const Topology& subtree)>;

/// Maps onto ctx.placement.allowed_leaves only (logical leaves, sorted, distinct, not all of the
/// leaves), each taking up to ctx.placement.oversubscribe processes. The caller checked that the
/// processes fit.
///
/// Hybrid of the TreeMatch library's top-down constrained mapping and the bottom-up walk: from
/// the root down, a node whose leaves are all allowed ("full") maps its processes with the walk
/// (bottom_up_mapping with ctx.grouping and ctx.walk, refined with ctx.refinement) on the induced
/// subgraph and its subtree; any other node splits its processes among its children by capacity
/// (allowed leaves below x oversubscribe) with split_processes, or with the multilevel
/// partitioner: both run, the cheaper mapping is kept. Deterministic for any thread count.
/// O(nnz log nnz) per tree level plus the walks.
///
/// `levels`: one entry per depth at which a node was split, root first, with heuristic
/// "constrained top-down", arity = that level's arity, order = processes split there, candidates =
/// nodes split there; then, if any full subtree was walked, one entry with heuristic
/// "bottom-up TreeMatch on full subtrees", arity 0 (several subtrees), order = processes mapped so,
/// candidates = the candidates of all those walks. `seconds` is wall time (informative only).
///
/// Throws std::invalid_argument if oversubscribe < 1, an allowed leaf is out of range or not
/// strictly increasing, or the processes do not fit.
TreeMatchResult constrained_treematch_map(const CommGraph& graph, const Topology& topology,
                                          const Context& ctx);

/// How top_down_treematch_map splits a node's processes among its children.
enum class NodeSplit {
  kGreedy,      ///< split_processes: greedy growing + pairwise swaps
  kMultilevel,  ///< multilevel_partition with `partition`, then split_processes' swap passes
};

/// The same top-down recursion over the whole tree (every leaf usable, one process per leaf),
/// splitting every node above depth `split_depth` as `node_split` says (so the traffic crossing
/// the upper, costlier links is cut first) and mapping each subtree at that depth with
/// `map_subtree` (split_depth = tree depth: split down to the leaves). Deterministic for any
/// thread count. Throws std::invalid_argument when the processes do not fit.
TreeMatchResult top_down_treematch_map(const CommGraph& graph, const Topology& topology,
                                       int split_depth, NodeSplit node_split,
                                       const PartitionContext& partition,
                                       const SubtreeMapping& map_subtree);

/// The same on a machine of allowed leaves (sorted and distinct; empty: every leaf), each holding
/// up to `per_leaf` processes: a node is split among its children by their allowed slots, and only
/// a full subtree at depth `split_depth` or below goes to `map_subtree` (on its tree with one
/// virtual leaf per slot). The caller checks that the processes fit (constrained_treematch_map's
/// checks).
TreeMatchResult top_down_treematch_map(const CommGraph& graph, const Topology& topology,
                                       const std::vector<Index>& allowed, Index per_leaf,
                                       int split_depth, NodeSplit node_split,
                                       const PartitionContext& partition,
                                       const SubtreeMapping& map_subtree);

/// Pairwise-swap passes split_processes makes at most (it stops earlier after a pass without
/// swaps): as many as the multilevel split's polish by default.
inline constexpr int kSplitSwapPasses = PartitionContext{}.swap_passes;

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
