// Writes CSR matrices into one HDF5 file from every rank of a communicator at once (parallel
// HDF5, collective I/O): each rank holds a block of consecutive rows.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "io/hdf5_error.h"
#include "kernels/types.h"

namespace treematch::io {

/// Thrown on the ranks where nothing failed when a step failed on another rank of the
/// communicator (that rank threw the Hdf5Error naming the call).
class Hdf5PeerError : public Hdf5Error {
 public:
  using Hdf5Error::Hdf5Error;
};

/// An HDF5 file created by every rank of `comm` (MPI-IO driver). Every member function is
/// collective and ends with an agreement: either it succeeds on every rank, or every rank throws
/// (the lowest rank where a call failed its Hdf5Error or std::invalid_argument, the others
/// Hdf5PeerError), so no rank is left waiting in a later collective call. Groups are written in the
/// csr_matrix layout Hdf5MatrixReader reads: data (float64), indices (int64), indptr (int64),
/// attributes shape = [n, n] (int64), encoding-type = "csr_matrix", encoding-version = "0.1.0";
/// datasets are contiguous and uncompressed (every rank writes its own slice with collective
/// transfers).
class Hdf5ParallelCsrFile {
 public:
  /// Creates (truncates) `path` on every rank of `comm`; `path` must name the same file for
  /// every rank (a file system they all see).
  Hdf5ParallelCsrFile(MPI_Comm comm, const std::string& path);
  /// Closes the file if close() was not called (errors ignored; collective like close()).
  ~Hdf5ParallelCsrFile();
  Hdf5ParallelCsrFile(const Hdf5ParallelCsrFile&) = delete;
  Hdf5ParallelCsrFile& operator=(const Hdf5ParallelCsrFile&) = delete;

  /// Writes the n x n matrix `object` (e.g. "/p2p/size"; missing parent groups are created).
  /// `rows` holds this rank's rows (rows.offsets.size() - 1 of them, each sorted by column):
  /// they follow the rows of the lower ranks. The row counts of all ranks must add up to n and
  /// columns must lie in [0, n): std::invalid_argument (on every rank) otherwise.
  void write(const std::string& object, kernels::Index n, const kernels::Csr& rows);

  /// Sets the attribute `name` of the existing group or dataset `object` ("/" = the root) to a
  /// UTF-8 string, or to a 64-bit integer (the same value on every rank).
  void write_attribute(const std::string& object, const std::string& name,
                       const std::string& value);
  void write_attribute(const std::string& object, const std::string& name, std::int64_t value);

  /// Closes the file, reporting a failed final flush.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace treematch::io
