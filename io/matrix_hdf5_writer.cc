// Writes communication matrices and attributes into HDF5 files, serially (dense or CSR layout).
#include "io/matrix_hdf5_writer.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
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
using hdf5::kBlockValues;
using hdf5::kMaxBlockRows;
using hdf5::make_link_plist;
using hdf5::QuietErrors;
using hdf5::row_block;
using hdf5::RowBlock;
using hdf5::Site;
using hdf5::write_csr_attributes;
using hdf5::write_string_attribute;

namespace {

using kernels::Index;
using kernels::Offset;

/// Target size of a written chunk, in values (1 MiB of doubles): whole dense rows, or CSR entries.
constexpr hsize_t kChunkValues = hsize_t{1} << 17;
/// Largest chunk HDF5 accepts is 4 GiB - 1 bytes.
constexpr hsize_t kMaxChunkBytes = (hsize_t{1} << 32) - 1;
constexpr unsigned kDeflateLevel = 4;

Handle make_chunked_plist(const Site& site, int rank, const hsize_t* chunk, bool compress) {
  Handle plist = site.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
  site.check(H5Pset_chunk(plist.get(), rank, chunk), "H5Pset_chunk");
  if (!compress) return plist;
  const htri_t deflate = H5Zfilter_avail(H5Z_FILTER_DEFLATE);
  if (deflate < 0) site.call_failed("H5Zfilter_avail", {});
  if (deflate > 0) site.check(H5Pset_deflate(plist.get(), kDeflateLevel), "H5Pset_deflate");
  return plist;
}

Handle open_for_writing(const Site& site, Hdf5WriteMode mode) {
  switch (mode) {
    case Hdf5WriteMode::kTruncate:
      return site.own(H5Fcreate(site.path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                      H5Fclose, "H5Fcreate");
    case Hdf5WriteMode::kAppend:
      return site.own(H5Fopen(site.path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "H5Fopen");
  }
  site.fail("unknown write mode");
}

/// Writes a 1-D dataset `name` in `group` (chunked, and compressed if asked, unless empty).
void write_1d(const Site& site, hid_t group, const char* name, hid_t file_type, hid_t memory_type,
              const void* data, hsize_t length, bool compress) {
  const Handle space =
      site.own(H5Screate_simple(1, &length, nullptr), H5Sclose, "H5Screate_simple", name);
  Handle plist;
  if (length > 0) {
    const hsize_t chunk = std::min(length, kChunkValues);
    plist = make_chunked_plist(site, 1, &chunk, compress);
  }
  const hid_t create_plist = length > 0 ? plist.get() : H5P_DEFAULT;
  const Handle dataset = site.own(
      H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, create_plist, H5P_DEFAULT),
      H5Dclose, "H5Dcreate2", name);
  if (length > 0) {
    site.check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
               "H5Dwrite", name);
  }
}

}  // namespace

void write_matrix_hdf5_csr(const std::string& path, const kernels::CsrView& matrix,
                           const std::string& object, Hdf5WriteMode mode,
                           const Hdf5WriteOptions& options) {
  if (matrix.n < 0 || matrix.offsets.size() != static_cast<std::size_t>(matrix.n) + 1 ||
      matrix.offsets[0] != 0 ||
      matrix.offsets.back() != static_cast<Offset>(matrix.targets.size()) ||
      matrix.targets.size() != matrix.weights.size()) {
    throw std::invalid_argument("write_matrix_hdf5_csr: the arrays do not form a CSR of " +
                                std::to_string(matrix.n) + " rows");
  }
  const QuietErrors quiet;
  const Site site(path, /*reading=*/false);
  Handle file = open_for_writing(site, mode);
  {
    const Handle link_plist = make_link_plist(site);
    const Handle group =
        site.own(H5Gcreate2(file.get(), object.c_str(), link_plist.get(), H5P_DEFAULT, H5P_DEFAULT),
                 H5Gclose, "H5Gcreate2", object);
    write_1d(site, group.get(), "data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, matrix.weights.data(),
             matrix.weights.size(), options.compress);
    write_1d(site, group.get(), "indices", H5T_STD_I64LE, H5T_NATIVE_INT32, matrix.targets.data(),
             matrix.targets.size(), options.compress);
    write_1d(site, group.get(), "indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, matrix.offsets.data(),
             matrix.offsets.size(), options.compress);
    write_csr_attributes(site, group.get(), matrix.n);
  }
  close_written(site, file);
}

