// The dense "hierarchical with noise" matrix of case D1, produced row by row, never held whole.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "src/topology.h"

namespace treematch::bench {

/// One rank per leaf of `tree`; rank r sits on the natural slot (logical leaf)
/// seeded_permutation(leaves, seed)[r]. For i != j the entry is
///   C[i][j] = 10^(depth - h) x (1 + noise x u_ij),
/// h = tree.common_ancestor_height(slot(i), slot(j)) (1 = same lowest node, depth = only the root
/// in common) and u_ij uniform in [0, 1) drawn for the pair {i, j} by a counter-based generator
/// (SplitMix64 of the seed and the pair), so the matrix is symmetric, every off-diagonal entry is
/// >= 1 and any row can be produced alone, identically on every platform. C[i][i] = 0.
/// On "group:128 group:16 pack:2 core:4" (depth 4) this is 10^(4 - h) x (1 + 0.1 u).
class HierarchicalMatrix {
 public:
  /// Throws std::invalid_argument for a one-leaf tree or a noise that is negative or not finite.
  HierarchicalMatrix(const Topology& tree, double noise, std::uint64_t seed);

  /// The order n (= the tree's leaf count).
  [[nodiscard]] Index size() const { return static_cast<Index>(slot_of_rank_.size()); }

  /// Off-diagonal entries, all non-zero: n (n - 1).
  [[nodiscard]] long long entries() const {
    return static_cast<long long>(size()) * (static_cast<long long>(size()) - 1);
  }

  /// The slot (logical leaf) each rank's row was generated for: the planted mapping, which puts
  /// every entry of level h on a path of 2h hops and so minimises the hop-bytes up to the noise.
  [[nodiscard]] const std::vector<Index>& slot_of_rank() const { return slot_of_rank_; }

  /// Writes row `row` into `values` (size() entries).
  void fill_row(Index row, std::span<double> values) const;

 private:
  Topology tree_;
  std::vector<Index> slot_of_rank_;
  std::vector<double> level_value_;  ///< 10^(depth - h), h = 0..depth
  double noise_;
  std::uint64_t key_;
};

}  // namespace treematch::bench
