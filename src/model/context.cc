// The presets and the verbose print-out of a Context.
#include "src/model/context.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace treematch {

Context preset_context(Preset preset) {
  Context ctx;
  ctx.preset = preset;
  switch (preset) {
    case Preset::kFast:
      // Above the nodes, each tree node's processes split once by the multilevel partitioner
      // (one attempt, no V-cycle, two FM passes: its repair); inside the nodes, TreeMatch's walk
      // with one heuristic and one walk. Where the multilevel candidate does not apply (matrices
      // above multilevel.max_entries or driver.whole_matrix_max_entries), the walk over the
      // whole tree instead. The identity as a floor. Refinement only up to 2^17 entries: on G1
      // (22810) it lowers the cost 1.0% for 10 ms, below Scotch's; on S2 it took as long as the
      // mapping for 0.3%, on S1 +19% of the time for 0.2%. The walk alone (--set
      // driver.strategies=bottom-up, identity) was 8-11% above the optimum on the stencils, and 33%
      // above the cheap multilevel mapping on G1; it is kept above 2^20 entries, where the
      // multilevel candidate cost 3.6x the walk's time on S2 (1.1 s against 0.3 s) for 9% less.
      // An FM pass gives up after 50 moves without a better cut (+ n / 100), not 200: on S1 15%
      // less time at the same cost, on G1 +0.7% cost, still below Scotch's.
      ctx.driver.strategies = {Strategy::kMultilevelTopDown, Strategy::kBottomUp,
                               Strategy::kIdentity};
      ctx.driver.first_that_applies = true;
      ctx.multilevel.max_runs = 1;
      ctx.multilevel.attempt_budget = 0;
      ctx.partition.attempts = 1;
      ctx.partition.grow_attempts = false;
      ctx.partition.vcycles = 0;
      ctx.partition.fm_passes = 2;
      ctx.partition.fm_stall = 50;
      // Starts that grow mirrors of earlier ones skipped: S1 -6% CPU, 0.1% cheaper; 22 bench
      // cases: 7 cheaper by up to 1.1%, 3 costlier by up to 0.7%, G1 the same mapping.
      ctx.partition.side_blind_ties = true;
      // Three starts, not four, on the graphs too small to coarsen (inside S1's nodes): S1 -3%
      // time for +0.02% cost; 22 bench cases: geometric mean unchanged (pacos-512 +0.8%,
      // clover-960 -0.6%), G1 +0.02%. On the coarsest graphs of larger ones G1 needs the four
      // (+0.8% with three).
      ctx.partition.uncoarsened_tries = 3;
      // One pass of swaps between the parts: on S1 -7% time for +0.04% cost, on G1 +0.1%. Inside
      // the nodes too: skipping them there took 3% off S1's time for +0.16%, but put the
      // 8192-process stencil of Presets.FastIsWithinThreePercent... at 1.030 of the optimum.
      ctx.partition.swap_passes = 1;
      // No pairs of parts and no k-way V-cycles: they refine by V-cycles, which this preset
      // does not make.
      ctx.partition.pair_passes = 0;
      ctx.partition.kway_vcycles = 0;
      ctx.multilevel.max_entries = std::int64_t{1} << 20;
      // Its one seed's walk maps the two lowest levels, as before the partitioner split the level
      // above the cores in the other presets: with one, 29 corpus instances cheaper and 11
      // costlier (geo2d-1024 +3.4%), geometric mean -0.2%, the same time.
      ctx.multilevel.walk_levels = 2;
      ctx.walk.split = AritySplit::kTable2;
      ctx.grouping.largest_index_last = false;
      ctx.grouping.weighted_degree_first = false;
      // The walk's groups: one neighbourhood candidate per process and one swap round. On S3
      // (the walk over 1M processes) -30% time for +0.1% cost, on S2 -30% for 0.03% less; on
      // the bench's default cases (inner walks of 8 processes) costs within 0.3% either way.
      ctx.grouping.seeds_per_process = 1;
      ctx.grouping.partition_passes = 1;
      ctx.refinement.max_entries = std::int64_t{1} << 17;
      break;
    case Preset::kDefault:
      break;
    case Preset::kStrong:
      // The default preset's candidates, then the walks with costly links first on more
      // processes, pairs of subtrees mapped again, a longer refinement.
      ctx.driver.include_default = true;
      // No multilevel top-down candidates of its own (8 attempts a split, 4 seeds, FM stall 200,
      // no k-way V-cycles): beside the default preset's with their V-cycles they were kept on 3
      // of the 43 corpus instances; without them 1 costlier (powerlaw-16384 +0.61%), 1 cheaper
      // (knn3d-4096 -0.01%), time summed 292 -> 265 s (apps/bench/README.md, "Own seeds of
      // `strong`").
      ctx.driver.strategies = {Strategy::kBottomUp, Strategy::kPrioritisedLinks,
                               Strategy::kGreedyTopDown, Strategy::kIdentity};
      // Its own whole-tree walk and greedy top-down mappings only where no multilevel top-down
      // mapping is made (the default preset's among them keep theirs up to 512 processes): on
      // the corpus the same 43 costs, time summed 446 -> 409 s.
      ctx.driver.multilevel_only_above = 0;
      // Walks with costly links first up to 8192 processes: they won cloverleaf-640-partial
      // (1.1%) but none of the 10 corpus instances above 8192, where they took 24 s of 409.
      ctx.prioritised.max_processes = 8192;
      // Where its own greedy top-down mappings are made (no multilevel candidate, or a raised
      // driver.multilevel_only_above), at any size up to these.
      ctx.greedy_top_down.max_processes = 65536;
      ctx.greedy_top_down.max_entries = std::int64_t{1} << 20;
      ctx.partition.fm_stall = 200;
      ctx.partition.agreeing_attempts = 0;  // every attempt, agreeing or not
      ctx.partition.uncoarsened_attempts = 0;
      ctx.refinement.cycles = 4;
      ctx.refinement.rounds = 8;
      ctx.pair_remap.rounds = 16;
      // A pair that found nothing cheaper is tried again only once one of its subtrees changed:
      // on the corpus' 33 instances of at most 8192 processes the time summed 649 -> 318 s, 10
      // costlier (geo2d-3000-partial +0.37%, towns3d-8192-hops +0.20%), 2 cheaper, geometric
      // mean +0.03%; G1 20.6 -> 8.3 s for +0.43% (1 retry: 9.0 s, +0.29%).
      ctx.pair_remap.retries = 0;
      // Two mappings of each pair, not 4: on the corpus 409 -> 277 s summed for +0.041% in
      // geometric mean (15 costlier, geo2d-3000-partial +0.56%; 1 cheaper), none above `default`.
      ctx.pair_remap.runs = 2;
      // Its pair mappings keep the walk on the two lowest levels in every seed (the default
      // preset's candidates split the sockets in the even seeds): on the corpus, with its own
      // multilevel candidates then, 482.8 -> 446.0 s summed for +0.047% in geometric mean (3
      // cheaper, 17 costlier, none above `default`).
      ctx.multilevel.walk_levels = 2;
      // No k-way V-cycles in its pair mappings (the default preset's candidates make them): with
      // its own multilevel candidates, 16 there took 7% more time per instance (knn3d-8192 x1.57)
      // for -0.23% on the corpus, and its time is near VieM strong's at 256 processes.
      ctx.partition.kway_vcycles = 0;
      break;
  }
  return ctx;
}

