// Moves that lower the congestion norm of a mapping's link loads, the weighted cost held to a
// tolerance (--objective congestion).
#pragma once

#include <span>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch {

struct CongestionStats {
  int passes = 0;
  kernels::Index moves = 0;  ///< exchanges and moves applied
  double norm_before = 0.0;  ///< congestion norm (seconds)
  double norm_after = 0.0;
  double weighted_before = 0.0;  ///< weighted cost, as evaluate_cost gives it
  double weighted_after = 0.0;
};

/// Lowers the congestion norm (src/model/link_load.h) of `leaf_of_rank` (at most one rank per
/// leaf of `tree`, as the driver maps) under `links`, while the weighted cost stays at most
/// (1 + ctx.sum_tolerance) x its value on entry. Ranks move only to leaves of `allowed_leaves`
/// (empty: any leaf), or to the leaf of the rank they exchange with.
///
/// A pass takes the links within kCongestionHotShare of the busiest one, busiest first (the
/// leaves' own links carry a rank's whole volume wherever it is, and are skipped). Below each,
/// the ranks sending the most across it each try to move next to their heaviest partners on the
/// other side: every leaf of the smallest subtree around such a partner holding at least
/// kCongestionTargetLeaves leaves (and outside the hot link's subtree) is priced as an exchange
/// with its rank, or a move when it is free, as are the leaves of the partner's
/// kCongestionTargetLeaves heaviest partners outside it, and the quietest leaves (free, or whose
/// ranks send the least out) under the kCongestionCoolLinks least loaded links of the hot link's
/// level. The change of the norm and of the weighted cost is computed exactly from the loads of the
/// links on the two paths; the best exchange that lowers the norm within the cost budget is applied
/// at once. Passes repeat while one applies a move, at most ctx.passes. Sequential: the result does
/// not depend on the number of threads. Throws std::invalid_argument for a model of another depth.
CongestionStats lower_congestion(const CommGraph& graph, const Topology& tree,
                                 const LinkModel& links, std::vector<kernels::Index>& leaf_of_rank,
                                 const ObjectiveContext& ctx,
                                 std::span<const kernels::Index> allowed_leaves = {});

/// A link is worked on when its time is at least this share of the busiest link's.
inline constexpr double kCongestionHotShare = 0.8;
/// Ranks tried below each hot link (those sending the most across it).
inline constexpr kernels::Index kCongestionRanksPerLink = 8;
/// Partners (heaviest first, across the hot link) whose neighbourhood each rank tries.
inline constexpr int kCongestionPartners = 4;
/// Leaves of the neighbourhood priced around each partner.
inline constexpr kernels::Index kCongestionTargetLeaves = 8;
/// Least loaded links of a hot link's level whose quiet leaves are priced too.
inline constexpr std::size_t kCongestionCoolLinks = 2;
/// Hot links worked on per pass, busiest first.
inline constexpr kernels::Index kCongestionLinksPerPass = 256;

}  // namespace treematch
