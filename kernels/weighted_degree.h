// The "largest weighted degree first" ordering of candidates (Kako et al., as cited by the paper).
#pragma once

#include <span>
#include <vector>

#include "kernels/independent_set.h"
#include "kernels/types.h"

namespace treematch::kernels {

/// Work of the ordering: sum over vertices of (candidates containing it)^2.
double weighted_degree_work(const Incidence& incidence);

/// For each candidate, the average value of the candidates it conflicts with (0 if none), then
/// priority[c] = rank of c when sorted by (average descending, value ascending, index ascending).
std::vector<Index> priority_by_weighted_degree(const Groups& candidates, const Incidence& incidence,
                                               std::span<const Weight> values);
std::vector<Index> priority_by_weighted_degree_seq(const Groups& candidates,
                                                   const Incidence& incidence,
                                                   std::span<const Weight> values);

}  // namespace treematch::kernels