bool DriverContext::lists(Strategy strategy) const {
  return std::find(strategies.begin(), strategies.end(), strategy) != strategies.end();
}

Context default_context() {
  return preset_context(Preset::kDefault);
}

std::string to_string(AritySplit split) {
  switch (split) {
    case AritySplit::kTable2:
      return "table2";
    case AritySplit::kNever:
      return "never";
    case AritySplit::kBest:
      return "best";
  }
  return "?";
}

std::string to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::kBottomUp:
      return "bottom-up";
    case Strategy::kPrioritisedLinks:
      return "prioritised-links";
    case Strategy::kGreedyTopDown:
      return "greedy-top-down";
    case Strategy::kMultilevelTopDown:
      return "multilevel-top-down";
    case Strategy::kIdentity:
      return "identity";
  }
  return "?";
}

std::string to_string(Preset preset) {
  switch (preset) {
    case Preset::kFast:
      return "fast";
    case Preset::kDefault:
      return "default";
    case Preset::kStrong:
      return "strong";
  }
  return "?";
}

std::optional<Preset> parse_preset(std::string_view name) {
  for (const Preset preset : {Preset::kFast, Preset::kDefault, Preset::kStrong}) {
    if (name == to_string(preset)) return preset;
  }
  return std::nullopt;
}

