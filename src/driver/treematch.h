// The TreeMatch driver: the preset's strategies in order, each candidate refined, the cheapest
// kept.
#pragma once

#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/mapping_result.h"
#include "src/tree/topology.h"
#include "src/walk/mapping_input.h"

namespace treematch {

/// Maps the graph's processes onto the topology's leaves. Runs ctx.driver.strategies in order
/// (src/strategies/: the bottom-up walk, the prioritised walks, the greedy and multilevel
/// top-down mappings, the identity), refines each candidate but the identity
/// (ctx.refinement) and keeps the cheapest by weighted cost; of equally cheap ones, with the
/// whole matrix and no pair remapping after, the less congested on ctx.objective.links
/// (src/model/link_load.h), else the earlier; with ctx.driver.include_default the default preset's
/// strategies run first. With ctx.objective.kind kCongestion the kept mapping's congestion is then
/// lowered (src/refine/congestion_refinement.h; with the whole matrix, and with allowed leaves onto
/// those only).
/// The refinement and every strategy but the walks need the whole matrix: they run on inputs of at
/// most ctx.driver.whole_matrix_max_entries entries, or when ctx.driver.whole_matrix_forced. With
/// allowed leaves (--cores, a machine with holes) the candidates are constrained_treematch_map's
/// and, with the whole matrix, the multilevel strategy's seeds on those leaves, each refined there
/// (processes moving onto allowed leaves only); the cheapest is kept (the identity where cheaper
/// still), its congestion lowered likewise with kCongestion.
/// The same mapping for any thread count. Throws std::invalid_argument when the processes do not
/// fit (more than leaves x oversubscribe, or than the allowed leaves).
TreeMatchResult treematch_map(const CommGraph& graph, const Topology& topology, const Context& ctx);

/// The same for an input whose rows may live on several MPI ranks (src/distributed): every rank
/// calls it and gets the mapping treematch_map(graph, ...) gives for the gathered graph.
TreeMatchResult treematch_map(const MappingInput& input, const Topology& topology,
                              const Context& ctx);

}  // namespace treematch
