// Row producer of the hierarchical pattern: volumes by common-ancestor level, with seeded noise.
#include "src/patterns/hierarchical_pattern.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/utility.h"
#include "src/patterns/permutation.h"

namespace treematch {
namespace {

/// "hierarch" in ASCII: the bench's D1 salts its noise key with it.
constexpr std::uint64_t kBenchD1Salt = 0x6869657261726368ULL;

std::uint64_t noise_key(const HierarchicalPatternSpec& spec) {
  switch (spec.variant) {
    case HierarchicalVariant::kGenerate:
      return kernels::splitmix64(spec.seed);
    case HierarchicalVariant::kBenchD1:
      return kernels::splitmix64(spec.seed ^ kBenchD1Salt);
  }
  throw std::logic_error("HierarchicalPattern: unknown variant");
}

/// The ranks' slots: the first n of a seeded permutation of all the leaves.
std::vector<Index> planted_slots(const Topology& tree, const HierarchicalPatternSpec& spec) {
  const Index leaves = tree.leaf_count();
  const Index n = spec.ranks == 0 ? leaves : spec.ranks;
  if (n < 0 || n > leaves) {
    throw std::invalid_argument("HierarchicalPattern: " + std::to_string(spec.ranks) +
                                " ranks for a topology of " + std::to_string(leaves) + " leaves");
  }
  if (!std::isfinite(spec.noise) || spec.noise < 0.0) {
    throw std::invalid_argument("HierarchicalPattern: noise " + std::to_string(spec.noise) +
                                " is not a finite value >= 0");
  }
  std::vector<Index> slots = seeded_permutation(leaves, spec.seed);
  slots.resize(static_cast<std::size_t>(n));
  return slots;
}

}  // namespace

HierarchicalPattern::HierarchicalPattern(const Topology& tree, const HierarchicalPatternSpec& spec)
    : tree_(tree),
      slot_of_rank_(planted_slots(tree, spec)),
      noise_(spec.noise),
      directed_(spec.directed),
      zero_diagonal_(spec.variant == HierarchicalVariant::kBenchD1),
      key_(noise_key(spec)) {
  level_value_.resize(static_cast<std::size_t>(tree.depth()) + 1);
  for (std::size_t h = 0; h < level_value_.size(); ++h)
    level_value_[h] = std::pow(10.0, static_cast<double>(level_value_.size() - 1 - h));
}

void HierarchicalPattern::fill_row(Index row, std::span<double> values) const {
  const Index n = size();
  if (row < 0 || row >= n || values.size() != static_cast<std::size_t>(n)) {
    throw std::invalid_argument("HierarchicalPattern::fill_row: row " + std::to_string(row) +
                                " or a buffer of " + std::to_string(values.size()) +
                                " values does not fit order " + std::to_string(n));
  }
  const Index here = slot_of_rank_[static_cast<std::size_t>(row)];
  for (Index col = 0; col < n; ++col) {
    const int h = tree_.common_ancestor_height(here, slot_of_rank_[static_cast<std::size_t>(col)]);
    // Symmetric: the pair {row, col} in a fixed order keys the draw, so C[i][j] == C[j][i].
    const auto a = static_cast<std::uint64_t>(directed_ ? row : std::min(row, col));
    const auto b = static_cast<std::uint64_t>(directed_ ? col : std::max(row, col));
    const std::uint64_t bits = kernels::splitmix64(key_ ^ kernels::splitmix64((a << 32) | b));
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // 53 bits -> [0, 1)
    values[static_cast<std::size_t>(col)] =
        level_value_[static_cast<std::size_t>(h)] * (1.0 + noise_ * u);
  }
  if (zero_diagonal_) values[static_cast<std::size_t>(row)] = 0.0;
}

}  // namespace treematch
