// GroupProcesses for one level: candidates, the three independent-set heuristics, the cheapest
// kept.
#pragma once

#include <string>

#include "kernels/types.h"
#include "src/model/context.h"
#include "src/walk/level_matrix.h"

namespace treematch {

using kernels::Index;

/// The partition of one level's (virtual) processes into groups of k, and how it was found.
struct LevelGrouping {
  kernels::Groups groups;      ///< partition, groups sorted by their smallest member
  double total_value = 0.0;    ///< sum of group values (= twice the volume left to upper levels)
  std::string heuristic;       ///< which heuristic won
  bool exhaustive = false;     ///< every k-subset was a candidate
  std::size_t candidates = 0;  ///< candidates of the first round
  int rounds = 0;              ///< candidate rounds before the final packing
};

/// Groups the graph.n processes (graph.n a multiple of k; processes past the stored rows are
/// artificial) into graph.n / k groups of k, minimising the total value.
///
/// Strategy and cost (p processes, nnz stored entries, k the arity, s seeds per process):
///  - Candidates. While C(p, k) <= ctx.exhaustive_limit every k-subset is a candidate, as in the
///    paper (then one greedy pass covers everything: the complement of a Kneser graph). Above it,
///    candidates come from communication neighbourhoods: every process seeds s groups with its
///    heaviest partners, each grown greedily along the strongest links to k members
///    (O(p s k (k + deg)) work, deg capped at ctx.strongest_links for dense rows), so the O(p^k)
///    enumeration never happens. Together with Table 2 splitting (walked_arities) k stays small
///    where p is large.
///  - Selection. The three heuristics of the paper run on the same candidates (greedy by value;
///    branch and bound on the worst rank, with a step budget; greedy by weighted degree, skipped
///    above a work budget); each is a parallel kernel with a sequential twin.
///  - Rounds. Processes left uncovered get fresh candidates among themselves (at most
///    ctx.max_rounds rounds), then a deterministic packing (heaviest first, lightest fillers)
///    groups the rest; processes without any partner are filled in that way.
///  - Memory: O(nnz + p + candidates x k) per level, never a dense p x p array.
/// The level keeps the heuristic whose partition has the smallest total value (ties: the order
/// above). Same result for any thread count, and wherever the matrix rows live (LevelMatrix).
LevelGrouping group_level(LevelMatrix& matrix, Index k, const GroupingContext& ctx);

/// The row cap group_level uses for candidate growth at arity k.
Index strong_link_limit(Index k, const GroupingContext& ctx);

}  // namespace treematch
