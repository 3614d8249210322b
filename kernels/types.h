// Plain types shared by the parallel kernels: indexes, weights and a read-only CSR view.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace treematch::kernels {

using Index = std::int32_t;   ///< a process, a virtual process, a group or a leaf
using Offset = std::int64_t;  ///< a position in CSR arrays (nnz may exceed 2^31)
using Weight = double;        ///< communication volume; integer volumes stay exact below 2^53

/// An Index or an Offset as a subscript of the std::vector and std::span that hold per-process
/// data and CSR arrays.
constexpr std::size_t at(Index i) noexcept {
  return static_cast<std::size_t>(i);
}
constexpr std::size_t at(Offset e) noexcept {
  return static_cast<std::size_t>(e);
}

/// A symmetric sparse matrix without diagonal: row i holds targets[offsets[i]..offsets[i+1]),
/// sorted ascending, with matching weights. Rows past the stored ones are empty (artificial
/// processes have no communication).
struct CsrView {
  Index n = 0;
  std::span<const Offset> offsets;  ///< n + 1 entries
  std::span<const Index> targets;
  std::span<const Weight> weights;

  [[nodiscard]] Offset row_begin(Index i) const { return offsets[static_cast<std::size_t>(i)]; }
  [[nodiscard]] Offset row_end(Index i) const { return offsets[static_cast<std::size_t>(i) + 1]; }
  /// Row i's targets and weights.
  [[nodiscard]] std::span<const Index> row_targets(Index i) const {
    return targets.subspan(at(row_begin(i)), at(row_end(i) - row_begin(i)));
  }
  [[nodiscard]] std::span<const Weight> row_weights(Index i) const {
    return weights.subspan(at(row_begin(i)), at(row_end(i) - row_begin(i)));
  }
  /// Where row i holds target j (an index into targets and weights), -1 when it does not: a
  /// binary search of the sorted row.
  [[nodiscard]] Offset find(Index i, Index j) const {
    const auto first = targets.begin() + row_begin(i);
    const auto last = targets.begin() + row_end(i);
    const auto found = std::lower_bound(first, last, j);
    return found != last && *found == j ? found - targets.begin() : -1;
  }
  /// w(i, j): row i's weight for target j, 0 when the row does not hold it.
  [[nodiscard]] Weight weight(Index i, Index j) const {
    const Offset e = find(i, j);
    return e < 0 ? Weight{0} : weights[static_cast<std::size_t>(e)];
  }
};

/// An owning CSR matrix, the output of aggregation.
struct Csr {
  Index n = 0;
  std::vector<Offset> offsets{0};
  std::vector<Index> targets;
  std::vector<Weight> weights;

  [[nodiscard]] CsrView view() const { return CsrView{n, offsets, targets, weights}; }
};

/// Groups of equal size k stored flat: group g is members[g*k .. g*k+k), sorted ascending.
struct Groups {
  Index k = 1;
  std::vector<Index> members;

  [[nodiscard]] Index count() const {
    return static_cast<Index>(members.size() / static_cast<std::size_t>(k));
  }
  [[nodiscard]] std::span<const Index> group(Index g) const {
    return std::span<const Index>(members).subspan(
        static_cast<std::size_t>(g) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
  }
};

/// The same groups listed by their smallest member (members sorted inside each group): the order
/// in which a level's groups become the next level's processes. Parallel (kernels/groups.cc).
Groups ordered_by_first_member(const Groups& groups);

/// The groups of `flat` (k members each) at positions slots[0], slots[1], ..., one after another;
/// copied by parallel tasks when `parallel` (kernels/groups.cc).
std::vector<Index> gather_groups(const std::vector<Index>& flat, Index k,
                                 std::span<const Index> slots, bool parallel);

/// owner[v] = the group holding v, -1 for vertices of [0, n) in no group (groups are disjoint).
std::vector<Index> group_owner(const Groups& groups, Index n);

}  // namespace treematch::kernels
