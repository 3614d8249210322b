// Builds the symmetric CSR communication graph from directed rows or triplets in O(nnz + n).
#include "src/model/comm_graph.h"

#include <cstdint>
#include <cstring>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <cassert>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/utility.h"

namespace treematch {
namespace {

using std::size_t;

/// Throws std::invalid_argument unless the three arrays form a CSR matrix of n rows.
void check_csr_shape(const char* who, Index n, const std::vector<Offset>& offsets,
                     const std::vector<Index>& targets, const std::vector<Weight>& weights) {
  if (n < 0) throw std::invalid_argument(std::string(who) + ": negative size");
  if (offsets.size() != static_cast<size_t>(n) + 1 || offsets.front() != 0 ||
      offsets.back() != static_cast<Offset>(targets.size()) || targets.size() != weights.size()) {
    throw std::invalid_argument(std::string(who) +
                                ": offsets, targets and weights do not form a CSR of " +
                                std::to_string(n) + " rows");
  }
}

/// Debug-only check of the documented preconditions (sorted rows, in range, no diagonal, w > 0).
[[maybe_unused]] bool rows_are_canonical(Index n, const std::vector<Offset>& offsets,
                                         const std::vector<Index>& targets,
                                         const std::vector<Weight>& weights) {
  for (Index i = 0; i < n; ++i) {
    const auto row = static_cast<size_t>(i);
    for (Offset e = offsets[row]; e < offsets[row + 1]; ++e) {
      const auto k = static_cast<size_t>(e);
      if (targets[k] < 0 || targets[k] >= n || targets[k] == i || !(weights[k] > 0.0)) return false;
      if (e > offsets[row] && targets[k - 1] >= targets[k]) return false;
    }
  }
  return true;
}

/// A^T by counting sort; visiting rows in order leaves every transposed row sorted by column.
kernels::Csr transpose(Index n, const std::vector<Offset>& offsets,
                       const std::vector<Index>& targets, const std::vector<Weight>& weights) {
  kernels::Csr t;
  t.n = n;
  t.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (const Index j : targets) ++t.offsets[static_cast<size_t>(j) + 1];
  for (size_t r = 0; r < static_cast<size_t>(n); ++r) t.offsets[r + 1] += t.offsets[r];
  t.targets.resize(targets.size());
  t.weights.resize(weights.size());
  std::vector<Offset> fill(t.offsets.begin(), t.offsets.end() - 1);
  for (Index i = 0; i < n; ++i) {
    for (Offset e = offsets[static_cast<size_t>(i)]; e < offsets[static_cast<size_t>(i) + 1]; ++e) {
      const auto k = static_cast<size_t>(e);
      const auto slot = static_cast<size_t>(fill[static_cast<size_t>(targets[k])]++);
      t.targets[slot] = i;
      t.weights[slot] = weights[k];
    }
  }
  return t;
}

/// Number of distinct columns in the union of two sorted rows.
Offset merged_length(const Index* a, const Index* a_end, const Index* b, const Index* b_end) {
  Offset count = 0;
  while (a != a_end && b != b_end) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++a;
      ++b;
    }
    ++count;
  }
  return count + (a_end - a) + (b_end - b);
}

}  // namespace

SymmetryChecksums symmetry_checksums(kernels::CsrView rows, Index first_row) {
  const auto entry_hash = [&](Index row, Index col, Weight w) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &w, sizeof bits);
    return kernels::splitmix64(
        kernels::splitmix64((static_cast<std::uint64_t>(static_cast<std::uint32_t>(row)) << 32) |
                            static_cast<std::uint32_t>(col)) ^
        bits);
  };
  const Index held = static_cast<Index>(rows.offsets.size()) - 1;
  return tbb::parallel_reduce(
      tbb::blocked_range<Index>(0, held, 256), SymmetryChecksums{},
      [&](const tbb::blocked_range<Index>& range, SymmetryChecksums partial) {
        for (Index l = range.begin(); l != range.end(); ++l) {
          const Index i = first_row + l;
          for (Offset e = rows.row_begin(l); e < rows.row_end(l); ++e) {
            const Index j = rows.targets[static_cast<size_t>(e)];
            const Weight w = rows.weights[static_cast<size_t>(e)];
            partial.forward += entry_hash(i, j, w);
            partial.backward += entry_hash(j, i, w);
          }
        }
        return partial;
      },
      [](SymmetryChecksums x, SymmetryChecksums y) {
        return SymmetryChecksums{x.forward + y.forward, x.backward + y.backward};
      });
}

kernels::Csr add_rows(kernels::CsrView a, kernels::CsrView b) {
  const size_t rows = a.offsets.size() - 1;
  const auto row_a = [&](size_t r) { return a.targets.data() + a.offsets[r]; };
  const auto row_b = [&](size_t r) { return b.targets.data() + b.offsets[r]; };
  kernels::Csr sum;
  sum.n = a.n;
  sum.offsets.assign(rows + 1, 0);
  for (size_t r = 0; r < rows; ++r) {
    sum.offsets[r + 1] =
        sum.offsets[r] + merged_length(row_a(r), row_a(r + 1), row_b(r), row_b(r + 1));
  }
  sum.targets.resize(static_cast<size_t>(sum.offsets.back()));
  sum.weights.resize(static_cast<size_t>(sum.offsets.back()));
  for (size_t r = 0; r < rows; ++r) {
    auto x = static_cast<size_t>(a.offsets[r]);
    const auto x_end = static_cast<size_t>(a.offsets[r + 1]);
    auto y = static_cast<size_t>(b.offsets[r]);
    const auto y_end = static_cast<size_t>(b.offsets[r + 1]);
    auto out = static_cast<size_t>(sum.offsets[r]);
    while (x != x_end || y != y_end) {
      if (y == y_end || (x != x_end && a.targets[x] < b.targets[y])) {
        sum.targets[out] = a.targets[x];
        sum.weights[out] = a.weights[x++];
      } else if (x == x_end || b.targets[y] < a.targets[x]) {
        sum.targets[out] = b.targets[y];
        sum.weights[out] = b.weights[y++];
      } else {
        sum.targets[out] = a.targets[x];
        sum.weights[out] = a.weights[x++] + b.weights[y++];
      }
      ++out;
    }
  }
  return sum;
}

