// k-way refinement of a tree node's split: each two parts refined as a bisection of their own.
#pragma once

#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"

namespace treematch {

/// For each two of the `parts` parts of `part` joined by edges (with ctx.pair_neighbours t > 0,
/// only those among the t heaviest pairs of one of their two parts), refine_bisection on the
/// subgraph of the two parts (coarsened down to ctx.pair_coarsest vertices, so that two parts
/// smaller than a bisection's coarsest graph still get moves of whole clusters), the change kept
/// where it lowers the cut between them. The parts keep their sizes and the cut of the whole never
/// rises. Recursive bisection fixed each cut for good and minimised cuts between halves that may
/// cost nothing on the machine (on a tree with hop distances, the cuts at 128 and 64 processes
/// inside a 256-process split into 8 nodes); this lowers the cuts between the parts themselves. The
/// pairs go in rounds of pairs sharing no part, each round the heaviest pairs left that fit (the
/// weights between parts counted once, before any change; ties by part numbers); a round's pairs
/// run as parallel tasks, each seeded from ctx.seed and its pair, so the result does not depend
/// on the thread count. Each pair costs its two parts' entries times the V-cycles' work. Returns
/// whether a part changed.
bool refine_part_pairs(kernels::CsrView graph, kernels::Index parts,
                       std::vector<kernels::Index>& part, const PartitionContext& ctx);

}  // namespace treematch
