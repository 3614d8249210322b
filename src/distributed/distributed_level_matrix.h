// A TreeMatch level whose matrix rows are spread over the ranks of an MPI communicator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/types.h"
#include "src/walk/level_matrix.h"

namespace treematch::distributed {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// Consecutive row blocks: rank r holds rows [starts[r], starts[r + 1]).
struct RowBlocks {
  std::vector<Index> starts;  ///< ranks + 1 entries, starts[0] = 0

  /// `rows` split evenly over `ranks`, every start a multiple of `unit` (except the last).
  static RowBlocks even(Index rows, int ranks, Index unit = 1);
  [[nodiscard]] Index first(int rank) const { return starts[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] Index count(int rank) const {
    return starts[static_cast<std::size_t>(rank) + 1] - starts[static_cast<std::size_t>(rank)];
  }
  /// The rank holding `row` (row < starts.back()).
  [[nodiscard]] int rank_of(Index row) const;
};

/// Every rank's matrix rows gathered on every rank (n = order).
kernels::Csr gather_rows(MPI_Comm comm, kernels::CsrView mine, Index order);

/// A level's matrix, rows in blocks over the ranks of `comm`. Every member function is collective
/// (all ranks call it, in the same order) and returns the same answer on every rank, equal bit
/// for bit to LocalLevelMatrix's for the gathered matrix: partial sums are made where the rows
/// live and combined in the order the threaded kernels use (member order, then block order).
/// Candidates are grown where their seeds' rows live (src/distributed/distributed_candidates.h)
/// and shared; selections and other decisions are taken on every rank from those answers.
class DistributedLevelMatrix final : public LevelMatrix {
 public:
  /// `rows` (this rank's rows, n = order) is viewed, not copied: it must outlive this object.
  /// `links` keeps the cut-down copies of those rows (shared by the walks that start here).
  /// Aggregation gathers the next level on every rank once it has at most `gather_entries`, and
  /// sends partial rows in pieces of at most `piece_entries` entries.
  DistributedLevelMatrix(MPI_Comm comm, kernels::CsrView rows, RowBlocks blocks,
                         std::shared_ptr<LinkCache> links, Offset gather_entries,
                         Offset piece_entries);
  /// Owns `rows`.
  DistributedLevelMatrix(MPI_Comm comm, kernels::Csr rows, RowBlocks blocks, Offset gather_entries,
                         Offset piece_entries);

  [[nodiscard]] Index order() const override { return order_; }
  void extend(Index n) override { order_ = n; }
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

 private:
  [[nodiscard]] kernels::CsrView mine() const;
  /// Entries made and sent at a time by an exchange: piece_entries, less when few rows are held.
  [[nodiscard]] Offset piece() const;
  /// This rank's rows cut to their `limit` heaviest entries (cached: walks share them).
  kernels::CsrView cut(Offset limit);
  [[nodiscard]] Index first() const { return blocks_.first(rank_); }

  MPI_Comm comm_;
  int rank_ = 0;
  int ranks_ = 1;
  kernels::Csr owned_;
  kernels::CsrView rows_;
  RowBlocks blocks_;
  Index order_ = 0;
  std::shared_ptr<LinkCache> links_;
  Offset gather_entries_ = 0;
  Offset piece_entries_ = 1;
  mutable Offset longest_ = -1;
};

}  // namespace treematch::distributed