std::string to_string(Objective objective) {
  switch (objective) {
    case Objective::kSum:
      return "sum";
    case Objective::kCongestion:
      return "congestion";
  }
  return "?";
}

std::optional<Objective> parse_objective(std::string_view name) {
  for (const Objective objective : {Objective::kSum, Objective::kCongestion}) {
    if (name == to_string(objective)) return objective;
  }
  return std::nullopt;
}

std::string describe(const Context& ctx) {
  std::ostringstream out;
  out << "preset = " << to_string(ctx.preset) << '\n' << "driver.strategies =";
  for (const Strategy strategy : ctx.driver.strategies) out << ' ' << to_string(strategy);
  out << '\n'
      << "driver.whole_matrix_max_entries = " << ctx.driver.whole_matrix_max_entries << '\n'
      << "driver.whole_matrix_forced = " << ctx.driver.whole_matrix_forced << '\n'
      << "driver.first_that_applies = " << ctx.driver.first_that_applies << '\n'
      << "driver.multilevel_only_above = " << ctx.driver.multilevel_only_above << '\n'
      << "driver.include_default = " << ctx.driver.include_default << '\n'
      << "grouping.exhaustive_limit = " << ctx.grouping.exhaustive_limit << '\n'
      << "grouping.seeds_per_process = " << ctx.grouping.seeds_per_process << '\n'
      << "grouping.strongest_links = " << ctx.grouping.strongest_links << '\n'
      << "grouping.partition_passes = " << ctx.grouping.partition_passes << '\n'
      << "grouping.max_rounds = " << ctx.grouping.max_rounds << '\n'
      << "grouping.smallest_value_first = " << ctx.grouping.smallest_value_first << '\n'
      << "grouping.largest_index_last = " << ctx.grouping.largest_index_last << '\n'
      << "grouping.weighted_degree_first = " << ctx.grouping.weighted_degree_first << '\n'
      << "grouping.weighted_degree_budget = " << ctx.grouping.weighted_degree_budget << '\n'
      << "grouping.largest_index_budget = " << ctx.grouping.largest_index_budget << '\n'
      << "walk.split = " << to_string(ctx.walk.split) << '\n'
      << "prioritised.max_processes = " << ctx.prioritised.max_processes << '\n'
      << "prioritised.max_arity = " << ctx.prioritised.max_arity << '\n'
      << "greedy_top_down.max_processes = " << ctx.greedy_top_down.max_processes << '\n'
      << "greedy_top_down.max_entries = " << ctx.greedy_top_down.max_entries << '\n'
      << "multilevel.budget = " << ctx.multilevel.budget << '\n'
      << "multilevel.max_runs = " << ctx.multilevel.max_runs << '\n'
      << "multilevel.attempt_budget = " << ctx.multilevel.attempt_budget << '\n'
      << "multilevel.max_entries = " << ctx.multilevel.max_entries << '\n'
      << "multilevel.walk_levels = " << ctx.multilevel.walk_levels << '\n'
      << "multilevel.odd_seed_walk_levels = " << ctx.multilevel.odd_seed_walk_levels << '\n'
      << "multilevel.vcycle_budget = " << ctx.multilevel.vcycle_budget << '\n'
      << "multilevel.max_vcycles = " << ctx.multilevel.max_vcycles << '\n'
      << "multilevel.seed_step = " << ctx.multilevel.seed_step << '\n'
      << "multilevel.agreeing_seeds = " << ctx.multilevel.agreeing_seeds << '\n'
      << "placement.oversubscribe = " << ctx.placement.oversubscribe << '\n'
      << "placement.allowed_leaves = " << ctx.placement.allowed_leaves.size() << " leaves"
      << (ctx.placement.allowed_leaves.empty() ? " (all)" : "") << '\n'
      << "partition.coarsest = " << ctx.partition.coarsest << '\n'
      << "partition.initial_tries = " << ctx.partition.initial_tries << '\n'
      << "partition.side_blind_ties = " << ctx.partition.side_blind_ties << '\n'
      << "partition.uncoarsened_tries = " << ctx.partition.uncoarsened_tries << '\n'
      << "partition.fm_passes = " << ctx.partition.fm_passes << '\n'
      << "partition.fm_stall = " << ctx.partition.fm_stall << '\n'
      << "partition.vcycles = " << ctx.partition.vcycles << '\n'
      << "partition.flow_rounds = " << ctx.partition.flow_rounds << '\n'
      << "partition.flow_reach = " << ctx.partition.flow_reach << '\n'
      << "partition.attempts = " << ctx.partition.attempts << '\n'
      << "partition.grow_attempts = " << ctx.partition.grow_attempts << '\n'
      << "partition.uncoarsened_attempts = " << ctx.partition.uncoarsened_attempts << '\n'
      << "partition.agreeing_attempts = " << ctx.partition.agreeing_attempts << '\n'
      << "partition.agreement_vertices = " << ctx.partition.agreement_vertices << '\n'
      << "partition.pair_passes = " << ctx.partition.pair_passes << '\n'
      << "partition.kway_passes = " << ctx.partition.kway_passes << '\n'
      << "partition.kway_kick_work = " << ctx.partition.kway_kick_work << '\n'
      << "partition.kway_vcycles = " << ctx.partition.kway_vcycles << '\n'
      << "partition.pair_coarsest = " << ctx.partition.pair_coarsest << '\n'
      << "partition.pair_neighbours = " << ctx.partition.pair_neighbours << '\n'
      << "partition.swap_passes = " << ctx.partition.swap_passes << '\n'
      << "partition.seed = " << ctx.partition.seed << '\n'
      << "refinement.swaps = " << ctx.refinement.swaps << '\n'
      << "refinement.max_entries = " << ctx.refinement.max_entries << '\n'
      << "refinement.subtrees = " << ctx.refinement.subtrees << '\n'
      << "refinement.cycles = " << ctx.refinement.cycles << '\n'
      << "refinement.rounds = " << ctx.refinement.rounds << '\n'
      << "refinement.partners = " << ctx.refinement.partners << '\n'
      << "refinement.blocks_tried = " << ctx.refinement.blocks_tried << '\n'
      << "pair_remap.rounds = " << ctx.pair_remap.rounds << '\n'
      << "pair_remap.runs = " << ctx.pair_remap.runs << '\n'
      << "pair_remap.attempts = " << ctx.pair_remap.attempts << '\n'
      << "pair_remap.max_processes = " << ctx.pair_remap.max_processes << '\n'
      << "pair_remap.retries = " << ctx.pair_remap.retries << '\n'
      << "objective.kind = " << to_string(ctx.objective.kind) << '\n'
      << "objective.sum_tolerance = " << ctx.objective.sum_tolerance << '\n'
      << "objective.passes = " << ctx.objective.passes << '\n'
      << "baselines.seed = " << ctx.baselines.seed << '\n'
      << "threads = " << ctx.threads << (ctx.threads == 0 ? " (all)" : "") << '\n';
  return out.str();
}

