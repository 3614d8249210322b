// Swap refinement of a finished mapping: local moves along communication links that never raise the
// cost.
#pragma once

#include <vector>

#include "src/comm_graph.h"
#include "src/context.h"
#include "src/topology.h"

namespace treematch {

struct RefinementStats {
  int passes = 0;
  long long swaps = 0;
  double cost_before = 0.0;  ///< link-cost-weighted, over stored entries (both directions)
  double cost_after = 0.0;
};

/// Improves `leaf_of_rank` (one rank per leaf of `tree`, which may carry a zero-cost
/// oversubscription level) in place. Each pass visits the ranks in order; rank i may swap places
/// with the occupant of (or move to an empty) leaf next to one of its `partners` heaviest
/// neighbours — a sibling leaf under the same lowest-level node. A swap is applied only if it
/// lowers the weighted cost, so the cost never increases; passes stop when one applies no swap.
/// Cost per pass: O(sum over ranks of partners x sibling leaves x (deg_i + deg_j) x depth).
/// Sequential and deterministic.
RefinementStats refine_by_swaps(const CommGraph& graph, const Topology& tree,
                                std::vector<Index>& leaf_of_rank, const RefinementContext& ctx);

}  // namespace treematch
