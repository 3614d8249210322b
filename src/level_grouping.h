// GroupProcesses for one level: candidates, the three independent-set heuristics, the cheapest
// kept.
#pragma once

#include <string>

#include "kernels/types.h"
#include "src/context.h"

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
LevelGrouping group_level(kernels::CsrView graph, Index k, const GroupingContext& ctx);

}  // namespace treematch
