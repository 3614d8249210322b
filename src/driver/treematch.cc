// The TreeMatch driver: a list of candidate strategies, each refined, the cheapest kept.
#include "src/driver/treematch.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/parallel_tasks.h"
#include "kernels/utility.h"
#include "src/driver/allowed_slots.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"
#include "src/model/progress.h"
#include "src/refine/congestion_refinement.h"
#include "src/refine/refinement.h"
#include "src/strategies/greedy_top_down.h"
#include "src/strategies/identity.h"
#include "src/strategies/multilevel_top_down.h"
#include "src/strategies/pair_remapping.h"
#include "src/strategies/prioritised_links.h"
#include "src/top_down/top_down_mapping.h"
#include "src/walk/bottom_up.h"

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

/// The default preset's options with ctx's machine, placement, threads and progress: what
/// driver.include_default runs first.
Context default_preset_beside(const Context& ctx) {
  Context floor = preset_context(Preset::kDefault);
  floor.driver.whole_matrix_max_entries = ctx.driver.whole_matrix_max_entries;
  floor.driver.whole_matrix_forced = ctx.driver.whole_matrix_forced;
  floor.placement = ctx.placement;
  floor.baselines = ctx.baselines;
  floor.objective = ctx.objective;
  floor.threads = ctx.threads;
  floor.progress = ctx.progress;
  return floor;
}

/// Whether an input is above ctx.driver.multilevel_only_above processes and the driver makes a
/// multilevel top-down candidate for it, from ctx's strategies or the default preset's run
/// beside them (driver.include_default: strong makes none of its own): the walk over the whole
/// tree and the greedy top-down mappings are then not made.
bool left_to_multilevel(const MappingInput& input, const Topology& tree, const Context& ctx,
                        bool whole) {
  const auto makes_multilevel = [&](const Context& c) {
    return c.driver.lists(Strategy::kMultilevelTopDown) &&
           multilevel_top_down_applies(input.entries(), tree, c.multilevel);
  };
  return input.size() > ctx.driver.multilevel_only_above && whole &&
         (makes_multilevel(ctx) ||
          (ctx.driver.include_default && makes_multilevel(default_preset_beside(ctx))));
}

/// The walks with costly links first made for one context, unrefined: strong makes the default
/// preset's candidates first, then its own, and where both make the same walks (the same grouping
/// and arity limit, both applying at this size) they are made once; strong's longer refinement
/// still runs on its own copies (at 256 to 2048 processes the walks take 70-80% of the strategy's
/// time).
struct PrioritisedWalks {
  bool made = false;
  GroupingContext grouping;
  Index max_arity = 0;
  std::vector<TreeMatchResult> walks;
};

/// prioritised_links_mappings, or the same walks `memo` holds; remembers them in `memo`.
std::vector<TreeMatchResult> prioritised_walks(const MappingInput& input, const Topology& tree,
                                               const Context& ctx, PrioritisedWalks& memo) {
  if (!prioritises_links(tree, input.size(), ctx.prioritised)) return {};
  if (memo.made && memo.grouping == ctx.grouping && memo.max_arity == ctx.prioritised.max_arity)
    return memo.walks;
  memo = {true, ctx.grouping, ctx.prioritised.max_arity,
          prioritised_links_mappings(input, tree, ctx.grouping, ctx.prioritised)};
  return memo.walks;
}

