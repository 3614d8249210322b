// Row producer of the D1 matrix: hierarchical volumes with symmetric, seeded noise.
#include "apps/bench/hierarchical.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/utility.h"
#include "src/stencil_pattern.h"

namespace treematch::bench {
namespace {}  // namespace

HierarchicalMatrix::HierarchicalMatrix(const Topology& tree, double noise, std::uint64_t seed)
    : tree_(tree),
      slot_of_rank_(seeded_permutation(tree.leaf_count(), seed)),
      noise_(noise),
      key_(kernels::splitmix64(seed ^ 0x6869657261726368ULL)) {
  if (tree.depth() == 0) throw std::invalid_argument("HierarchicalMatrix: a one-leaf tree");
  if (!std::isfinite(noise) || noise < 0.0) {
    throw std::invalid_argument("HierarchicalMatrix: noise " + std::to_string(noise) +
                                " is not a finite value >= 0");
  }
  level_value_.resize(static_cast<std::size_t>(tree.depth()) + 1);
  for (std::size_t h = 0; h < level_value_.size(); ++h)
    level_value_[h] = std::pow(10.0, static_cast<double>(level_value_.size() - 1 - h));
}

void HierarchicalMatrix::fill_row(Index row, std::span<double> values) const {
  const Index n = size();
  if (row < 0 || row >= n || values.size() != static_cast<std::size_t>(n)) {
    throw std::invalid_argument("HierarchicalMatrix::fill_row: row " + std::to_string(row) +
                                " or a buffer of " + std::to_string(values.size()) +
                                " values does not fit order " + std::to_string(n));
  }
  const Index here = slot_of_rank_[static_cast<std::size_t>(row)];
  for (Index col = 0; col < n; ++col) {
    if (col == row) {
      values[static_cast<std::size_t>(col)] = 0.0;
      continue;
    }
    const int h = tree_.common_ancestor_height(here, slot_of_rank_[static_cast<std::size_t>(col)]);
    // The pair {row, col} in a fixed order keys the draw, so C[i][j] == C[j][i] exactly.
    const auto low = static_cast<std::uint64_t>(std::min(row, col));
    const auto high = static_cast<std::uint64_t>(std::max(row, col));
    const std::uint64_t bits = kernels::splitmix64(key_ ^ kernels::splitmix64((low << 32) | high));
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // 53 bits -> [0, 1)
    values[static_cast<std::size_t>(col)] =
        level_value_[static_cast<std::size_t>(h)] * (1.0 + noise_ * u);
  }
}

}  // namespace treematch::bench
