// Group values of the paper: communication a group leaves to the upper levels.
#pragma once

#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// Row sums of the matrix (sum_j m[i][j]); rows past the stored ones are 0.
std::vector<Weight> row_sums(CsrView graph);
std::vector<Weight> row_sums_seq(CsrView graph);

/// value(G) = sum_{i in G} sum_j m[i][j] - sum_{i,j in G} m[i][j]  (internal pairs count twice:
/// the seed's 1114 + 2104 - 2000 = 1218 for group (0,1)). Smaller is better.
std::vector<Weight> group_values(CsrView graph, std::span<const Weight> rowsum,
                                 const Groups& groups);
std::vector<Weight> group_values_seq(CsrView graph, std::span<const Weight> rowsum,
                                     const Groups& groups);

/// Priority order of candidates for the greedy: sorted by (value ascending, index ascending).
/// Returns priority[c] = position of c in that order.
std::vector<Index> priority_by_value(std::span<const Weight> values);

}  // namespace treematch::kernels
