// A synthetic dense pattern: volumes falling by 10 per tree level, with seeded noise, row by row.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "src/tree/topology.h"

namespace treematch {

/// The two value streams kept from the two generators this one replaced (`treematch generate
/// hierarchical` and treematch-bench's case D1), so that each still writes the same files byte for
/// byte. Same slots and levels; they differ only in the noise key and the diagonal.
enum class HierarchicalVariant {
  /// `treematch generate hierarchical`: noise keyed by SplitMix64(seed); the diagonal holds
  /// 10^depth x (1 + noise x u_ii) (the readers drop it; a dense HDF5 file keeps it).
  kGenerate,
  /// treematch-bench case D1: noise keyed by SplitMix64(seed ^ "hierarch" in ASCII); diagonal 0.
  kBenchD1,
};

/// What HierarchicalPattern draws.
struct HierarchicalPatternSpec {
  Index ranks = 0;  ///< 0 = one rank per leaf
  double noise = 0.1;
  std::uint64_t seed = 1;
  /// u_ij drawn for the pair {i, j} (symmetric matrix) or, when directed, for (i, j) and (j, i)
  /// independently.
  bool directed = false;
  HierarchicalVariant variant = HierarchicalVariant::kGenerate;
};

/// The dense "hierarchical with noise" matrix of the benchmarks, produced row by row, never held
/// whole. Rank r sits on the natural slot (logical leaf) slot_of_rank()[r], the first `ranks`
/// entries of seeded_permutation(leaf count, seed). For i != j the entry is
///   C[i][j] = 10^(depth - h) x (1 + noise x u_ij),
/// h = tree.common_ancestor_height(slot(i), slot(j)) (1 = same lowest node, depth = only the root
/// in common) and u_ij uniform in [0, 1): the 53 high bits of SplitMix64(key ^ SplitMix64(a << 32
/// | b)), (a, b) = (min, max) of (i, j) or, directed, (i, j). Every off-diagonal entry is >= 1, any
/// row can be produced alone, identically on every platform. The diagonal follows spec.variant.
/// On "group:128 group:16 pack:2 core:4" (depth 4) this is 10^(4 - h) x (1 + 0.1 u).
class HierarchicalPattern {
 public:
  /// Throws std::invalid_argument for ranks outside [0, leaf count] or a noise that is negative or
  /// not finite.
  HierarchicalPattern(const Topology& tree, const HierarchicalPatternSpec& spec);

  /// The order n (spec.ranks, or the tree's leaf count when it is 0).
  [[nodiscard]] Index size() const { return static_cast<Index>(slot_of_rank_.size()); }

  /// Off-diagonal entries, all non-zero: n (n - 1).
  [[nodiscard]] long long entries() const {
    return static_cast<long long>(size()) * (static_cast<long long>(size()) - 1);
  }

  /// The slot (logical leaf) each rank's row was generated for: the planted mapping, which puts
  /// every entry of level h on a path of 2h hops and so minimises the hop-bytes up to the noise.
  [[nodiscard]] const std::vector<Index>& slot_of_rank() const { return slot_of_rank_; }

  /// Writes row `row` into `values` (size() entries). Throws std::invalid_argument for a row or a
  /// buffer that does not fit.
  void fill_row(Index row, std::span<double> values) const;

 private:
  Topology tree_;
  std::vector<Index> slot_of_rank_;
  std::vector<double> level_value_;  ///< 10^(depth - h), h = 0..depth
  double noise_;
  bool directed_;
  bool zero_diagonal_;
  std::uint64_t key_;
};

}  // namespace treematch
