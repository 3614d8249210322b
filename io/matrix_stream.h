// Row-block streaming of communication matrices: the interface every matrix reader offers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "io/matrix_reader.h"
#include "kernels/types.h"

namespace treematch::io {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// A block stops growing once it holds this many entries (~12 MiB of targets and weights)...
inline constexpr Offset kRowBlockEntries = Offset{1} << 20;
/// ... or this many rows.
inline constexpr Index kRowBlockRows = 4096;

/// A square matrix read in row order, one block of consecutive rows at a time, so that a converter
/// holds one block and never the whole matrix. Rows are the readers' "directed rows": the
/// off-diagonal entries > 0 of row i of the file, sorted by column, without duplicates (the
/// diagonal is checked and dropped, as everywhere in treematch).
class MatrixRowSource {
 public:
  virtual ~MatrixRowSource() = default;
  MatrixRowSource() = default;
  MatrixRowSource(const MatrixRowSource&) = delete;
  MatrixRowSource& operator=(const MatrixRowSource&) = delete;

  /// The matrix order n, known as soon as the source is open.
  [[nodiscard]] virtual Index size() const = 0;

  /// Appends the next block of rows to `rows`: one offsets entry per row, continuing from
  /// rows.offsets.back(); rows.n is not touched. Returns the number of rows appended: at least 1
  /// while rows remain (about kRowBlockEntries entries or kRowBlockRows rows at most, but a single
  /// longer row is never split), 0 once all n rows were returned, and by then the whole input has
  /// been validated. Throws InputError naming the file for anything malformed, possibly only when
  /// the last block is asked for (a missing row, a METIS edge without its reverse...).
  virtual Index append_rows(kernels::Csr& rows) = 0;

  /// Entries the whole matrix is expected to hold (to reserve memory), 0 when unknown.
  [[nodiscard]] virtual Offset expected_entries() const { return 0; }
};

/// Reads all remaining rows of `source` into one CSR (rows.n = source.size()).
kernels::Csr read_all_rows(MatrixRowSource& source);

/// Hands the rows of a source over one at a time, in order, keeping only the current block.
class RowCursor {
 public:
  /// One row: its columns (sorted) and weights, valid until the next call of next().
  struct Row {
    std::span<const Index> targets;
    std::span<const Weight> weights;
  };

  explicit RowCursor(MatrixRowSource& source) : source_(source) {}

  /// The next row (0, 1, ..., n - 1). Throws std::out_of_range after the last one, and whatever
  /// the source throws; the source's final validation runs when the last row is handed over.
  Row next();

 private:
  MatrixRowSource& source_;
  kernels::Csr block_;
  Index position_ = 0;  ///< next row of block_ to hand over
  Index block_rows_ = 0;
  Index handed_ = 0;  ///< rows handed over so far
};

/// Fills `values` (n entries, zeroed before the call) with row `row` of the matrix.
using DenseRowProducer = std::function<void(Index row, std::span<double> values)>;

/// A source whose rows come from a dense row producer, asked once per row in order (its zeros and
/// its diagonal are dropped). Throws std::invalid_argument from append_rows if the producer gives a
/// negative, NaN or infinite value (a programming error, not bad input).
std::unique_ptr<MatrixRowSource> dense_producer_source(Index n, DenseRowProducer produce_row);

/// The 'avg' metric of two sources of the same order: size / count entry by entry, only where both
/// hold an entry. Throws InputError(path, "the size matrix has .. rows but <count_name> has ..")
/// when the orders differ.
std::unique_ptr<MatrixRowSource> average_source(std::unique_ptr<MatrixRowSource> size,
                                                std::unique_ptr<MatrixRowSource> count,
                                                const std::string& path,
                                                const std::string& count_name);

/// Opens `path` as read_matrix() would (same format detection, same metric rules and the same
/// InputError messages) but as a stream of row blocks. `metric` picks the quantity when the input
/// carries both (see has_both_metrics). METIS files are checked for symmetry while streaming by an
/// O(n)-memory fingerprint; when it fails, the file is read once more in full to name the first
/// edge without its reverse. `check`, if given, is called with the order before any row is
/// handed over (HDF5: before the CSR indptr is read; dense text and CSV: once the first row gave
/// it).
std::unique_ptr<MatrixRowSource> open_matrix_source(const std::string& path, Metric metric,
                                                    const HeaderCheck& check = {});

/// True when `path` carries both bytes and message counts: a MapLib "X.size.csv"/"X.count.csv"
/// pair whose sibling exists, or an HDF5 file with /msg (and /size or /matrix).
/// Throws InputError when the file cannot be opened.
bool has_both_metrics(const std::string& path);

}  // namespace treematch::io
