// Spearman's rank correlation: whether two measures order the same things the same way.
#pragma once

#include <optional>
#include <vector>

namespace treematch::bench {

/// Ranks 1..n of `values`, ties given the mean of the ranks they span.
std::vector<double> fractional_ranks(const std::vector<double>& values);

/// Spearman's rho of (x[i], y[i]): Pearson's correlation of their fractional ranks, in [-1, 1].
/// nullopt when the sizes differ, there are fewer than 2 pairs, or one side is all ties (no order
/// to compare).
std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace treematch::bench
