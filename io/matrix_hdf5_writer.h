// Writes communication matrices and attributes into HDF5 files, serially (dense or CSR layout).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/hdf5_error.h"
#include "io/matrix_stream.h"
#include "kernels/types.h"

namespace treematch::io {

/// Whether a writer starts a new file or adds an object to an existing one.
enum class Hdf5WriteMode {
  kTruncate,  ///< create the file, replacing any existing one
  kAppend,    ///< open an existing file read-write and add the object
};

/// How the writers lay the datasets out.
struct Hdf5WriteOptions {
  /// Deflate (level 4) every chunked dataset, when the filter is available. Without it files are
  /// larger but dense reads are no longer bound by zlib.
  bool compress = true;
  /// Dense datasets: rows per chunk; 0 = whole rows, as many as fit in ~1 MiB (a row longer than
  /// 1 MiB is cut into 1 MiB chunks). Ignored by the CSR writers, whose 1-D chunks hold 2^17
  /// entries (1 MiB), or all entries when there are fewer.
  kernels::Index chunk_rows = 0;
};

/// Writes `matrix` as a csr_matrix group `object` (default "/matrix"): data (float64), indices
/// (int64), indptr (int64), attributes shape = [n, n] (int64), encoding-type = "csr_matrix" and
/// encoding-version = "0.1.0"; datasets chunked and, unless options.compress is false,
/// deflate-compressed. Throws Hdf5Error on failure and std::invalid_argument if the arrays do not
/// form an n-row CSR.
void write_matrix_hdf5_csr(const std::string& path, const kernels::CsrView& matrix,
                           const std::string& object = "/matrix",
                           Hdf5WriteMode mode = Hdf5WriteMode::kTruncate,
                           const Hdf5WriteOptions& options = {});

/// Writes the same csr_matrix group as write_matrix_hdf5_csr, row block by row block, so that the
/// matrix is never held: data and indices are chunked datasets of unlimited extent that grow as
/// rows arrive (only whole chunks are written, the partial last chunk is kept until finish(), so
/// no compressed chunk is ever read back and rewritten); indptr (8 bytes per row) is kept in
/// memory and written by finish(). Nothing is readable until finish() returned; a writer destroyed
/// before that closes the file, which the caller should then delete.
class Hdf5CsrWriter {
 public:
  /// Creates the file (or opens it, kAppend) and the group. Throws Hdf5Error.
  Hdf5CsrWriter(const std::string& path, kernels::Index n, const std::string& object = "/matrix",
                Hdf5WriteMode mode = Hdf5WriteMode::kTruncate,
                const Hdf5WriteOptions& options = {});
  ~Hdf5CsrWriter();
  Hdf5CsrWriter(const Hdf5CsrWriter&) = delete;
  Hdf5CsrWriter& operator=(const Hdf5CsrWriter&) = delete;

  /// Appends the rows held by `rows` (rows.offsets.size() - 1 of them; offsets relative to
  /// rows.offsets[0]; each row sorted by column). std::invalid_argument past n rows or for column
  /// indexes outside [0, n); Hdf5Error when a write fails.
  void append_rows(const kernels::Csr& rows);

  /// Writes the pending entries, indptr and the attributes, then closes the file.
  /// std::logic_error unless exactly n rows were appended; Hdf5Error when a write fails.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes an n x n float64 dataset `object` (chunks of whole rows, see Hdf5WriteOptions), asking
/// `produce_row` for rows 0, 1, ..., n - 1 in that order so the dense matrix is never held.
/// Throws Hdf5Error, or std::invalid_argument for a chunk of 4 GiB or more.
void write_matrix_hdf5_dense(const std::string& path, kernels::Index n,
                             const DenseRowProducer& produce_row,
                             const std::string& object = "/matrix",
                             Hdf5WriteMode mode = Hdf5WriteMode::kTruncate,
                             const Hdf5WriteOptions& options = {});

/// Same, from a row-major array of n * n values (std::invalid_argument if the size differs).
void write_matrix_hdf5_dense(const std::string& path, kernels::Index n,
                             std::span<const double> values, const std::string& object = "/matrix",
                             Hdf5WriteMode mode = Hdf5WriteMode::kTruncate,
                             const Hdf5WriteOptions& options = {});

/// Sets the attribute `name` of `object` ("/" = the root group) in the existing file `path` to a
/// UTF-8 string, replacing an attribute of that name. Throws Hdf5Error.
void write_hdf5_attribute(const std::string& path, const std::string& object,
                          const std::string& name, const std::string& value);

/// Same, a scalar 64-bit integer.
void write_hdf5_attribute(const std::string& path, const std::string& object,
                          const std::string& name, std::int64_t value);

}  // namespace treematch::io
