// Multilevel top-down mappings, one per seed, as parallel tasks.
#include "src/strategies/multilevel_top_down.h"

#include <algorithm>
#include <cstdint>

#include "kernels/parallel_tasks.h"
#include "src/strategies/greedy_top_down.h"
#include "src/top_down/top_down_mapping.h"

namespace treematch {

int multilevel_runs(Offset entries, const MultilevelTopDownContext& ctx) {
  const std::int64_t runs = ctx.budget / std::max<std::int64_t>(1, entries);
  return static_cast<int>(std::clamp<std::int64_t>(runs, 1, std::max(1, ctx.max_runs)));
}

int multilevel_disagreement_attempts(int runs, const PartitionContext& partition,
                                     const MultilevelTopDownContext& ctx) {
  const int seeds = std::max(1, runs);
  return std::max(partition.attempts, (ctx.attempt_budget + seeds - 1) / seeds);
}

int multilevel_more_kway_vcycles(Offset entries, const PartitionContext& partition,
                                 const MultilevelTopDownContext& ctx) {
  if (partition.kway_vcycles <= 0) return 0;
  const std::int64_t by_budget =
      std::min<std::int64_t>(ctx.max_vcycles, ctx.vcycle_budget / std::max<Offset>(1, entries));
  return static_cast<int>(std::max<std::int64_t>(0, by_budget - partition.kway_vcycles));
}

bool multilevel_top_down_applies(Offset entries, const Topology& tree,
                                 const MultilevelTopDownContext& ctx) {
  return entries <= ctx.max_entries && tree.depth() > 0;
}

std::vector<TreeMatchResult> multilevel_top_down_mappings(const CommGraph& graph,
                                                          const Topology& tree,
                                                          const GroupingContext& grouping,
                                                          const PartitionContext& partition,
                                                          const MultilevelTopDownContext& ctx) {
  if (!multilevel_top_down_applies(graph.nnz(), tree, ctx)) return {};
  const int runs = multilevel_runs(graph.nnz(), ctx);
  const auto split_depth = [&](std::size_t run) {
    const int walk_levels = run % 2 == 0 ? ctx.walk_levels : ctx.odd_seed_walk_levels;
    return std::clamp(tree.depth() - walk_levels, 1, tree.depth());  // applies: depth >= 1
  };
  const SubtreeMapping walk = subtree_walk(grouping);
  const int disagreement_attempts = multilevel_disagreement_attempts(runs, partition, ctx);
  const int more_kway_vcycles = multilevel_more_kway_vcycles(graph.nnz(), partition, ctx);
  std::vector<TreeMatchResult> mappings(static_cast<std::size_t>(runs));
  kernels::parallel_for_all(mappings.size(), [&](std::size_t run) {
    PartitionContext seeded = partition;
    seeded.seed = partition.seed + static_cast<std::uint64_t>(run);
    seeded.disagreement_attempts = disagreement_attempts;
    seeded.kway_more_vcycles = more_kway_vcycles;
    mappings[run] =
        top_down_treematch_map(graph, tree, split_depth(run), NodeSplit::kMultilevel, seeded, walk);
  });
  return mappings;
}

}  // namespace treematch