struct Hdf5CsrWriter::Impl {
  Site site;
  std::string object;
  Index n;
  Hdf5WriteOptions options;
  Handle file;
  Handle group;
  Handle data;                                ///< created by the first flush
  Handle indices;                             ///< created by the first flush
  std::vector<double> pending_data;           ///< entries not written yet (less than a chunk
  std::vector<std::int64_t> pending_columns;  ///< after each flush)
  std::vector<std::int64_t> indptr{0};
  hsize_t written = 0;  ///< entries in the datasets
  bool finished = false;

  Impl(const std::string& path, Index order, std::string name, const Hdf5WriteOptions& opts)
      : site(path, /*reading=*/false), object(std::move(name)), n(order), options(opts) {}

  /// Creates data and indices: extendible with 1 MiB chunks, or (when everything is written at
  /// once, by finish) of fixed size with a single chunk.
  void create_datasets(bool growing, hsize_t length) {
    const hsize_t unlimited = H5S_UNLIMITED;
    const hsize_t initial = growing ? 0 : length;
    const hsize_t chunk = growing ? kChunkValues : std::max<hsize_t>(length, 1);
    const Handle plist = make_chunked_plist(site, 1, &chunk, options.compress);
    const auto create = [&](const char* name, hid_t type) {
      const std::string what = object + "/" + name;
      const Handle space = site.own(H5Screate_simple(1, &initial, growing ? &unlimited : nullptr),
                                    H5Sclose, "H5Screate_simple", what);
      const hid_t create_plist = length > 0 || growing ? plist.get() : H5P_DEFAULT;
      return site.own(
          H5Dcreate2(group.get(), name, type, space.get(), H5P_DEFAULT, create_plist, H5P_DEFAULT),
          H5Dclose, "H5Dcreate2", what);
    };
    data = create("data", H5T_IEEE_F64LE);
    indices = create("indices", H5T_STD_I64LE);
  }

  void append_to(const Handle& dataset, const char* name, hid_t memory_type, const void* buffer,
                 hsize_t count) {
    const std::string what = object + "/" + name;
    const hsize_t size = written + count;
    site.check(H5Dset_extent(dataset.get(), &size), "H5Dset_extent", what);
    const Handle file_space = site.own(H5Dget_space(dataset.get()), H5Sclose, "H5Dget_space", what);
    site.check(
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &written, nullptr, &count, nullptr),
        "H5Sselect_hyperslab", what);
    const Handle memory_space =
        site.own(H5Screate_simple(1, &count, nullptr), H5Sclose, "H5Screate_simple", what);
    site.check(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(),
                        H5P_DEFAULT, buffer),
               "H5Dwrite", what);
  }

  /// Writes the whole chunks pending (all pending entries when `last`).
  void flush(bool last) {
    const hsize_t pending = pending_data.size();
    const hsize_t count = last ? pending : pending / kChunkValues * kChunkValues;
    if (data.get() < 0) {
      if (count == 0 && !last) return;
      create_datasets(/*growing=*/!last, pending);
      if (last) {
        if (pending > 0) {
          site.check(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                              pending_data.data()),
                     "H5Dwrite", object + "/data");
          site.check(H5Dwrite(indices.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                              pending_columns.data()),
                     "H5Dwrite", object + "/indices");
        }
        written = pending;
        pending_data.clear();
        pending_columns.clear();
        return;
      }
    }
    if (count == 0) return;
    append_to(data, "data", H5T_NATIVE_DOUBLE, pending_data.data(), count);
    append_to(indices, "indices", H5T_NATIVE_INT64, pending_columns.data(), count);
    written += count;
    pending_data.erase(pending_data.begin(),
                       pending_data.begin() + static_cast<std::ptrdiff_t>(count));
    pending_columns.erase(pending_columns.begin(),
                          pending_columns.begin() + static_cast<std::ptrdiff_t>(count));
  }
};

