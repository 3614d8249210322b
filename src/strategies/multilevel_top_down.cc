// Multilevel top-down mappings, one per seed, as parallel tasks; the first seeds alone where they
// agree.
#include "src/strategies/multilevel_top_down.h"

#include <algorithm>
#include <cstdint>
#include <span>

#include "kernels/parallel_tasks.h"
#include "src/model/cost.h"
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

std::size_t multilevel_first_seeds(int runs, const MultilevelTopDownContext& ctx) {
  const int first = ctx.agreeing_seeds > 0 ? std::min(runs, ctx.first_seeds) : runs;
  return static_cast<std::size_t>(std::max(1, first));
}

bool seeds_agree(std::span<const double> costs, int agreeing) {
  if (agreeing <= 0 || costs.empty()) return false;
  const double cheapest = *std::min_element(costs.begin(), costs.end());
  return std::count(costs.begin(), costs.end(), cheapest) >= agreeing;
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
  const std::size_t first = multilevel_first_seeds(runs, ctx);
  std::vector<double> costs(mappings.size(), 0.0);  // of the first seeds, to see if they agree
  const auto make = [&](std::size_t run) {
    PartitionContext seeded = partition;
    seeded.seed = partition.seed + static_cast<std::uint64_t>(run);
    seeded.disagreement_attempts = disagreement_attempts;
    seeded.kway_more_vcycles = more_kway_vcycles;
    mappings[run] =
        top_down_treematch_map(graph, tree, split_depth(run), NodeSplit::kMultilevel, seeded, walk);
    if (run < first) costs[run] = evaluate_cost(graph, tree, mappings[run].mapping).weighted;
  };
  // The first seeds and as many more as the threads run at once: the others' mappings are dropped
  // when the first agree, so the result is the same for any thread count.
  const std::size_t wave = std::max(first, std::min(mappings.size(), kernels::task_slots()));
  kernels::parallel_for_all(wave, make);
  if (first < mappings.size() && seeds_agree(std::span(costs).first(first), ctx.agreeing_seeds)) {
    mappings.resize(first);
    return mappings;
  }
  kernels::parallel_for_all(mappings.size() - wave, [&](std::size_t i) { make(wave + i); });
  return mappings;
}

}  // namespace treematch
