// The walks that put the links above each depth first.
#include "src/strategies/prioritised_links.h"

#include "src/walk/bottom_up.h"

namespace treematch {

bool prioritises_links(const Topology& tree, Index processes, const PrioritisedLinksContext& ctx) {
  return !tree.uniform_link_costs() && tree.depth() > 2 && processes <= ctx.max_processes;
}

std::vector<Index> prioritised_arities(const Topology& tree, int depth) {
  std::vector<Index> arities{tree.leaves_below(depth)};
  for (int level = depth - 1; level >= 0; --level)
    arities.push_back(tree.levels()[static_cast<std::size_t>(level)].arity);
  return arities;
}

std::vector<TreeMatchResult> prioritised_links_mappings(const MappingInput& input,
                                                        const Topology& tree,
                                                        const GroupingContext& grouping,
                                                        const PrioritisedLinksContext& ctx) {
  std::vector<TreeMatchResult> mappings;
  if (!prioritises_links(tree, input.size(), ctx)) return mappings;
  for (int depth = 1; depth + 1 < tree.depth(); ++depth) {
    if (tree.leaves_below(depth) > ctx.max_arity) continue;
    mappings.push_back(walk_arities(input, prioritised_arities(tree, depth), grouping));
  }
  return mappings;
}

}  // namespace treematch
