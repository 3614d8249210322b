// TreeMatch's walk (Algorithm 1 of the seed paper): extend -> group -> aggregate per level, then
// map the group hierarchy top-down.
#pragma once

#include <vector>

#include "src/model/context.h"
#include "src/model/mapping_result.h"
#include "src/model/progress.h"
#include "src/tree/topology.h"
#include "src/walk/mapping_input.h"

namespace treematch {

/// The arities TreeMatch walks, bottom-up, for p processes on `tree`, with Table 2 splitting when
/// `split`.
std::vector<Index> walked_arities(const Topology& tree, Index processes, bool split);

/// Algorithm 1 over `arities` (bottom-up): returns leaf positions of the tree they describe.
/// `progress` hears of each level as it starts.
TreeMatchResult walk_arities(const MappingInput& input, const std::vector<Index>& arities,
                             const GroupingContext& ctx, const ProgressSpan& progress = {});

/// The walk over the tree's levels, split by Table 2 (walk.split kTable2 or kBest) or not
/// (kNever); with kBest, also the unsplit walk when it differs, the cheaper (weighted cost on
/// `tree`) kept, the split one on ties.
TreeMatchResult bottom_up_mapping(const MappingInput& input, const Topology& tree,
                                  const GroupingContext& grouping, const WalkContext& walk,
                                  const ProgressSpan& progress = {});

}  // namespace treematch
