// Top-down greedy splits above each depth, the walk below.
#include "src/strategies/greedy_top_down.h"

#include "src/walk/bottom_up.h"
#include "src/walk/mapping_input.h"

namespace treematch {

SubtreeMapping subtree_walk(GroupingContext grouping) {
  grouping.largest_index_last = false;
  grouping.weighted_degree_first = false;
  return [grouping](const CommGraph& subgraph, const Topology& subtree) {
    return bottom_up_mapping(LocalMappingInput(subgraph), subtree, grouping,
                             WalkContext{AritySplit::kTable2});
  };
}

std::vector<TreeMatchResult> greedy_top_down_mappings(const CommGraph& graph, const Topology& tree,
                                                      const GroupingContext& grouping,
                                                      const GreedyTopDownContext& ctx) {
  std::vector<TreeMatchResult> mappings;
  if (graph.size() > ctx.max_processes || graph.nnz() > ctx.max_entries) return mappings;
  const SubtreeMapping walk = subtree_walk(grouping);
  for (int depth = 1; depth + 1 < tree.depth(); ++depth) {
    mappings.push_back(
        top_down_treematch_map(graph, tree, depth, NodeSplit::kGreedy, PartitionContext{}, walk));
  }
  return mappings;
}

}  // namespace treematch
