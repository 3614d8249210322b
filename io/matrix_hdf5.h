// Reads and writes communication matrices in HDF5 (dense 2-D dataset or scipy CSR group).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/types.h"

namespace treematch::io {

/// A failed HDF5 call while writing; what() = "<path>: <call> failed[: <HDF5's reason>]".
/// (Problems found while reading are InputError: the file is what the user gave.)
class Hdf5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// True when the HDF5 file `path` has a link named `object` (an absolute name such as "/msg").
/// Throws InputError(path, ...) when the file cannot be opened or is not readable HDF5.
bool hdf5_has_object(const std::string& path, const std::string& object);

/// An n x n matrix stored in an HDF5 file, read by row blocks so that memory stays O(block + nnz).
/// `object` is either a 2-D dataset of any integer or floating-point type (read as double) or a
/// group in the scipy/anndata csr_matrix encoding: datasets "data" (numeric), "indices" and
/// "indptr" (integer) and an integer attribute "shape" = [n, n]; an attribute "encoding-type", if
/// present, must be "csr_matrix". Every value must be finite and >= 0; CSR indptr must start at 0,
/// be monotone, have n + 1 entries and end at the number of entries; indices must lie in [0, n).
/// Opens the file serially; read_rows() takes a row range so that ranks can share the reading.
class Hdf5MatrixReader {
 public:
  /// Opens and validates the layout and shape (the values are checked as rows are read).
  /// Throws InputError(path, ...) naming the problem.
  Hdf5MatrixReader(const std::string& path, const std::string& object);
  ~Hdf5MatrixReader();
  Hdf5MatrixReader(const Hdf5MatrixReader&) = delete;
  Hdf5MatrixReader& operator=(const Hdf5MatrixReader&) = delete;
  Hdf5MatrixReader(Hdf5MatrixReader&&) noexcept;
  Hdf5MatrixReader& operator=(Hdf5MatrixReader&&) noexcept;

  /// The matrix order n.
  [[nodiscard]] kernels::Index size() const;

  /// Appends rows [first_row, first_row + row_count) to `rows` (one offsets entry per row): their
  /// off-diagonal non-zero entries, sorted by column, duplicates of a CSR row summed. Does not
  /// touch rows.n. Throws InputError for a negative, NaN/inf or out-of-range entry.
  void read_rows(kernels::Index first_row, kernels::Index row_count, kernels::Csr& rows);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads the whole matrix at `object` of `path` as directed rows (rows.n = n).
kernels::Csr read_hdf5_matrix_rows(const std::string& path, const std::string& object);

/// Whether a writer starts a new file or adds an object to an existing one.
enum class Hdf5WriteMode {
  kTruncate,  ///< create the file, replacing any existing one
  kAppend,    ///< open an existing file read-write and add the object
};

/// Writes `matrix` as a csr_matrix group `object` (default "/matrix"): data (float64), indices
/// (int64), indptr (int64), attributes shape = [n, n] (int64), encoding-type = "csr_matrix" and
/// encoding-version = "0.1.0"; datasets chunked and deflate-compressed. Throws Hdf5Error on failure
/// and std::invalid_argument if the arrays do not form an n-row CSR.
void write_matrix_hdf5_csr(const std::string& path, const kernels::CsrView& matrix,
                           const std::string& object = "/matrix",
                           Hdf5WriteMode mode = Hdf5WriteMode::kTruncate);

/// Fills `values` (n entries, zeroed before the call) with row `row` of the matrix.
using DenseRowProducer = std::function<void(kernels::Index row, std::span<double> values)>;

/// Writes an n x n float64 dataset `object` (chunked by rows, deflate-compressed), asking
/// `produce_row` for one row at a time so the dense matrix is never held. Throws Hdf5Error.
void write_matrix_hdf5_dense(const std::string& path, kernels::Index n,
                             const DenseRowProducer& produce_row,
                             const std::string& object = "/matrix",
                             Hdf5WriteMode mode = Hdf5WriteMode::kTruncate);

/// Same, from a row-major array of n * n values (std::invalid_argument if the size differs).
void write_matrix_hdf5_dense(const std::string& path, kernels::Index n,
                             std::span<const double> values, const std::string& object = "/matrix",
                             Hdf5WriteMode mode = Hdf5WriteMode::kTruncate);

}  // namespace treematch::io
