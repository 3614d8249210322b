// The "largest value last" heuristic: a set of disjoint groups whose worst rank is as small as
// possible.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// Candidates are taken in rank order (order[r] = candidate of rank r, best first). Finds `target`
/// pairwise disjoint candidates minimising the largest rank used, by branch and bound started from
/// the greedy solution, within `budget` search steps (counted, so the result is deterministic).
/// Returns the chosen candidates in rank order; empty if fewer than `target` disjoint ones exist.
std::vector<Index> min_largest_rank_set(const Groups& candidates, std::span<const Index> order,
                                        Index vertex_count, Index target, std::int64_t budget);

}  // namespace treematch::kernels
