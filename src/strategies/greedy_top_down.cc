// Top-down greedy splits above each depth, the walk below.
#include "src/strategies/greedy_top_down.h"

#include "src/top_down/top_down_mapping.h"
#include "src/walk/bottom_up.h"
#include "src/walk/mapping_input.h"

namespace treematch {

GroupingContext inner_grouping(GroupingContext grouping) {
  grouping.largest_index_last = false;
  grouping.weighted_degree_first = false;
  return grouping;
}

std::vector<TreeMatchResult> greedy_top_down_mappings(const CommGraph& graph, const Topology& tree,
                                                      const GroupingContext& grouping,
                                                      const GreedyTopDownContext& ctx) {
  std::vector<TreeMatchResult> mappings;
  if (graph.size() > ctx.max_processes || graph.nnz() > ctx.max_entries) return mappings;
  const GroupingContext inner = inner_grouping(grouping);
  const SubtreeMapping walk = [&](const CommGraph& subgraph, const Topology& subtree) {
    return bottom_up_mapping(LocalMappingInput(subgraph), subtree, inner,
                             WalkContext{AritySplit::kTable2});
  };
  for (int depth = 1; depth + 1 < tree.depth(); ++depth) {
    mappings.push_back(
        top_down_treematch_map(graph, tree, depth, NodeSplit::kGreedy, PartitionContext{}, walk));
  }
  return mappings;
}

}  // namespace treematch
