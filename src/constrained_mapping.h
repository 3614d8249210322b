// TreeMatch under --cores constraints: the usable leaves make the tree unbalanced, so it maps
// top-down.
#pragma once

#include "src/comm_graph.h"
#include "src/context.h"
#include "src/mapping.h"
#include "src/topology.h"
#include "src/treematch.h"

namespace treematch {

/// Maps onto ctx.placement.allowed_leaves only (logical leaves, sorted, distinct), each taking up
/// to ctx.placement.oversubscribe processes. The caller checked that the processes fit.
TreeMatchResult constrained_treematch_map(const CommGraph& graph, const Topology& topology,
                                          const Context& ctx);

}  // namespace treematch
