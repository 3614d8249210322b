// The TreeMatch driver: a list of candidate strategies, each refined, the cheapest kept.
#include "src/treematch.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "kernels/parallel_tasks.h"
#include "kernels/utility.h"
#include "src/constrained_mapping.h"
#include "src/cost.h"
#include "src/progress.h"
#include "src/refinement.h"
#include "src/strategies/bottom_up.h"
#include "src/strategies/greedy_top_down.h"
#include "src/strategies/identity.h"
#include "src/strategies/multilevel_top_down.h"
#include "src/strategies/prioritised_links.h"

namespace treematch {
namespace {

void check_fits(Index processes, Index slots, const Context& ctx) {
  if (processes <= slots) return;
  throw std::invalid_argument(
      std::to_string(processes) + " processes do not fit on " + std::to_string(slots) + " slots (" +
      (ctx.placement.allowed_leaves.empty() ? std::string("all leaves")
                                            : std::string("usable leaves")) +
      (ctx.placement.oversubscribe > 1
           ? " x --oversubscribe " + std::to_string(ctx.placement.oversubscribe)
           : "") +
      "); use --oversubscribe N to place N processes per core");
}

/// The candidates of one strategy (several: one per depth or seed), unrefined.
std::vector<TreeMatchResult> candidates(Strategy strategy, const MappingInput& input,
                                        const Topology& tree, const Context& ctx, bool whole,
                                        const ProgressSpan& progress) {
  switch (strategy) {
    case Strategy::kBottomUp: {
      std::vector<TreeMatchResult> one;
      one.push_back(bottom_up_mapping(input, tree, ctx.grouping, ctx.walk, progress));
      return one;
    }
    case Strategy::kPrioritisedLinks:
      return prioritised_links_mappings(input, tree, ctx.grouping, ctx.prioritised);
    case Strategy::kGreedyTopDown:
      if (!whole) return {};
      return greedy_top_down_mappings(input.whole(), tree, ctx.grouping, ctx.greedy_top_down);
    case Strategy::kMultilevelTopDown:
      if (!whole) return {};
      return multilevel_top_down_mappings(input.whole(), tree, ctx.grouping, ctx.partition,
                                          ctx.multilevel);
    case Strategy::kIdentity: {
      std::vector<TreeMatchResult> one(1);
      one.front().mapping = identity_mapping(input.size());
      one.front().identity_kept = true;
      return one;
    }
  }
  return {};
}

}  // namespace

TreeMatchResult treematch_map(const CommGraph& graph, const Topology& topology,
                              const Context& ctx) {
  return treematch_map(LocalMappingInput(graph), topology, ctx);
}

TreeMatchResult treematch_map(const MappingInput& input, const Topology& topology,
                              const Context& ctx) {
  const Index per_leaf = ctx.placement.oversubscribe;
  const std::vector<Index>& allowed = ctx.placement.allowed_leaves;
  if (allowed.empty() && topology.has_holes()) {
    // Holes of an unbalanced machine are never used: only its present leaves are.
    Context present = ctx;
    present.placement.allowed_leaves = topology.present_leaves();
    return treematch_map(input, topology, present);
  }
  if (!allowed.empty() && static_cast<Index>(allowed.size()) == topology.leaf_count()) {
    Context every = ctx;  // every leaf allowed: no constraint
    every.placement.allowed_leaves.clear();
    return treematch_map(input, topology, every);
  }
  if (!allowed.empty()) {
    check_fits(input.size(), static_cast<Index>(allowed.size()) * per_leaf, ctx);
    TreeMatchResult constrained = constrained_treematch_map(input.whole(), topology, ctx);
    constrained.cost = input.cost(topology, constrained.mapping);
    constrained.strategy = "constrained top-down";
    // The identity of a constrained machine: rank i on the i-th usable slot.
    Mapping identity;
    for (Index i = 0; i < input.size(); ++i)
      identity.leaf_of_rank.push_back(allowed[static_cast<std::size_t>(i / per_leaf)]);
    const MappingCost identity_cost = input.cost(topology, identity);
    if (identity_cost.weighted < constrained.cost.weighted) {
      constrained.mapping = std::move(identity);
      constrained.identity_kept = true;
      constrained.strategy = "identity";
      constrained.cost = identity_cost;
    }
    return constrained;
  }
  check_fits(input.size(), topology.leaf_count() * per_leaf, ctx);
  if (input.size() == 0) return {};
  const Topology tree = topology.with_oversubscription(per_leaf);

  // The refinement and the top-down strategies need every row here.
  const bool whole =
      ctx.driver.whole_matrix_forced || input.entries() <= ctx.driver.whole_matrix_max_entries;
  const bool refine = ctx.refinement.swaps && whole && tree.depth() > 0 &&
                      input.entries() <= ctx.refinement.max_entries;
  TreeMatchResult best;
  MappingCost best_cost;
  bool have = false;
  std::vector<StrategyTrace> traces;
  const double strategies = static_cast<double>(ctx.driver.strategies.size());
  for (std::size_t s = 0; s < ctx.driver.strategies.size(); ++s) {
    const Strategy strategy = ctx.driver.strategies[s];
    if (ctx.driver.first_that_applies && have && strategy != Strategy::kIdentity) continue;
    const auto start = std::chrono::steady_clock::now();
    // Each strategy fills an equal share of the progress line; the refinement its last tenth.
    const ProgressSpan share{ctx.progress, to_string(strategy), static_cast<double>(s) / strategies,
                             static_cast<double>(s + 1) / strategies};
    const bool refined = refine && strategy != Strategy::kIdentity;
    share.at(0.0);
    std::vector<TreeMatchResult> found =
        candidates(strategy, input, tree, ctx, whole, share.part(0.0, refined ? 0.9 : 1.0));
    // Exchanges of processes and subtrees that lower the weighted cost, for every candidate but
    // the identity (the floor a launcher gives); independent, so they run as tasks.
    if (refined) {
      share.at(0.9, ", refining");
      kernels::parallel_for_all(found.size(), [&](std::size_t c) {
        const RefinementStats stats =
            refine_mapping(input.whole(), tree, found[c].mapping.leaf_of_rank, ctx.refinement);
        found[c].refinement_swaps = stats.swaps + stats.subtree_swaps;
      });
    }
    StrategyTrace trace{to_string(strategy), found.size(), 0.0, 0.0};
    for (TreeMatchResult& candidate : found) {
      const MappingCost cost = input.cost(tree, candidate.mapping);
      if (trace.best_weighted == 0.0 || cost.weighted < trace.best_weighted)
        trace.best_weighted = cost.weighted;
      if (have && !(cost.weighted < best_cost.weighted)) continue;
      candidate.strategy = to_string(strategy);
      if (have && strategy != Strategy::kIdentity) candidate.identity_kept = false;
      best = std::move(candidate);
      best_cost = cost;
      have = true;
    }
    trace.seconds = kernels::seconds_since(start);
    if (ctx.progress != nullptr) ctx.progress->strategy_ended(trace);
    traces.push_back(std::move(trace));
  }
  if (!have) best.mapping = identity_mapping(input.size());  // no strategy applied
  // Virtual leaves (oversubscription) back to cores.
  for (Index& leaf : best.mapping.leaf_of_rank) leaf /= per_leaf;
  // Without oversubscription the tree is the topology: the kept candidate's cost stands.
  best.cost = per_leaf == 1 && have ? best_cost : input.cost(topology, best.mapping);
  best.strategies = std::move(traces);
  return best;
}

}  // namespace treematch