Hdf5CsrWriter::Hdf5CsrWriter(const std::string& path, Index n, const std::string& object,
                             Hdf5WriteMode mode, const Hdf5WriteOptions& options)
    : impl_(std::make_unique<Impl>(path, n, object, options)) {
  if (n < 0) throw std::invalid_argument("Hdf5CsrWriter: negative order");
  const QuietErrors quiet;
  Impl& w = *impl_;
  w.indptr.reserve(static_cast<std::size_t>(n) + 1);
  w.file = open_for_writing(w.site, mode);
  const Handle link_plist = make_link_plist(w.site);
  w.group = w.site.own(
      H5Gcreate2(w.file.get(), object.c_str(), link_plist.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Gclose, "H5Gcreate2", object);
}

Hdf5CsrWriter::~Hdf5CsrWriter() = default;

void Hdf5CsrWriter::append_rows(const kernels::Csr& rows) {
  Impl& w = *impl_;
  const std::size_t count = rows.offsets.empty() ? 0 : rows.offsets.size() - 1;
  if (w.finished ||
      static_cast<std::size_t>(w.indptr.size() - 1) + count > static_cast<std::size_t>(w.n)) {
    throw std::invalid_argument(fmt::format("Hdf5CsrWriter::append_rows: more than {} rows", w.n));
  }
  if (count == 0) return;
  const auto first = static_cast<std::size_t>(rows.offsets.front());
  const auto last = static_cast<std::size_t>(rows.offsets.back());
  for (std::size_t e = first; e < last; ++e) {
    if (rows.targets[e] < 0 || rows.targets[e] >= w.n) {
      throw std::invalid_argument(fmt::format(
          "Hdf5CsrWriter::append_rows: column {} outside [0, {})", rows.targets[e], w.n));
    }
  }
  const std::int64_t base = w.indptr.back() - static_cast<std::int64_t>(first);
  for (std::size_t r = 1; r <= count; ++r) w.indptr.push_back(base + rows.offsets[r]);
  w.pending_data.insert(w.pending_data.end(),
                        rows.weights.begin() + static_cast<std::ptrdiff_t>(first),
                        rows.weights.begin() + static_cast<std::ptrdiff_t>(last));
  w.pending_columns.insert(w.pending_columns.end(),
                           rows.targets.begin() + static_cast<std::ptrdiff_t>(first),
                           rows.targets.begin() + static_cast<std::ptrdiff_t>(last));
  const QuietErrors quiet;
  w.flush(/*last=*/false);
}

void Hdf5CsrWriter::finish() {
  Impl& w = *impl_;
  if (w.finished || w.indptr.size() != static_cast<std::size_t>(w.n) + 1) {
    throw std::logic_error(
        fmt::format("Hdf5CsrWriter::finish: {} of {} rows appended", w.indptr.size() - 1, w.n));
  }
  const QuietErrors quiet;
  w.flush(/*last=*/true);
  write_1d(w.site, w.group.get(), "indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, w.indptr.data(),
           w.indptr.size(), w.options.compress);
  write_csr_attributes(w.site, w.group.get(), w.n);
  w.data = Handle();
  w.indices = Handle();
  w.group = Handle();
  close_written(w.site, w.file);
  w.finished = true;
}

void write_matrix_hdf5_dense(const std::string& path, Index n, const DenseRowProducer& produce_row,
                             const std::string& object, Hdf5WriteMode mode,
                             const Hdf5WriteOptions& options) {
  if (n < 0) throw std::invalid_argument("write_matrix_hdf5_dense: negative order");
  if (options.chunk_rows < 0)
    throw std::invalid_argument("write_matrix_hdf5_dense: chunk_rows < 0");
  const QuietErrors quiet;
  const Site site(path, /*reading=*/false);
  Handle file = open_for_writing(site, mode);
  {
    const auto order = static_cast<hsize_t>(n);
    const hsize_t dims[2] = {order, order};
    const Handle space =
        site.own(H5Screate_simple(2, dims, nullptr), H5Sclose, "H5Screate_simple", object);
    // Chunks of whole rows, ~1 MiB unless asked otherwise (a row above 1 MiB is cut in 1 MiB
    // pieces); blocks written are whole numbers of chunk rows, so no chunk is written twice.
    const hsize_t rows_cap = std::max<hsize_t>(order, 1);
    const hsize_t chunk_rows =
        options.chunk_rows > 0
            ? std::min<hsize_t>(static_cast<hsize_t>(options.chunk_rows), rows_cap)
            : std::clamp<hsize_t>(kChunkValues / rows_cap, 1, rows_cap);
    const hsize_t chunk_cols = options.chunk_rows > 0 ? rows_cap : std::min(rows_cap, kChunkValues);
    if (chunk_rows * chunk_cols * sizeof(double) > kMaxChunkBytes) {
      throw std::invalid_argument(fmt::format(
          "write_matrix_hdf5_dense: a chunk of {} rows of {} values reaches 4 GiB (HDF5's limit)",
          chunk_rows, chunk_cols));
    }
    Handle plist;
    if (n > 0) {
      const hsize_t chunk[2] = {chunk_rows, chunk_cols};
      plist = make_chunked_plist(site, 2, chunk, options.compress);
    }
    const Handle link_plist = make_link_plist(site);
    const Handle dataset =
        site.own(H5Dcreate2(file.get(), object.c_str(), H5T_IEEE_F64LE, space.get(),
                            link_plist.get(), n > 0 ? plist.get() : H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose, "H5Dcreate2", object);
    hsize_t block =
        std::clamp<hsize_t>(kBlockValues / std::max<hsize_t>(order, 1), 1, kMaxBlockRows);
    block = std::max(chunk_rows, block / chunk_rows * chunk_rows);
    std::vector<double> buffer;
    for (hsize_t r = 0; r < order; r += block) {
      const hsize_t count[2] = {std::min(block, order - r), order};
      const hsize_t start[2] = {r, 0};
      buffer.assign(static_cast<std::size_t>(count[0] * order), 0.0);
      for (hsize_t i = 0; i < count[0]; ++i) {
        produce_row(static_cast<Index>(r + i),
                    std::span<double>(buffer).subspan(static_cast<std::size_t>(i * order),
                                                      static_cast<std::size_t>(order)));
      }
      const RowBlock spaces = row_block(site, dataset.get(), start, count, object);
      site.check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, spaces.memory.get(), spaces.file.get(),
                          H5P_DEFAULT, buffer.data()),
                 "H5Dwrite", object);
    }
  }
  close_written(site, file);
}

