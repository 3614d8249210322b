// AggregateComMatrix: the matrix between groups, r[g][h] = sum of m[i][j], i in g, j in h, g != h.
#pragma once

#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// `groups` partitions vertices 0..graph.n-1 (members of group g are its rows); the result has one
/// row per group, sorted, without diagonal. Sums follow a fixed order (members, then row order),
/// so the result does not depend on the thread count; then mirror_upper_triangle.
Csr aggregate(CsrView graph, const Groups& groups);
Csr aggregate_seq(CsrView graph, const Groups& groups);

/// Makes a structurally symmetric matrix with sorted rows symmetric bit for bit: r[g][h], g > h,
/// takes the value of r[h][g]. After aggregation both sum the same block of the matrix below in
/// different orders, which with weights such as 1/3 may differ in the last bits; the partition
/// refinement reads a pair's weight from either row (kernels/partition_refinement.cc) and the
/// distributed walk from the other, so both must hold one value.
void mirror_upper_triangle(Csr& matrix);

/// The aggregation split where rows live: each held row v of `rows` (rows from first_row) summed
/// by target group, r[v][h] = sum of m[v][j] over j in group h, h != owner[v], in row order; one
/// output row per held row, sorted by h (out.n = groups). Folding the members' partial rows in
/// member order (PartialRowFolder) gives exactly aggregate()'s rows before their upper triangle is
/// mirrored.
Csr member_partial_rows(CsrView rows, Index first_row, std::span<const Index> owner, Index groups);

/// Adds members' partial rows, in member order, into the row of one group at a time.
class PartialRowFolder {
 public:
  explicit PartialRowFolder(Index groups);

  /// Adds r[v][h] = w for the group g being built.
  void add_entry(Index h, Weight w, Index g) {
    const auto slot = static_cast<std::size_t>(h);
    if (stamp_[slot] != g) {
      stamp_[slot] = g;
      acc_[slot] = w;
      touched_.push_back(h);
    } else {
      acc_[slot] += w;
    }
  }
  /// Adds one member's partial row.
  void add(std::span<const Index> targets, std::span<const Weight> weights, Index g);
  /// The length of the row being built.
  [[nodiscard]] std::size_t length() const { return touched_.size(); }
  /// Writes the row being built (sorted by target) to the front of targets/weights; returns its
  /// length.
  Offset emit(std::span<Index> targets, std::span<Weight> weights);

 private:
  std::vector<Weight> acc_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
};

}  // namespace treematch::kernels
