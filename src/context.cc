// The default preset and the verbose print-out of a Context.
#include "src/context.h"

#include <sstream>

namespace treematch {

Context default_context() {
  return Context{};
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

std::string describe(const Context& ctx) {
  std::ostringstream out;
  out << "grouping.exhaustive_limit = " << ctx.grouping.exhaustive_limit << '\n'
      << "grouping.seeds_per_process = " << ctx.grouping.seeds_per_process << '\n'
      << "grouping.strongest_links = " << ctx.grouping.strongest_links << '\n'
      << "grouping.partition_passes = " << ctx.grouping.partition_passes << '\n'
      << "grouping.max_rounds = " << ctx.grouping.max_rounds << '\n'
      << "grouping.smallest_value_first = " << ctx.grouping.smallest_value_first << '\n'
      << "grouping.largest_index_last = " << ctx.grouping.largest_index_last << '\n'
      << "grouping.weighted_degree_first = " << ctx.grouping.weighted_degree_first << '\n'
      << "grouping.weighted_degree_budget = " << ctx.grouping.weighted_degree_budget << '\n'
      << "grouping.largest_index_budget = " << ctx.grouping.largest_index_budget << '\n'
      << "tree.split = " << to_string(ctx.tree.split) << '\n'
      << "tree.prioritise_costly_links = " << ctx.tree.prioritise_costly_links << '\n'
      << "tree.prioritise_max_processes = " << ctx.tree.prioritise_max_processes << '\n'
      << "tree.prioritise_max_arity = " << ctx.tree.prioritise_max_arity << '\n'
      << "tree.top_down = " << ctx.tree.top_down << '\n'
      << "tree.top_down_max_processes = " << ctx.tree.top_down_max_processes << '\n'
      << "tree.top_down_max_entries = " << ctx.tree.top_down_max_entries << '\n'
      << "tree.multilevel = " << ctx.tree.multilevel << '\n'
      << "tree.multilevel_budget = " << ctx.tree.multilevel_budget << '\n'
      << "tree.multilevel_max_runs = " << ctx.tree.multilevel_max_runs << '\n'
      << "tree.multilevel_max_entries = " << ctx.tree.multilevel_max_entries << '\n'
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
      << "refinement.keep_identity = " << ctx.refinement.keep_identity << '\n'
      << "baselines.seed = " << ctx.baselines.seed << '\n'
      << "threads = " << ctx.threads << (ctx.threads == 0 ? " (all)" : "") << '\n';
  return out.str();
}

}  // namespace treematch
