// Max-flow refinement of a bisection: the lowest cut through a corridor around the current one.
#pragma once

#include <span>
#include <vector>

#include "kernels/types.h"
#include "src/partition/fm_refinement.h"

namespace treematch {

/// One side of the corridor around the cut of `side`: the vertices of side `s` nearest the cut
/// (breadth first from the vertices with an edge across it, in index order) while their weight
/// stays within `room`.
std::vector<kernels::Index> flow_corridor(kernels::CsrView g, std::span<const Load> weight,
                                          const std::vector<kernels::Index>& side, kernels::Index s,
                                          Load room);

/// Replaces the cut of `b` by a minimum cut of the corridor around it. The corridor holds, on
/// each side, its flow_corridor with the room that leaves the other side, were the whole
/// corridor side moved to it, at most `reach` above its target (side 0's target is `target0`). A
/// maximum flow between the two sides' remainders (Dinic's algorithm; each edge's weight its
/// capacity both ways) gives the cut; of the two extreme minimum cuts, the fewest vertices on side
/// 0's part or the most, the one nearer the target is taken, the fewest on ties. FM finds cuts
/// whose vertices must move together, which one vertex at a time it climbs to only through worse
/// states; a flow finds the lowest cut of the whole corridor at once. Balance is not kept: the
/// result may miss the target by up to `reach`, for FM to repair. `b.cut` is made exact. Returns
/// false, leaving `b` unchanged, when a corridor side is empty or the cut found is the one `b` had.
bool refine_by_flow(kernels::CsrView g, std::span<const Load> weight, Load target0, Load reach,
                    Bisection& b);

}  // namespace treematch