void write_matrix_hdf5_dense(const std::string& path, Index n, std::span<const double> values,
                             const std::string& object, Hdf5WriteMode mode,
                             const Hdf5WriteOptions& options) {
  const auto order = static_cast<std::size_t>(std::max<Index>(n, 0));
  if (n < 0 || values.size() != order * order) {
    throw std::invalid_argument(
        "write_matrix_hdf5_dense: expected n * n = " + std::to_string(order * order) +
        " values, got " + std::to_string(values.size()));
  }
  write_matrix_hdf5_dense(
      path, n,
      [&](Index row, std::span<double> out) {
        const auto first =
            values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * order);
        std::copy(first, first + static_cast<std::ptrdiff_t>(order), out.begin());
      },
      object, mode, options);
}

namespace {

/// Opens `object` of an existing file for adding the attribute `name` (removed if present) and
/// hands it to `write`.
template <typename Write>
void with_attribute_owner(const std::string& path, const std::string& object,
                          const std::string& name, const Write& write) {
  const QuietErrors quiet;
  const Site site(path, /*reading=*/false);
  Handle file = open_for_writing(site, Hdf5WriteMode::kAppend);
  {
    const Handle owner =
        site.own(H5Oopen(file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", object);
    const htri_t exists = H5Aexists(owner.get(), name.c_str());
    if (exists < 0) site.call_failed("H5Aexists", name);
    if (exists > 0) site.check(H5Adelete(owner.get(), name.c_str()), "H5Adelete", name);
    write(site, owner.get());
  }
  close_written(site, file);
}

}  // namespace

void write_hdf5_attribute(const std::string& path, const std::string& object,
                          const std::string& name, const std::string& value) {
  with_attribute_owner(path, object, name, [&](const Site& site, hid_t owner) {
    write_string_attribute(site, owner, name.c_str(), value.c_str());
  });
}

void write_hdf5_attribute(const std::string& path, const std::string& object,
                          const std::string& name, std::int64_t value) {
  with_attribute_owner(path, object, name, [&](const Site& site, hid_t owner) {
    const Handle space = site.own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", name);
    const Handle attribute = site.own(
        H5Acreate2(owner, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Aclose, "H5Acreate2", name);
    site.check(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &value), "H5Awrite", name);
  });
}

}  // namespace treematch::io
