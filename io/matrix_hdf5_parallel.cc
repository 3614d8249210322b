// Writes CSR matrices into one HDF5 file from every rank of a communicator at once (MPI-IO).
#include "io/matrix_hdf5_parallel.h"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/hdf5_handle.h"

namespace treematch::io {

using hdf5::close_written;
using hdf5::Handle;
using hdf5::make_link_plist;
using hdf5::QuietErrors;
using hdf5::Site;
using hdf5::write_csr_attributes;
using hdf5::write_string_attribute;

namespace {

using kernels::Index;
using kernels::Offset;

/// Runs `step` on this rank and agrees with every rank of `comm` on the outcome: returns on every
/// rank when it succeeded everywhere, otherwise throws on every rank so that no rank goes on to a
/// collective call alone: the lowest failing rank its own error, the others Hdf5PeerError naming
/// that rank (one message per failure, not one per rank).
template <typename Step>
void agreed_step(MPI_Comm comm, const std::string& path, const Step& step) {
  std::string error;
  bool invalid = false;
  try {
    step();
  } catch (const std::invalid_argument& e) {
    error = e.what();
    invalid = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  int rank = 0;
  int size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    throw Hdf5Error(path + ": MPI_Comm_rank/MPI_Comm_size failed (agreeing on a parallel write)");
  }
  const int mine = error.empty() ? size : rank;
  int first_failed = size;
  if (MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
    throw Hdf5Error(path + ": MPI_Allreduce failed (agreeing on a parallel write)");
  }
  if (first_failed == size) return;
  if (first_failed != rank) {
    throw Hdf5PeerError(fmt::format("{}: a parallel write failed on rank {}", path, first_failed));
  }
  if (invalid) throw std::invalid_argument(error);
  throw Hdf5Error(error);
}

/// Creates the 1-D dataset `name` of `length` elements in `group` and writes, with the collective
/// transfer list `transfer`, this rank's `blocks` of it ({start, count}, increasing, disjoint)
/// from `buffer`, which holds their elements in that order.
void write_parallel_1d(const Site& site, hid_t group, const std::string& object, const char* name,
                       hid_t file_type, hid_t memory_type, hsize_t length,
                       std::span<const std::pair<hsize_t, hsize_t>> blocks, const void* buffer,
                       hid_t create, hid_t transfer) {
  const std::string what = object + "/" + name;
  const Handle space =
      site.own(H5Screate_simple(1, &length, nullptr), H5Sclose, "H5Screate_simple", what);
  const Handle dataset =
      site.own(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, create, H5P_DEFAULT),
               H5Dclose, "H5Dcreate2", what);
  if (length == 0) return;  // the same on every rank: nobody writes
  const Handle file_space = site.own(H5Dget_space(dataset.get()), H5Sclose, "H5Dget_space", what);
  site.check(H5Sselect_none(file_space.get()), "H5Sselect_none", what);
  hsize_t selected = 0;
  for (const auto& [start, count] : blocks) {
    if (count == 0) continue;
    site.check(
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_OR, &start, nullptr, &count, nullptr),
        "H5Sselect_hyperslab", what);
    selected += count;
  }
  // A rank with nothing to write still takes part in the collective write, with empty selections.
  const hsize_t memory_length = std::max<hsize_t>(selected, 1);
  const Handle memory_space =
      site.own(H5Screate_simple(1, &memory_length, nullptr), H5Sclose, "H5Screate_simple", what);
  if (selected == 0) site.check(H5Sselect_none(memory_space.get()), "H5Sselect_none", what);
  const std::int64_t placeholder = 0;
  site.check(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(), transfer,
                      selected > 0 ? buffer : &placeholder),
             "H5Dwrite", what);
}

void check_mpi_call(int rc, const char* call, const std::string& path) {
  if (rc != MPI_SUCCESS) throw Hdf5Error(path + ": " + call + " failed");
}

}  // namespace

struct Hdf5ParallelCsrFile::Impl {
  MPI_Comm comm;
  Site site;
  Handle file;
  Handle transfer;  ///< H5FD_MPIO_COLLECTIVE transfers
  bool closed = false;

  Impl(MPI_Comm c, const std::string& path) : comm(c), site(path, /*reading=*/false) {}
};

