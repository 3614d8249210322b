// k-way refinement of a tree node's split at its finest level: FM passes, then an iterated local
// search, sizes exact.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"

namespace treematch {

struct KwayOptions {
  int passes = 0;          ///< FM passes over the whole split, and after each kick
  double kick_work = 0.0;  ///< kicks until the search visited this many times the edges
};

/// Lowers the cut of the split `part` of `graph` into `parts` parts, each keeping its size.
/// `passes` passes of k-way FM at unit weights and exact sizes (src/partition/kway_fm.h: the best
/// move, then, while one part holds a vertex too many, the best move out of that part, and the best
/// prefix that leaves every part at its size: a chain a -> b -> c -> a is an exchange among three
/// parts that no refinement of two parts at a time makes). Then kicks while the work allows:
/// 3 exchanges of a random vertex with a random neighbour in another part, FM passes from the
/// vertices around them, and the result undone if the cut rose (iterated local search: single
/// moves end in local minima that a few forced exchanges leave). Graphs of average degree above
/// 64 are left as they are. Sequential and deterministic for a given `seed`. Returns whether a
/// part changed.
bool refine_kway(kernels::CsrView graph, kernels::Index parts, std::vector<kernels::Index>& part,
                 const KwayOptions& options, std::uint64_t seed, const PartitionContext& ctx);

}  // namespace treematch
