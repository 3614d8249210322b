// Top-down mappings cut above each depth by greedy splits, TreeMatch's walk inside the subtrees.
#pragma once

#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/mapping_result.h"
#include "src/top_down/top_down_mapping.h"
#include "src/tree/topology.h"

namespace treematch {

/// The walk the top-down strategies run inside each subtree: `grouping` with the smallest-value
/// heuristic alone and the Table 2 walk (each candidate is refined as a whole afterwards).
SubtreeMapping subtree_walk(GroupingContext grouping);

/// For each depth d = 1 .. tree.depth() - 2, the nodes above d split top-down by greedy growing
/// plus pairwise swaps (top_down/top_down_mapping.h: split_processes) and the walk inside each
/// subtree at depth d (top_down_treematch_map): on mesh-like patterns the bottom-up greedy cuts the
/// upper levels poorly. None above ctx.max_processes processes or ctx.max_entries entries.
std::vector<TreeMatchResult> greedy_top_down_mappings(const CommGraph& graph, const Topology& tree,
                                                      const GroupingContext& grouping,
                                                      const GreedyTopDownContext& ctx);

}  // namespace treematch
