// Reads and writes communication matrices in HDF5 (dense 2-D dataset or scipy CSR group).
#pragma once

#include <mpi.h>
#include <cstdint>

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/matrix_stream.h"
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

/// Reads, in one child process, the links to each of `objects` and the metadata of those present,
/// so that hdf5_has_object and opening a reader of these objects later fork no child of their own
/// (io/hdf5_probe.h). Throws InputError(path, ...) when HDF5 crashes or hangs on the file; errors
/// a read meets (a missing object, a bad matrix) are left to the later calls.
void probe_hdf5_objects(const std::string& path, const std::vector<std::string>& objects);

/// True when `object` of the HDF5 file `path` is a group with a link named `member` ("size");
/// false when it is a dataset or has no such link. Throws InputError(path, ...) when the file
/// cannot be read or `object` does not exist.
bool hdf5_has_group_member(const std::string& path, const std::string& object,
                           const std::string& member);

/// An n x n matrix stored in an HDF5 file, read by row blocks so that memory stays O(block + nnz).
/// `object` is either a 2-D dataset of any integer or floating-point type (read as double) or a
/// group in the scipy/anndata csr_matrix encoding: datasets "data" (numeric), "indices" and
/// "indptr" (integer) and an integer attribute "shape" = [n, n]; an attribute "encoding-type", if
/// present, must be "csr_matrix". n must be at least 1. Every value must be finite and >= 0; CSR
/// indptr must start at 0, be monotone, have n + 1 entries and end at the number of entries;
/// indices must lie in [0, n). Every dataset must store what its extent declares: all its bytes
/// (contiguous) or all its chunks (chunked; compressed chunks may be small), so that no read
/// returns the fill values of data never written. Opens the file serially; read_rows() takes a
/// row range so that ranks can share the reading.
class Hdf5MatrixReader {
 public:
  /// Opens and validates the layout, the shape and the storage (metadata only), then calls `check`
  /// (if any) with n, then reads a CSR group's indptr (in blocks, checked as they arrive); the
  /// values are checked as rows are read. Throws InputError(path, ...) naming the problem, or
  /// whatever `check` throws.
  explicit Hdf5MatrixReader(const std::string& path, const std::string& object,
                            const OrderCheck& check = {});
  /// Opens the file on every rank of `comm` at once (MPI-IO driver; collective) for
  /// read_rows_collective, with the same checks. Collective and agreed: either it succeeds on
  /// every rank or every rank throws the same AgreedError (io/agreement.h), the lowest failing
  /// rank's error, after which every rank has closed the file.
  Hdf5MatrixReader(const std::string& path, const std::string& object, MPI_Comm comm,
                   const OrderCheck& check = {});
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

  /// Collective over the communicator given at construction: every rank appends its own rows
  /// [first_row, first_row + row_count) (ranges may differ, or be empty) with collective MPI-IO
  /// transfers, every rank making the same number of H5Dread calls. Same checks as read_rows, but
  /// agreed: a bad value or a failed read on one rank (seen once that rank made all its reads)
  /// makes every rank throw the same AgreedError, so none is left inside a collective call and the
  /// file can then be closed by all.
  void read_rows_collective(kernels::Index first_row, kernels::Index row_count, kernels::Csr& rows);

  /// Where a block starting at `first_row` should end: dense, a whole number of the dataset's
  /// chunks of rows (about 32 MiB of values); CSR, up to ~4M entries (at least one row).
  [[nodiscard]] kernels::Index block_end(kernels::Index first_row) const;

  /// Entries stored in a CSR group (diagonal and explicit zeros included); 0 for a dense dataset.
  [[nodiscard]] kernels::Offset stored_entries() const;

 private:
  struct Impl;
  friend void probe_hdf5_objects(const std::string& path, const std::vector<std::string>& objects);
  /// Reads the metadata of `object` in a child process first (HDF5 may crash or loop on a
  /// damaged file), unless probe_hdf5_objects did; throws InputError naming `path` when the child
  /// dies or hangs.
  static void probe_metadata(const std::string& path, const std::string& object);
  /// Reads what opening `object` reads before any row, here (no child).
  static void read_metadata(const std::string& path, const std::string& object);
  std::unique_ptr<Impl> impl_;
};

/// Reads the whole matrix at `object` of `path` as directed rows (rows.n = n).
kernels::Csr read_hdf5_matrix_rows(const std::string& path, const std::string& object);

/// The matrix at `object` of `path` as a stream of row blocks (Hdf5MatrixReader::block_end);
/// `check` judges the order before any row is read (see Hdf5MatrixReader).
std::unique_ptr<MatrixRowSource> open_hdf5_row_source(const std::string& path,
                                                      const std::string& object,
                                                      const OrderCheck& check = {});

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