CommGraph CommGraph::from_directed_rows(Index n, std::vector<Offset> offsets,
                                        std::vector<Index> targets, std::vector<Weight> weights) {
  check_csr_shape("CommGraph::from_directed_rows", n, offsets, targets, weights);
  assert(rows_are_canonical(n, offsets, targets, weights));
  const kernels::CsrView rows{n, offsets, targets, weights};
  const SymmetryChecksums sums = symmetry_checksums(rows, /*first_row=*/0);
  if (sums.forward == sums.backward) {
    return from_symmetric_csr(n, std::move(offsets), std::move(targets), std::move(weights));
  }
  // S = A + A^T, merging row i of A with row i of A^T (both sorted).
  const kernels::Csr t = transpose(n, offsets, targets, weights);
  kernels::Csr s = add_rows(rows, t.view());
  return from_symmetric_csr(n, std::move(s.offsets), std::move(s.targets), std::move(s.weights),
                            /*symmetrised=*/true);
}

CommGraph CommGraph::from_triplets(Index n, std::vector<Triplet> triplets) {
  if (n < 0) throw std::invalid_argument("CommGraph::from_triplets: negative size");
  // Keep the off-diagonal non-zero entries, checking what the rows builder takes for granted.
  size_t kept = 0;
  for (const Triplet& t : triplets) {
    if (t.row < 0 || t.row >= n || t.col < 0 || t.col >= n) {
      throw std::invalid_argument("CommGraph::from_triplets: entry (" + std::to_string(t.row) +
                                  ", " + std::to_string(t.col) + ") outside a " +
                                  std::to_string(n) + "x" + std::to_string(n) + " matrix");
    }
    if (!std::isfinite(t.weight) || t.weight < 0.0) {
      throw std::invalid_argument("CommGraph::from_triplets: entry (" + std::to_string(t.row) +
                                  ", " + std::to_string(t.col) + ") has weight " +
                                  std::to_string(t.weight) + ", expected a finite value >= 0");
    }
    if (t.row != t.col && t.weight > 0.0) triplets[kept++] = t;
  }
  triplets.resize(kept);

  // Two stable counting sorts (by column, then by row) order the entries by (row, column).
  const auto rows = static_cast<size_t>(n);
  std::vector<Offset> count(rows + 1, 0);
  for (const Triplet& t : triplets) ++count[static_cast<size_t>(t.col) + 1];
  for (size_t r = 0; r < rows; ++r) count[r + 1] += count[r];
  std::vector<Triplet> by_col(kept);
  for (const Triplet& t : triplets)
    by_col[static_cast<size_t>(count[static_cast<size_t>(t.col)]++)] = t;
  std::vector<Triplet>().swap(triplets);

  std::vector<Offset> offsets(rows + 1, 0);
  for (const Triplet& t : by_col) ++offsets[static_cast<size_t>(t.row) + 1];
  for (size_t r = 0; r < rows; ++r) offsets[r + 1] += offsets[r];
  std::vector<Index> targets(kept);
  std::vector<Weight> weights(kept);
  std::vector<Offset> fill(offsets.begin(), offsets.end() - 1);
  for (const Triplet& t : by_col) {
    const auto slot = static_cast<size_t>(fill[static_cast<size_t>(t.row)]++);
    targets[slot] = t.col;
    weights[slot] = t.weight;
  }
  std::vector<Triplet>().swap(by_col);

  // Sum duplicates in place: rows are sorted, so duplicates are adjacent.
  size_t out = 0;
  for (size_t r = 0; r < rows; ++r) {
    const auto begin = static_cast<size_t>(offsets[r]);
    const auto end = static_cast<size_t>(offsets[r + 1]);
    offsets[r] = static_cast<Offset>(out);
    for (size_t k = begin; k < end; ++k) {
      if (out > static_cast<size_t>(offsets[r]) && targets[out - 1] == targets[k]) {
        weights[out - 1] += weights[k];
      } else {
        targets[out] = targets[k];
        weights[out] = weights[k];
        ++out;
      }
    }
  }
  offsets[rows] = static_cast<Offset>(out);
  targets.resize(out);
  weights.resize(out);
  return from_directed_rows(n, std::move(offsets), std::move(targets), std::move(weights));
}

CommGraph CommGraph::from_symmetric_csr(Index n, std::vector<Offset> offsets,
                                        std::vector<Index> targets, std::vector<Weight> weights,
                                        bool symmetrised) {
  check_csr_shape("CommGraph::from_symmetric_csr", n, offsets, targets, weights);
  assert(rows_are_canonical(n, offsets, targets, weights));
  CommGraph g;
  g.n_ = n;
  g.symmetrised_ = symmetrised;
  g.offsets_ = std::move(offsets);
  g.targets_ = std::move(targets);
  g.weights_ = std::move(weights);
  return g;
}

double CommGraph::total_volume() const {
  double sum = 0.0;
  for (const Weight w : weights_) sum += w;
  return sum * cost_scale();
}

}  // namespace treematch
