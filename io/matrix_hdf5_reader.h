// Reads communication matrices from HDF5 files (dense 2-D dataset or scipy CSR group).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/matrix_stream.h"
#include "kernels/types.h"

namespace treematch::io {

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
                            const HeaderCheck& check = {});
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

  /// Collective over the communicator of a reader opened by open_hdf5_matrix_collective
  /// (io/matrix_hdf5_collective_reader.h): every rank appends its own rows
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
  /// open_hdf5_matrix_collective (io/matrix_hdf5_collective_reader.h) builds its reader through
  /// this, so that its MPI_Comm keeps <mpi.h> out of this header.
  friend struct Hdf5CollectiveOpen;
  explicit Hdf5MatrixReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads the whole matrix at `object` of `path` as directed rows (rows.n = n).
kernels::Csr read_hdf5_matrix_rows(const std::string& path, const std::string& object);

/// The matrix at `object` of `path` as a stream of row blocks (Hdf5MatrixReader::block_end);
/// `check` judges the order before any row is read (see Hdf5MatrixReader).
std::unique_ptr<MatrixRowSource> open_hdf5_row_source(const std::string& path,
                                                      const std::string& object,
                                                      const HeaderCheck& check = {});

}  // namespace treematch::io