namespace {

std::invalid_argument bad_value(std::string_view name, std::string_view value,
                                const std::string& expected) {
  return std::invalid_argument(std::string(name) + "=" + std::string(value.substr(0, 40)) +
                               ": expected " + expected);
}

template <class Number>
Number number(std::string_view name, std::string_view value, Number least) {
  Number parsed{};
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() ||
      parsed < least) {
    throw bad_value(name, value, "a number >= " + std::to_string(least));
  }
  return parsed;
}

/// A finite number >= 0 (a share, such as 0.01 for 1%).
double fraction(std::string_view name, std::string_view value) {
  double parsed = 0.0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() ||
      !std::isfinite(parsed) || parsed < 0.0) {
    throw bad_value(name, value, "a finite number >= 0 (0.01 = 1%)");
  }
  return parsed;
}

bool flag(std::string_view name, std::string_view value) {
  if (value == "1" || value == "true") return true;
  if (value == "0" || value == "false") return false;
  throw bad_value(name, value, "0, 1, true or false");
}

std::vector<Strategy> strategy_list(std::string_view name, std::string_view value) {
  std::vector<Strategy> list;
  std::size_t begin = 0;
  while (begin <= value.size()) {
    const std::size_t end = std::min(value.find(',', begin), value.size());
    const std::string_view item = value.substr(begin, end - begin);
    bool found = false;
    for (const Strategy strategy :
         {Strategy::kBottomUp, Strategy::kPrioritisedLinks, Strategy::kGreedyTopDown,
          Strategy::kMultilevelTopDown, Strategy::kIdentity}) {
      if (item == to_string(strategy)) {
        list.push_back(strategy);
        found = true;
      }
    }
    if (!found) {
      throw bad_value(name, value,
                      "a comma list of bottom-up, prioritised-links, greedy-top-down, "
                      "multilevel-top-down, identity");
    }
    begin = end + 1;
  }
  return list;
}

}  // namespace

