// Multilevel k-way refinement of a tree node's split: V-cycles that coarsen inside the parts and
// move whole clusters between any parts with k-way FM, from the coarsest level down.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"

namespace treematch {

/// Lowers the cut of the split `part` of `graph` into `parts` parts (3 or more), each keeping its
/// size, by `cycles` V-cycles: coarsen without merging across parts (src/partition/coarsening.h,
/// down to kCoarsestPerPart vertices a part, seeded from `seed` and the cycle), then k-way FM
/// (src/partition/kway_fm.h) at every level from the coarsest down, each move keeping the parts
/// within a coarse vertex of their sizes and the best state by (excess over the next finer level's
/// heaviest vertex, cut), sizes exact at the finest (the cheapest moves out of a part too large if
/// FM leaves one); a cycle is kept only when the cut drops. Single moves at the finest level
/// (src/partition/kway_refinement.h) cannot move a cluster whose first vertex alone raises the
/// cut; here it moves as one coarse vertex. Graphs of average degree above 64 are left as they
/// are. Where one of the cycles lowered the cut, ctx.kway_more_vcycles more follow. Sequential and
/// deterministic for a given `seed`. Returns whether a part changed.
bool refine_kway_vcycles(kernels::CsrView graph, kernels::Index parts,
                         std::vector<kernels::Index>& part, int cycles, std::uint64_t seed,
                         const PartitionContext& ctx);

}  // namespace treematch
