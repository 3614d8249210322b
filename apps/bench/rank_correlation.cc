#include "apps/bench/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace treematch::bench {

std::vector<double> fractional_ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;
    while (last < order.size() && values[order[last]] == values[order[first]]) ++last;
    // Positions first..last-1 hold equal values: each gets the mean of ranks first+1..last.
    const double rank = 0.5 * static_cast<double>(first + 1 + last);
    for (std::size_t k = first; k < last; ++k) ranks[order[k]] = rank;
    first = last;
  }
  return ranks;
}

std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nullopt;
  const std::vector<double> rx = fractional_ranks(x);
  const std::vector<double> ry = fractional_ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1.0) / 2.0;  // of any fractional ranks
  double sxy = 0.0;
  double sxx = 0.0;
  double syy = 0.0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0.0 || syy == 0.0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace treematch::bench