void set_option(Context& ctx, std::string_view name, std::string_view value) {
  using kernels::Index;
  // Each option once: its name as describe() prints it, and how to read the value.
  const auto is = [&](std::string_view option) { return name == option; };
  if (is("driver.strategies")) {
    ctx.driver.strategies = strategy_list(name, value);
  } else if (is("driver.whole_matrix_max_entries")) {
    ctx.driver.whole_matrix_max_entries = number<std::int64_t>(name, value, 0);
  } else if (is("driver.whole_matrix_forced")) {
    ctx.driver.whole_matrix_forced = flag(name, value);
  } else if (is("driver.first_that_applies")) {
    ctx.driver.first_that_applies = flag(name, value);
  } else if (is("driver.multilevel_only_above")) {
    ctx.driver.multilevel_only_above = number<Index>(name, value, 0);
  } else if (is("driver.include_default")) {
    ctx.driver.include_default = flag(name, value);
  } else if (is("grouping.exhaustive_limit")) {
    ctx.grouping.exhaustive_limit = static_cast<double>(number<std::int64_t>(name, value, 0));
  } else if (is("grouping.seeds_per_process")) {
    ctx.grouping.seeds_per_process = number<int>(name, value, 1);
  } else if (is("grouping.strongest_links")) {
    ctx.grouping.strongest_links = number<Index>(name, value, 1);
  } else if (is("grouping.partition_passes")) {
    ctx.grouping.partition_passes = number<int>(name, value, 0);
  } else if (is("grouping.max_rounds")) {
    ctx.grouping.max_rounds = number<int>(name, value, 1);
  } else if (is("grouping.smallest_value_first")) {
    ctx.grouping.smallest_value_first = flag(name, value);
  } else if (is("grouping.largest_index_last")) {
    ctx.grouping.largest_index_last = flag(name, value);
  } else if (is("grouping.weighted_degree_first")) {
    ctx.grouping.weighted_degree_first = flag(name, value);
  } else if (is("grouping.weighted_degree_budget")) {
    ctx.grouping.weighted_degree_budget = static_cast<double>(number<std::int64_t>(name, value, 0));
  } else if (is("grouping.largest_index_budget")) {
    ctx.grouping.largest_index_budget = number<std::int64_t>(name, value, 0);
  } else if (is("walk.split")) {
    if (value == "table2") {
      ctx.walk.split = AritySplit::kTable2;
    } else if (value == "never") {
      ctx.walk.split = AritySplit::kNever;
    } else if (value == "best") {
      ctx.walk.split = AritySplit::kBest;
    } else {
      throw bad_value(name, value, "table2, never or best");
    }
  } else if (is("prioritised.max_processes")) {
    ctx.prioritised.max_processes = number<Index>(name, value, 0);
  } else if (is("prioritised.max_arity")) {
    ctx.prioritised.max_arity = number<Index>(name, value, 1);
  } else if (is("greedy_top_down.max_processes")) {
    ctx.greedy_top_down.max_processes = number<Index>(name, value, 0);
  } else if (is("greedy_top_down.max_entries")) {
    ctx.greedy_top_down.max_entries = number<std::int64_t>(name, value, 0);
  } else if (is("multilevel.budget")) {
    ctx.multilevel.budget = number<std::int64_t>(name, value, 0);
  } else if (is("multilevel.max_runs")) {
    ctx.multilevel.max_runs = number<int>(name, value, 1);
  } else if (is("multilevel.attempt_budget")) {
    ctx.multilevel.attempt_budget = number<int>(name, value, 0);
  } else if (is("multilevel.max_entries")) {
    ctx.multilevel.max_entries = number<std::int64_t>(name, value, 0);
  } else if (is("multilevel.walk_levels")) {
    ctx.multilevel.walk_levels = number<int>(name, value, 0);
  } else if (is("multilevel.odd_seed_walk_levels")) {
    ctx.multilevel.odd_seed_walk_levels = number<int>(name, value, 0);
  } else if (is("multilevel.vcycle_budget")) {
    ctx.multilevel.vcycle_budget = number<std::int64_t>(name, value, 0);
  } else if (is("multilevel.max_vcycles")) {
    ctx.multilevel.max_vcycles = number<int>(name, value, 0);
  } else if (is("multilevel.seed_step")) {
    ctx.multilevel.seed_step = number<int>(name, value, 1);
  } else if (is("multilevel.agreeing_seeds")) {
    ctx.multilevel.agreeing_seeds = number<int>(name, value, 0);
  } else if (is("partition.coarsest")) {
    ctx.partition.coarsest = number<Index>(name, value, 2);
  } else if (is("partition.initial_tries")) {
    ctx.partition.initial_tries = number<int>(name, value, 1);
  } else if (is("partition.side_blind_ties")) {
    ctx.partition.side_blind_ties = flag(name, value);
  } else if (is("partition.uncoarsened_tries")) {
    ctx.partition.uncoarsened_tries = number<int>(name, value, 0);
  } else if (is("partition.fm_passes")) {
    ctx.partition.fm_passes = number<int>(name, value, 0);
  } else if (is("partition.fm_stall")) {
    ctx.partition.fm_stall = number<int>(name, value, 0);
  } else if (is("partition.vcycles")) {
    ctx.partition.vcycles = number<int>(name, value, 0);
  } else if (is("partition.flow_rounds")) {
    ctx.partition.flow_rounds = number<int>(name, value, 0);
  } else if (is("partition.flow_reach")) {
    ctx.partition.flow_reach = fraction(name, value);
  } else if (is("partition.attempts")) {
    ctx.partition.attempts = number<int>(name, value, 1);
  } else if (is("partition.grow_attempts")) {
    ctx.partition.grow_attempts = flag(name, value);
  } else if (is("partition.uncoarsened_attempts")) {
    ctx.partition.uncoarsened_attempts = number<int>(name, value, 0);
  } else if (is("partition.agreeing_attempts")) {
    ctx.partition.agreeing_attempts = number<int>(name, value, 0);
  } else if (is("partition.agreement_vertices")) {
    ctx.partition.agreement_vertices = number<Index>(name, value, 1);
  } else if (is("partition.pair_passes")) {
    ctx.partition.pair_passes = number<int>(name, value, 0);
  } else if (is("partition.kway_passes")) {
    ctx.partition.kway_passes = number<int>(name, value, 0);
  } else if (is("partition.kway_kick_work")) {
    ctx.partition.kway_kick_work = number<double>(name, value, 0.0);
  } else if (is("partition.kway_vcycles")) {
    ctx.partition.kway_vcycles = number<int>(name, value, 0);
  } else if (is("partition.pair_coarsest")) {
    ctx.partition.pair_coarsest = number<Index>(name, value, 2);
  } else if (is("partition.pair_neighbours")) {
    ctx.partition.pair_neighbours = number<int>(name, value, 0);
  } else if (is("partition.swap_passes")) {
    ctx.partition.swap_passes = number<int>(name, value, 0);
  } else if (is("partition.seed")) {
    ctx.partition.seed = number<std::uint64_t>(name, value, 0);
  } else if (is("pair_remap.rounds")) {
    ctx.pair_remap.rounds = number<int>(name, value, 0);
  } else if (is("pair_remap.runs")) {
    ctx.pair_remap.runs = number<int>(name, value, 1);
  } else if (is("pair_remap.attempts")) {
    ctx.pair_remap.attempts = number<int>(name, value, 1);
  } else if (is("pair_remap.max_processes")) {
    ctx.pair_remap.max_processes = number<Index>(name, value, 0);
  } else if (is("pair_remap.retries")) {
    ctx.pair_remap.retries = number<int>(name, value, 0);
  } else if (is("objective.kind")) {
    const std::optional<Objective> objective = parse_objective(value);
    if (!objective) throw bad_value(name, value, "sum or congestion");
    ctx.objective.kind = *objective;
  } else if (is("objective.sum_tolerance")) {
    ctx.objective.sum_tolerance = fraction(name, value);
  } else if (is("objective.passes")) {
    ctx.objective.passes = number<int>(name, value, 1);
  } else if (is("refinement.swaps")) {
    ctx.refinement.swaps = flag(name, value);
  } else if (is("refinement.max_entries")) {
    ctx.refinement.max_entries = number<std::int64_t>(name, value, 0);
  } else if (is("refinement.subtrees")) {
    ctx.refinement.subtrees = flag(name, value);
  } else if (is("refinement.cycles")) {
    ctx.refinement.cycles = number<int>(name, value, 1);
  } else if (is("refinement.rounds")) {
    ctx.refinement.rounds = number<int>(name, value, 1);
  } else if (is("refinement.partners")) {
    ctx.refinement.partners = number<int>(name, value, 1);
  } else if (is("refinement.blocks_tried")) {
    ctx.refinement.blocks_tried = number<int>(name, value, 1);
  } else {
    // The names describe() prints, but for the ones set elsewhere (placement, seeds, threads).
    std::string names;
    std::istringstream lines(describe(Context{}));
    for (std::string line; std::getline(lines, line);) {
      const std::string option = line.substr(0, line.find(' '));
      if (option == "preset" || option.rfind("placement.", 0) == 0 ||
          option.rfind("baselines.", 0) == 0 || option == "threads") {
        continue;
      }
      names += (names.empty() ? "" : ", ") + option;
    }
    throw std::invalid_argument("unknown option '" + std::string(name.substr(0, 40)) +
                                "'; the options are " + names);
  }
}

}  // namespace treematch
