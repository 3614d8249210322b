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

/// The weight each member's row keeps inside its group, for the members whose rows `rows` holds:
/// `rows.offsets` covers rows [first_row, first_row + rows.offsets.size() - 1) and rows.n is the
/// order. partial[g*k + t] = sum over j in group g of m[member t][j], added in row order; 0 for
/// members held elsewhere. group_values(G) = the members' row sums minus these partials added in
/// member order (value_from_partials), so partials computed where the rows live (MPI ranks) and
/// brought together give the very same values.
std::vector<Weight> inside_partials(CsrView rows, Index first_row, const Groups& groups);
std::vector<Weight> inside_partials_seq(CsrView rows, Index first_row, const Groups& groups);

/// value(G) from the members' row sums and G's k inside partials.
Weight value_from_partials(std::span<const Weight> rowsum, std::span<const Index> members,
                           std::span<const Weight> partials);

/// Priority order of candidates for the greedy: sorted by (value ascending, index ascending).
/// Returns priority[c] = position of c in that order.
std::vector<Index> priority_by_value(std::span<const Weight> values);

}  // namespace treematch::kernels
