// What a mapping run returns: the mapping, how each level was walked, its cost.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/types.h"
#include "src/model/cost.h"
#include "src/model/mapping.h"

namespace treematch {

/// What happened at one level of the (possibly split) tree, bottom-up.
struct LevelTrace {
  kernels::Index arity = 0;
  kernels::Index order = 0;       ///< (virtual) processes before extension
  kernels::Index artificial = 0;  ///< empty processes added by ExtendComMatrix
  std::string heuristic;
  bool exhaustive = false;
  std::size_t candidates = 0;
  double seconds = 0.0;
};

/// What one strategy of the driver did.
struct StrategyTrace {
  std::string strategy;
  std::size_t candidates = 0;  ///< mappings it proposed
  double best_weighted = 0.0;  ///< the cheapest of them, refined (0 when it proposed none)
  double seconds = 0.0;        ///< wall time, refinement included (informative only)
};

struct TreeMatchResult {
  Mapping mapping;  ///< logical leaves of the (non-oversubscribed) topology
  std::vector<LevelTrace> levels;
  long long refinement_swaps = 0;  ///< swaps the refinement applied
  bool identity_kept = false;      ///< the identity was cheaper than anything TreeMatch found
  std::string strategy;            ///< the strategy whose candidate was kept
  std::vector<StrategyTrace> strategies;  ///< the driver's strategies, in the order they ran
  MappingCost cost;                       ///< of `mapping` on the topology it was asked for
};

}  // namespace treematch