Hdf5ParallelCsrFile::Hdf5ParallelCsrFile(MPI_Comm comm, const std::string& path)
    : impl_(std::make_unique<Impl>(comm, path)) {
  const QuietErrors quiet;
  Impl& f = *impl_;
  agreed_step(comm, path, [&] {
    const Handle access = f.site.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
    f.site.check(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    f.file = f.site.own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose,
                        "H5Fcreate");
    f.transfer = f.site.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate");
    f.site.check(H5Pset_dxpl_mpio(f.transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  });
}

Hdf5ParallelCsrFile::~Hdf5ParallelCsrFile() {
  try {
    close();
  } catch (...) {
    // Already reported by the step that failed; a destructor never throws.
  }
}

void Hdf5ParallelCsrFile::write(const std::string& object, Index n, const kernels::Csr& rows) {
  Impl& f = *impl_;
  const std::string& path = f.site.path();
  const std::size_t local_rows = rows.offsets.empty() ? 0 : rows.offsets.size() - 1;
  const Offset first = rows.offsets.empty() ? 0 : rows.offsets.front();
  const Offset last = rows.offsets.empty() ? 0 : rows.offsets.back();
  // This rank's rows and entries follow those of the lower ranks.
  const std::int64_t local[2] = {static_cast<std::int64_t>(local_rows), last - first};
  std::int64_t before[2] = {0, 0};
  std::int64_t total[2] = {0, 0};
  int rank = 0;
  check_mpi_call(MPI_Comm_rank(f.comm, &rank), "MPI_Comm_rank", path);
  check_mpi_call(MPI_Exscan(local, before, 2, MPI_INT64_T, MPI_SUM, f.comm), "MPI_Exscan", path);
  if (rank == 0) before[0] = before[1] = 0;  // MPI_Exscan leaves rank 0's result undefined
  check_mpi_call(MPI_Allreduce(local, total, 2, MPI_INT64_T, MPI_SUM, f.comm), "MPI_Allreduce",
                 path);
  agreed_step(f.comm, path, [&] {
    if (n < 0 || total[0] != n) {
      throw std::invalid_argument(fmt::format(
          "{}: {}: the ranks hold {} rows of a matrix of order {}", path, object, total[0], n));
    }
    for (std::size_t r = 0; r < local_rows; ++r) {
      if (rows.offsets[r + 1] < rows.offsets[r]) {
        throw std::invalid_argument(
            fmt::format("{}: {}: row offsets are not monotone", path, object));
      }
    }
    for (Offset e = first; e < last; ++e) {
      const Index c = rows.targets[static_cast<std::size_t>(e)];
      if (c < 0 || c >= n) {
        throw std::invalid_argument(
            fmt::format("{}: {}: column {} outside [0, {})", path, object, c, n));
      }
    }
  });
  const QuietErrors quiet;
  agreed_step(f.comm, path, [&] {
    const Site& site = f.site;
    const Handle link_plist = make_link_plist(site);
    const Handle group = site.own(
        H5Gcreate2(f.file.get(), object.c_str(), link_plist.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Gclose, "H5Gcreate2", object);
    // Contiguous and never filled: every element is written once, by its rank.
    const Handle create = site.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
    site.check(H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");

    const auto entries = static_cast<hsize_t>(total[1]);
    const std::pair<hsize_t, hsize_t> slice[1] = {
        {static_cast<hsize_t>(before[1]), static_cast<hsize_t>(local[1])}};
    const std::vector<double> values(rows.weights.begin() + first, rows.weights.begin() + last);
    const std::vector<std::int64_t> columns(rows.targets.begin() + first,
                                            rows.targets.begin() + last);
    write_parallel_1d(site, group.get(), object, "data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, entries,
                      slice, values.data(), create.get(), f.transfer.get());
    write_parallel_1d(site, group.get(), object, "indices", H5T_STD_I64LE, H5T_NATIVE_INT64,
                      entries, slice, columns.data(), create.get(), f.transfer.get());

    // indptr: where each of this rank's rows starts; rank 0 also writes the end, indptr[n].
    std::vector<std::int64_t> starts;
    starts.reserve(local_rows + 1);
    for (std::size_t r = 0; r < local_rows; ++r)
      starts.push_back(before[1] + (rows.offsets[r] - first));
    std::vector<std::pair<hsize_t, hsize_t>> blocks = {
        {static_cast<hsize_t>(before[0]), static_cast<hsize_t>(local_rows)}};
    if (rank == 0) {
      starts.push_back(total[1]);
      blocks.emplace_back(static_cast<hsize_t>(n), 1);
    }
    write_parallel_1d(site, group.get(), object, "indptr", H5T_STD_I64LE, H5T_NATIVE_INT64,
                      static_cast<hsize_t>(n) + 1, blocks, starts.data(), create.get(),
                      f.transfer.get());
    write_csr_attributes(site, group.get(), n);
  });
}

void Hdf5ParallelCsrFile::write_attribute(const std::string& object, const std::string& name,
                                          const std::string& value) {
  Impl& f = *impl_;
  const QuietErrors quiet;
  agreed_step(f.comm, f.site.path(), [&] {
    const Handle owner =
        f.site.own(H5Oopen(f.file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", object);
    write_string_attribute(f.site, owner.get(), name.c_str(), value.c_str());
  });
}

void Hdf5ParallelCsrFile::write_attribute(const std::string& object, const std::string& name,
                                          std::int64_t value) {
  Impl& f = *impl_;
  const QuietErrors quiet;
  agreed_step(f.comm, f.site.path(), [&] {
    const Site& site = f.site;
    const Handle owner =
        site.own(H5Oopen(f.file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", object);
    const Handle space = site.own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", name);
    const Handle attribute = site.own(
        H5Acreate2(owner.get(), name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Aclose, "H5Acreate2", name);
    site.check(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &value), "H5Awrite", name);
  });
}

void Hdf5ParallelCsrFile::close() {
  Impl& f = *impl_;
  if (f.closed) return;
  f.closed = true;
  const QuietErrors quiet;
  agreed_step(f.comm, f.site.path(), [&] {
    f.transfer = Handle();
    if (f.file.get() >= 0) close_written(f.site, f.file);
  });
}

}  // namespace treematch::io
