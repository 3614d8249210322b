// The communication pattern: a symmetric sparse matrix over processes (the model every phase uses).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// One directed entry of a matrix as read from a file: `row` sends `weight` to `col`.
struct Triplet {
  Index row;
  Index col;
  Weight weight;
};

/// Communication graph of p processes: symmetric CSR, no diagonal, rows sorted, no zero entries.
/// A directed input C is stored as C + C^T; a symmetric one as C. `cost_scale` turns a sum over
/// all stored entries into the sum over i != j of the *input* C (1 when symmetric, 1/2 when
/// symmetrised), so reported costs are those of the file the user gave.
class CommGraph {
 public:
  CommGraph() = default;

  /// Builds from directed rows (CSR with rows sorted by column, entries > 0, no diagonal).
  /// If the rows are not symmetric they are symmetrised as C + C^T.
  static CommGraph from_directed_rows(Index n, std::vector<Offset> offsets,
                                      std::vector<Index> targets, std::vector<Weight> weights);

  /// Builds from unordered directed triplets (any order, duplicates summed, diagonal dropped).
  static CommGraph from_triplets(Index n, std::vector<Triplet> triplets);

  /// Builds from an already symmetric CSR (e.g. a METIS graph); the caller checked symmetry.
  /// `symmetrised`: the rows are C + C^T of a directed input C (costs are then halved).
  static CommGraph from_symmetric_csr(Index n, std::vector<Offset> offsets,
                                      std::vector<Index> targets, std::vector<Weight> weights,
                                      bool symmetrised = false);

  [[nodiscard]] Index size() const { return n_; }
  [[nodiscard]] Offset nnz() const { return static_cast<Offset>(targets_.size()); }
  [[nodiscard]] bool was_symmetrised() const { return symmetrised_; }
  [[nodiscard]] double cost_scale() const { return symmetrised_ ? 0.5 : 1.0; }
  [[nodiscard]] kernels::CsrView view() const {
    return kernels::CsrView{n_, offsets_, targets_, weights_};
  }

  /// Total volume over i != j of the input matrix.
  [[nodiscard]] double total_volume() const;

 private:
  Index n_ = 0;
  bool symmetrised_ = false;
  std::vector<Offset> offsets_{0};
  std::vector<Index> targets_;
  std::vector<Weight> weights_;
};

/// Two order-free checksums of directed rows (rows [first_row, ...) of an n x n matrix): the sums
/// modulo 2^64 of hash(i, j, w) and of hash(j, i, w) over the entries. Over the whole matrix they
/// are equal exactly when the entries are symmetric (an asymmetric matrix passes with probability
/// ~2^-64); being sums, the checksums of row blocks add up (MPI ranks) to those of the matrix.
struct SymmetryChecksums {
  std::uint64_t forward = 0;
  std::uint64_t backward = 0;
};
SymmetryChecksums symmetry_checksums(kernels::CsrView rows, Index first_row);

/// Row-wise sum of two matrices with the same rows (each row sorted): for C + C^T, a's weight
/// comes first in every sum.
kernels::Csr add_rows(kernels::CsrView a, kernels::CsrView b);

}  // namespace treematch