/// The candidates of one strategy (several: one per depth or seed), unrefined.
std::vector<TreeMatchResult> candidates(Strategy strategy, const MappingInput& input,
                                        const Topology& tree, const Context& ctx, bool whole,
                                        const ProgressSpan& progress, PrioritisedWalks& memo) {
  switch (strategy) {
    case Strategy::kBottomUp: {
      if (left_to_multilevel(input, tree, ctx, whole)) return {};
      std::vector<TreeMatchResult> one;
      one.push_back(bottom_up_mapping(input, tree, ctx.grouping, ctx.walk, progress));
      return one;
    }
    case Strategy::kPrioritisedLinks:
      return prioritised_walks(input, tree, ctx, memo);
    case Strategy::kGreedyTopDown:
      if (!whole || left_to_multilevel(input, tree, ctx, whole)) return {};
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

/// The cheapest candidate so far, and what each strategy did.
struct Kept {
  TreeMatchResult best;
  MappingCost cost;
  bool have = false;
  std::optional<double> congestion;  ///< of `best`, once a tie asked for it
  std::vector<StrategyTrace> traces;
  PrioritisedWalks prioritised;  ///< the walks the strategies made, for a later list's same ones
};

/// The links the objective is measured on, for `tree` (the topology, or its oversubscribed copy
/// whose virtual bottom level is one core: free links).
LinkModel links_of(const Topology& topology, const Topology& tree, const Context& ctx) {
  LinkModel links = ctx.objective.links.links.size() == static_cast<std::size_t>(topology.depth())
                        ? ctx.objective.links
                        : preset_link_model(topology, LinkPreset::kFatTree);
  while (links.links.size() < static_cast<std::size_t>(tree.depth())) links.links.emplace_back();
  return links;
}

/// Whether `candidate`, as cheap as the kept mapping, loads the links less (the congestion
/// norm): the tie-break of every objective. Needs the whole matrix.
bool less_congested(const MappingInput& input, const Topology& tree, const LinkModel& links,
                    const TreeMatchResult& candidate, Kept& kept) {
  const auto norm_of = [&](const Mapping& mapping) {
    return congestion_norm(uplink_bytes_by_level(input.whole(), tree, mapping), links);
  };
  if (!kept.congestion) kept.congestion = norm_of(kept.best.mapping);
  const double norm = norm_of(candidate.mapping);
  if (!(norm < *kept.congestion)) return false;
  kept.congestion = norm;
  return true;
}

/// Whether the `floor` context's strategies can give a candidate that ctx's do not: not where
/// only the walks run, unrefined (without the whole matrix, e.g. S3), with the floor's options
/// and limits no wider than ctx's (strong's 1M-process walk would be made twice).
bool adds_candidates(const Context& ctx, const Context& floor, bool whole) {
  return whole || !ctx.driver.lists(Strategy::kBottomUp) ||
         !ctx.driver.lists(Strategy::kPrioritisedLinks) || ctx.driver.first_that_applies ||
         !(ctx.grouping == floor.grouping) || ctx.walk.split != floor.walk.split ||
         ctx.prioritised.max_processes < floor.prioritised.max_processes ||
         ctx.prioritised.max_arity < floor.prioritised.max_arity;
}

/// Runs ctx.driver.strategies in order over `tree`, each candidate refined (but the identity's);
/// one replaces `kept` only when strictly cheaper, or as cheap and less congested on `*ties` (with
/// the whole matrix; null: the earlier stays). Strategy names get `suffix`; the strategies share
/// `span` of the progress line equally.
void run_strategies(const MappingInput& input, const Topology& tree, const LinkModel* ties,
                    const Context& ctx, bool whole, const ProgressSpan& span,
                    const std::string& suffix, Kept& kept) {
  const bool refine = whole && tree.depth() > 0 && ctx.refinement.applies(input.entries());
  const double strategies = static_cast<double>(ctx.driver.strategies.size());
  bool gave = false;  // a strategy of this list gave a candidate
  for (std::size_t s = 0; s < ctx.driver.strategies.size(); ++s) {
    const Strategy strategy = ctx.driver.strategies[s];
    if (ctx.driver.first_that_applies && gave && strategy != Strategy::kIdentity) continue;
    const auto start = std::chrono::steady_clock::now();
    const std::string name = to_string(strategy) + suffix;
    // Each strategy fills an equal share of the span; the refinement its last tenth.
    ProgressSpan share =
        span.part(static_cast<double>(s) / strategies, static_cast<double>(s + 1) / strategies);
    share.label = name;
    const bool refined = refine && strategy != Strategy::kIdentity;
    share.at(0.0);
    std::vector<TreeMatchResult> found = candidates(
        strategy, input, tree, ctx, whole, share.part(0.0, refined ? 0.9 : 1.0), kept.prioritised);
    gave = gave || !found.empty();
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
    StrategyTrace trace{name, found.size(), 0.0, 0.0};
    for (TreeMatchResult& candidate : found) {
      const MappingCost cost = input.cost(tree, candidate.mapping);
      if (trace.best_weighted == 0.0 || cost.weighted < trace.best_weighted)
        trace.best_weighted = cost.weighted;
      if (kept.have && !(cost.weighted < kept.cost.weighted)) {
        const bool tie = cost.weighted == kept.cost.weighted && whole && ties != nullptr;
        if (!tie || !less_congested(input, tree, *ties, candidate, kept)) continue;
      } else {
        kept.congestion.reset();
      }
      candidate.strategy = name;
      if (kept.have && strategy != Strategy::kIdentity) candidate.identity_kept = false;
      kept.best = std::move(candidate);
      kept.cost = cost;
      kept.have = true;
    }
    trace.seconds = kernels::seconds_since(start);
    if (ctx.progress != nullptr) ctx.progress->strategy_ended(trace);
    kept.traces.push_back(std::move(trace));
  }
}

/// The kept candidate's sibling subtrees mapped again in pairs (ctx.pair_remap, which the caller
/// checked applies), not the identity's (the floor a launcher gives). Adds a trace named "pair
/// remapping".
void remap_pairs_of_kept(const MappingInput& input, const Topology& tree, const Context& ctx,
                         const ProgressSpan& span, Kept& kept) {
  const auto start = std::chrono::steady_clock::now();
  const PairRemapStats stats =
      remap_subtree_pairs(input.whole(), tree, kept.best.mapping.leaf_of_rank, ctx, span);
  if (stats.changed > 0) {
    kept.cost = input.cost(tree, kept.best.mapping);
    kept.best.strategy += " + pair remapping";
  }
  StrategyTrace trace{"pair remapping", static_cast<std::size_t>(stats.pairs), kept.cost.weighted,
                      kernels::seconds_since(start)};
  if (ctx.progress != nullptr) ctx.progress->strategy_ended(trace);
  kept.traces.push_back(std::move(trace));
}

/// --objective congestion: the kept mapping's congestion lowered within the cost tolerance. Adds a
/// trace named "congestion".
void lower_congestion_of_kept(const MappingInput& input, const Topology& tree,
                              const LinkModel& links, const Context& ctx, Kept& kept) {
  const auto start = std::chrono::steady_clock::now();
  if (ctx.progress != nullptr) ctx.progress->step("lowering the congestion", -1.0);
  const CongestionStats stats =
      lower_congestion(input.whole(), tree, links, kept.best.mapping.leaf_of_rank, ctx.objective);
  if (stats.moves > 0) {
    kept.cost = input.cost(tree, kept.best.mapping);
    kept.best.strategy += " + congestion";
    kept.best.identity_kept = false;
  }
  StrategyTrace trace{"congestion", static_cast<std::size_t>(stats.moves), kept.cost.weighted,
                      kernels::seconds_since(start)};
  if (ctx.progress != nullptr) ctx.progress->strategy_ended(trace);
  kept.traces.push_back(std::move(trace));
}

/// Refines `mapping` on the allowed cores' `slots` where the driver refines, its processes moving
/// only to those slots.
void refine_on_allowed(const MappingInput& input, const Topology& topology,
                       const AllowedSlots& slots, const Context& ctx, Mapping& mapping) {
  if (topology.depth() == 0 || !ctx.refinement.applies(input.entries())) return;
  std::vector<Index> slot_of_rank = slots.slots_of(mapping);
  const RefinementStats stats =
      refine_mapping(input.whole(), slots.tree(), slot_of_rank, ctx.refinement, slots.open());
  if (stats.swaps + stats.subtree_swaps > 0) mapping = slots.mapping_of(slot_of_rank);
}

/// On a machine of allowed leaves (ctx.placement): constrained_treematch_map's mapping and, where
/// the driver holds the whole matrix for its strategies, the multilevel strategy's seeds on those
/// leaves (ctx's, or the default preset's where ctx runs them beside its own), which split the
/// full subtrees above their walk levels too where the former walks them; each refined there
/// (onto allowed leaves only), the cheapest kept, the former on ties. Adds a trace per strategy.
TreeMatchResult constrained_candidates(const MappingInput& input, const Topology& topology,
                                       const Context& ctx) {
  std::vector<TreeMatchResult> found;
  std::vector<std::string> names;
  const auto start = std::chrono::steady_clock::now();
  found.push_back(constrained_treematch_map(input.whole(), topology, ctx));
  names.emplace_back("constrained top-down");
  const bool whole = ctx.driver.holds_whole_matrix(input.entries());
  std::optional<Context> floor;
  const Context* seeded = &ctx;
  if (!ctx.driver.lists(Strategy::kMultilevelTopDown) && ctx.driver.include_default) {
    floor = default_preset_beside(ctx);
    seeded = &*floor;
  }
  if (whole && seeded->driver.lists(Strategy::kMultilevelTopDown)) {
    if (ctx.progress != nullptr) ctx.progress->step("multilevel seeds on the allowed cores", -1.0);
    std::vector<TreeMatchResult> seeds = multilevel_top_down_mappings(
        input.whole(), topology, ctx.placement.allowed_leaves, ctx.placement.oversubscribe,
        subtree_walk(seeded->grouping), seeded->partition, seeded->multilevel);
    for (TreeMatchResult& seed : seeds) {
      found.push_back(std::move(seed));
      names.push_back(to_string(Strategy::kMultilevelTopDown) + " (allowed cores)");
    }
  }
  if (whole) {
    if (ctx.progress != nullptr) ctx.progress->step("refining on the allowed cores", -1.0);
    const AllowedSlots slots(topology, ctx.placement.allowed_leaves, ctx.placement.oversubscribe);
    kernels::parallel_for_all(found.size(), [&](std::size_t c) {
      refine_on_allowed(input, topology, slots, ctx, found[c].mapping);
    });
  }
  TreeMatchResult best;
  bool have = false;
  StrategyTrace trace{"", 0, 0.0, 0.0};
  std::vector<StrategyTrace> traces;
  for (std::size_t c = 0; c < found.size(); ++c) {
    if (trace.strategy != names[c]) {
      if (!trace.strategy.empty()) traces.push_back(trace);
      trace = StrategyTrace{names[c], 0, 0.0, 0.0};
    }
    const MappingCost cost = input.cost(topology, found[c].mapping);
    ++trace.candidates;
    if (trace.best_weighted == 0.0 || cost.weighted < trace.best_weighted)
      trace.best_weighted = cost.weighted;
    if (have && !(cost.weighted < best.cost.weighted)) continue;
    best = std::move(found[c]);
    best.cost = cost;
    best.strategy = names[c];
    have = true;
  }
  traces.push_back(trace);
  // The times are the whole step's (the strategies share it), not each strategy's.
  for (StrategyTrace& t : traces) {
    t.seconds = kernels::seconds_since(start);
    if (ctx.progress != nullptr) ctx.progress->strategy_ended(t);
  }
  best.strategies = std::move(traces);
  return best;
}

/// --objective congestion on a machine of allowed leaves (ctx.placement): the same step on their
/// slots, processes moving only to allowed cores'. Adds a trace named "congestion".
void lower_congestion_constrained(const MappingInput& input, const Topology& topology,
                                  const Context& ctx, TreeMatchResult& result) {
  const auto start = std::chrono::steady_clock::now();
  const AllowedSlots slots(topology, ctx.placement.allowed_leaves, ctx.placement.oversubscribe);
  std::vector<Index> slot_of_rank = slots.slots_of(result.mapping);
  if (ctx.progress != nullptr) ctx.progress->step("lowering the congestion", -1.0);
  const CongestionStats stats =
      lower_congestion(input.whole(), slots.tree(), links_of(topology, slots.tree(), ctx),
                       slot_of_rank, ctx.objective, slots.open());
  if (stats.moves > 0) {
    result.mapping = slots.mapping_of(slot_of_rank);
    result.cost = input.cost(topology, result.mapping);
    result.strategy += " + congestion";
    result.identity_kept = false;
  }
  StrategyTrace trace{"congestion", static_cast<std::size_t>(stats.moves), result.cost.weighted,
                      kernels::seconds_since(start)};
  if (ctx.progress != nullptr) ctx.progress->strategy_ended(trace);
  result.strategies.push_back(std::move(trace));
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
    TreeMatchResult constrained = constrained_candidates(input, topology, ctx);
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
    if (ctx.objective.kind == Objective::kCongestion &&
        ctx.driver.holds_whole_matrix(input.entries())) {
      lower_congestion_constrained(input, topology, ctx, constrained);
    }
    return constrained;
  }
  check_fits(input.size(), topology.leaf_count() * per_leaf, ctx);
  if (input.size() == 0) return {};
  // One process per leaf maps onto the tree as it is (a copy holds 8 MB at a million leaves).
  std::optional<Topology> oversubscribed;
  if (per_leaf > 1) oversubscribed = topology.with_oversubscription(per_leaf);
  const Topology& tree = oversubscribed ? *oversubscribed : topology;
  const LinkModel links = links_of(topology, tree, ctx);

  // The refinement and the top-down strategies need every row here.
  const bool whole = ctx.driver.holds_whole_matrix(input.entries());
  Kept kept;
  // The pair remapping, when it runs, fills the last fifth of the progress line.
  const bool remapping = whole && pair_remap_applies(input.size(), tree, ctx.pair_remap);
  const double strategies_end = remapping ? 0.8 : 1.0;
  // Ties go to the less congested candidate, but where the pair remapping goes on from the kept
  // one (strong): its restarts move with the start, and the corpus guard holds strong's costs from
  // the earlier candidate (from the less congested one, strong's geo2d-256-hops was 0.046%
  // costlier).
  const LinkModel* ties = remapping ? nullptr : &links;
  double own_begin = 0.0;  // where ctx's strategies start on the progress line
  if (ctx.driver.include_default) {
    const Context floor = default_preset_beside(ctx);
    if (adds_candidates(ctx, floor, whole)) {
      // The default preset's candidates first, so that ties keep its mapping.
      own_begin =
          strategies_end * static_cast<double>(floor.driver.strategies.size()) /
          static_cast<double>(floor.driver.strategies.size() + ctx.driver.strategies.size());
      run_strategies(input, tree, ties, floor, whole, {ctx.progress, "", 0.0, own_begin},
                     " (default preset)", kept);
    }
  }
  run_strategies(input, tree, ties, ctx, whole, {ctx.progress, "", own_begin, strategies_end}, "",
                 kept);
  if (remapping && kept.have && !kept.best.identity_kept) {
    remap_pairs_of_kept(input, tree, ctx, {ctx.progress, "pair remapping", strategies_end, 1.0},
                        kept);
  }
  if (ctx.objective.kind == Objective::kCongestion && whole && kept.have) {
    lower_congestion_of_kept(input, tree, links, ctx, kept);
  }
  TreeMatchResult& best = kept.best;
  if (!kept.have) best.mapping = identity_mapping(input.size());  // no strategy applied
  // Virtual leaves (oversubscription) back to cores.
  for (Index& leaf : best.mapping.leaf_of_rank) leaf /= per_leaf;
  // Without oversubscription the tree is the topology: the kept candidate's cost stands.
  best.cost = per_leaf == 1 && kept.have ? kept.cost : input.cost(topology, best.mapping);
  best.strategies = std::move(kept.traces);
  return best;
}

}  // namespace treematch
