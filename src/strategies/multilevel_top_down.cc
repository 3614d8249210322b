// Multilevel top-down mappings, one per seed, as parallel tasks, until the seeds agree.
#include "src/strategies/multilevel_top_down.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>

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

bool seeds_agree(std::span<const double> costs, int agreeing) {
  if (agreeing <= 0 || costs.empty()) return false;
  const double cheapest = *std::min_element(costs.begin(), costs.end());
  return std::count(costs.begin(), costs.end(), cheapest) >= agreeing;
}

std::size_t agreed_seeds(std::span<const double> costs, const MultilevelTopDownContext& ctx) {
  if (ctx.agreeing_seeds <= 0) return costs.size();
  const auto step = static_cast<std::size_t>(std::max(1, ctx.seed_step));
  for (std::size_t end = step; end < costs.size(); end += step) {
    if (seeds_agree(costs.first(end), ctx.agreeing_seeds)) return end;
  }
  return costs.size();
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
  if (graph.size() > tree.leaf_count()) {
    throw std::invalid_argument("multilevel top-down mapping: " + std::to_string(graph.size()) +
                                " processes do not fit on " + std::to_string(tree.leaf_count()) +
                                " leaves");
  }
  return multilevel_top_down_mappings(graph, tree, {}, 1, subtree_walk(grouping), partition, ctx);
}

std::vector<TreeMatchResult> multilevel_top_down_mappings(
    const CommGraph& graph, const Topology& tree, const std::vector<Index>& allowed, Index per_leaf,
    const SubtreeMapping& walk, const PartitionContext& partition,
    const MultilevelTopDownContext& ctx) {
  if (!multilevel_top_down_applies(graph.nnz(), tree, ctx)) return {};
  const int runs = multilevel_runs(graph.nnz(), ctx);
  const auto split_depth = [&](std::size_t run) {
    const int walk_levels = run % 2 == 0 ? ctx.walk_levels : ctx.odd_seed_walk_levels;
    return std::clamp(tree.depth() - walk_levels, 1, tree.depth());  // applies: depth >= 1
  };
  const int disagreement_attempts = multilevel_disagreement_attempts(runs, partition, ctx);
  const int more_kway_vcycles = multilevel_more_kway_vcycles(graph.nnz(), partition, ctx);
  std::vector<TreeMatchResult> mappings(static_cast<std::size_t>(runs));
  const std::size_t step = ctx.agreeing_seeds > 0
                               ? static_cast<std::size_t>(std::max(1, ctx.seed_step))
                               : mappings.size();
  // A step's check reads the seeds before it, never the last step's: no cost is needed from there
  // (none where the seeds fit in one step, as the one seed of a large input).
  const std::size_t compared = (mappings.size() - 1) / step * step;
  std::vector<double> costs(mappings.size(), 0.0);
  const auto make = [&](std::size_t run) {
    PartitionContext seeded = partition;
    seeded.seed = partition.seed + static_cast<std::uint64_t>(run);
    seeded.disagreement_attempts = disagreement_attempts;
    seeded.kway_more_vcycles = more_kway_vcycles;
    mappings[run] = top_down_treematch_map(graph, tree, allowed, per_leaf, split_depth(run),
                                           NodeSplit::kMultilevel, seeded, walk);
    if (run < compared) costs[run] = evaluate_cost(graph, tree, mappings[run].mapping).weighted;
  };
  // The seeds start in order (each task takes the next) and none starts past a step where those
  // before agree; the ones made past it are dropped (agreed_seeds), so the result is the same for
  // any thread count, and no thread waits for the others.
  std::atomic<std::size_t> next{0};
  std::mutex made_lock;  // guards the three below
  std::vector<char> made(mappings.size(), 0);
  std::size_t made_before = 0;         // the seeds [0, made_before) are made
  std::size_t stop = mappings.size();  // no seed from here on starts
  kernels::parallel_for_all(mappings.size(), [&](std::size_t) {
    const std::size_t run = next.fetch_add(1);
    {
      const std::lock_guard<std::mutex> lock(made_lock);
      if (run >= stop) return;
    }
    make(run);
    const std::lock_guard<std::mutex> lock(made_lock);
    made[run] = 1;
    while (made_before < made.size() && made[made_before] != 0) ++made_before;
    for (std::size_t end = step; end <= made_before && end < stop; end += step) {
      if (seeds_agree(std::span(costs).first(end), ctx.agreeing_seeds)) stop = end;
    }
  });
  mappings.resize(agreed_seeds(std::span(costs).first(made_before), ctx));
  return mappings;
}

}  // namespace treematch
