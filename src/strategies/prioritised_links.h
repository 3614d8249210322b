// Walks that cut the costly links first: the levels under each costly link merged into one arity.
#pragma once

#include <vector>

#include "src/model/context.h"
#include "src/model/mapping_result.h"
#include "src/tree/topology.h"
#include "src/walk/mapping_input.h"

namespace treematch {

/// Whether the strategy applies: link costs that differ by level, at least three levels, and at
/// most ctx.max_processes processes.
bool prioritises_links(const Topology& tree, Index processes, const PrioritisedLinksContext& ctx);

/// The walk that puts the links above depth `depth` first (1 <= depth < tree.depth() - 1): the
/// levels below it as one arity (tree.leaves_below(depth): processes are grouped straight into the
/// subtrees of that size, minimising the traffic that leaves them), then the levels above, bottom-
/// up. Inside a subtree the members are placed in order; the refinement arranges them.
std::vector<Index> prioritised_arities(const Topology& tree, int depth);

/// One walk per depth d = 1 .. tree.depth() - 2 whose merged arity is at most ctx.max_arity (the
/// bottom-up greedy otherwise fixes the cheap lowest groups first and leaves the expensive links
/// whatever remains); none unless prioritises_links.
std::vector<TreeMatchResult> prioritised_links_mappings(const MappingInput& input,
                                                        const Topology& tree,
                                                        const GroupingContext& grouping,
                                                        const PrioritisedLinksContext& ctx);

}  // namespace treematch
