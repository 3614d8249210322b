// The presets and the verbose print-out of a Context.
#include "src/context.h"

#include <sstream>

namespace treematch {

Context preset_context(Preset preset) {
  Context ctx;
  ctx.preset = preset;
  switch (preset) {
    case Preset::kFast:
      // TreeMatch's walk, one heuristic, one walk, and a cheap repair; the identity as a floor.
      ctx.driver.strategies = {Strategy::kBottomUp, Strategy::kIdentity};
      ctx.walk.split = AritySplit::kTable2;
      ctx.grouping.largest_index_last = false;
      ctx.grouping.weighted_degree_first = false;
      ctx.refinement.subtrees = false;
      ctx.refinement.cycles = 1;
      ctx.refinement.rounds = 2;
      break;
    case Preset::kDefault:
      break;
    case Preset::kStrong:
      // More seeds and attempts for the top-down candidates, a longer refinement.
      ctx.greedy_top_down.max_processes = 65536;
      ctx.greedy_top_down.max_entries = std::int64_t{1} << 20;
      ctx.multilevel.budget = 400000;
      ctx.multilevel.max_runs = 16;
      ctx.partition.attempts = 8;
      ctx.refinement.cycles = 4;
      ctx.refinement.rounds = 8;
      break;
  }
  return ctx;
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

std::string describe(const Context& ctx) {
  std::ostringstream out;
  out << "preset = " << to_string(ctx.preset) << '\n' << "driver.strategies =";
  for (const Strategy strategy : ctx.driver.strategies) out << ' ' << to_string(strategy);
  out << '\n'
      << "driver.whole_matrix_max_entries = " << ctx.driver.whole_matrix_max_entries << '\n'
      << "driver.whole_matrix_forced = " << ctx.driver.whole_matrix_forced << '\n'
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
      << "multilevel.max_entries = " << ctx.multilevel.max_entries << '\n'
      << "placement.oversubscribe = " << ctx.placement.oversubscribe << '\n'
      << "placement.allowed_leaves = " << ctx.placement.allowed_leaves.size() << " leaves"
      << (ctx.placement.allowed_leaves.empty() ? " (all)" : "") << '\n'
      << "partition.coarsest = " << ctx.partition.coarsest << '\n'
      << "partition.initial_tries = " << ctx.partition.initial_tries << '\n'
      << "partition.fm_passes = " << ctx.partition.fm_passes << '\n'
      << "partition.vcycles = " << ctx.partition.vcycles << '\n'
      << "partition.attempts = " << ctx.partition.attempts << '\n'
      << "partition.seed = " << ctx.partition.seed << '\n'
      << "refinement.swaps = " << ctx.refinement.swaps << '\n'
      << "refinement.subtrees = " << ctx.refinement.subtrees << '\n'
      << "refinement.cycles = " << ctx.refinement.cycles << '\n'
      << "refinement.rounds = " << ctx.refinement.rounds << '\n'
      << "refinement.partners = " << ctx.refinement.partners << '\n'
      << "refinement.blocks_tried = " << ctx.refinement.blocks_tried << '\n'
      << "baselines.seed = " << ctx.baselines.seed << '\n'
      << "threads = " << ctx.threads << (ctx.threads == 0 ? " (all)" : "") << '\n';
  return out.str();
}

}  // namespace treematch
