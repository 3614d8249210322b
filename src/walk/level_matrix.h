// The matrix of one TreeMatch level as grouping and aggregation use it: held by this process, or
// spread over MPI ranks (src/distributed), with the same answers either way.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// What GroupProcesses and AggregateComMatrix ask of a level's matrix. Every answer is defined by
/// a kernel (named below) whose sums follow a fixed order, so an implementation whose rows live
/// on several MPI ranks returns bit-identical results and the mapping does not depend on where
/// the rows are.
class LevelMatrix {
 public:
  virtual ~LevelMatrix() = default;

  /// Processes of this level, artificial ones (ExtendComMatrix) included.
  [[nodiscard]] virtual Index order() const = 0;
  /// ExtendComMatrix: grows the order to n; the processes added communicate with nobody.
  virtual void extend(Index n) = 0;
  /// kernels::row_sums of all order() processes.
  [[nodiscard]] virtual std::vector<Weight> row_sums() const = 0;
  /// Entries of the longest row.
  [[nodiscard]] virtual Offset longest_row() const = 0;
  /// kernels::neighbourhood_candidates on every row cut to its `limit` heaviest entries
  /// (kernels::strongest_neighbours; shorter rows whole).
  [[nodiscard]] virtual kernels::Groups neighbourhood_candidates(Offset limit,
                                                                 std::span<const Weight> rowsum,
                                                                 std::span<const std::uint8_t> free,
                                                                 std::span<const Index> fillers,
                                                                 Index k, int seeds) = 0;
  /// kernels::pack_remaining on the same cut rows.
  [[nodiscard]] virtual kernels::Groups pack_remaining(Offset limit, std::span<const Weight> rowsum,
                                                       std::span<std::uint8_t> free, Index k) = 0;
  /// kernels::group_values of each group.
  [[nodiscard]] virtual std::vector<Weight> group_values(std::span<const Weight> rowsum,
                                                         const kernels::Groups& groups) const = 0;
  /// kernels::refine_partition; returns the swaps applied.
  virtual long long refine_partition(kernels::Groups& groups, int rounds) const = 0;
  /// AggregateComMatrix (kernels::aggregate): the next level's matrix, one process per group.
  [[nodiscard]] virtual std::unique_ptr<LevelMatrix> aggregate(
      const kernels::Groups& groups) const = 0;
};

/// Cut-down copies of one matrix by row limit, shared by the walks that start from it.
using LinkCache = std::map<Offset, kernels::Csr>;

/// A level's matrix held by this process (TBB-parallel kernels).
class LocalLevelMatrix final : public LevelMatrix {
 public:
  /// Views `graph`, which must outlive this object; cut-down copies go to `cache` when given.
  explicit LocalLevelMatrix(kernels::CsrView graph, std::shared_ptr<LinkCache> cache = nullptr);
  /// Owns `matrix` (an aggregated level).
  explicit LocalLevelMatrix(kernels::Csr matrix);

  [[nodiscard]] Index order() const override { return view_.n; }
  void extend(Index n) override { view_.n = n; }
  [[nodiscard]] std::vector<Weight> row_sums() const override;
  [[nodiscard]] Offset longest_row() const override;
  [[nodiscard]] kernels::Groups neighbourhood_candidates(Offset limit,
                                                         std::span<const Weight> rowsum,
                                                         std::span<const std::uint8_t> free,
                                                         std::span<const Index> fillers, Index k,
                                                         int seeds) override;
  [[nodiscard]] kernels::Groups pack_remaining(Offset limit, std::span<const Weight> rowsum,
                                               std::span<std::uint8_t> free, Index k) override;
  [[nodiscard]] std::vector<Weight> group_values(std::span<const Weight> rowsum,
                                                 const kernels::Groups& groups) const override;
  long long refine_partition(kernels::Groups& groups, int rounds) const override;
  [[nodiscard]] std::unique_ptr<LevelMatrix> aggregate(
      const kernels::Groups& groups) const override;

  [[nodiscard]] kernels::CsrView view() const { return view_; }

 private:
  /// Every row cut to its `limit` heaviest entries, n = order(); valid while this object lives.
  kernels::CsrView links(Offset limit);

  kernels::Csr owned_;
  kernels::CsrView view_;
  std::shared_ptr<LinkCache> cache_;
  mutable Offset longest_ = -1;
};

}  // namespace treematch
