// Reads communication matrices from HDF5 files (dense 2-D dataset or scipy CSR group).
#include "io/matrix_hdf5_reader.h"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/agreement.h"
#include "io/hdf5_handle.h"
#include "io/hdf5_probe.h"
#include "io/matrix_hdf5_collective_reader.h"

namespace treematch::io {

using hdf5::Handle;
using hdf5::hdf5_reason;
using hdf5::kBlockValues;
using hdf5::kMaxBlockRows;
using hdf5::QuietErrors;
using hdf5::row_block;
using hdf5::RowBlock;
using hdf5::Site;

namespace {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// A dense read block is rounded up to whole chunks of rows while it stays below this many values.
constexpr hsize_t kMaxAlignedBlockValues = hsize_t{1} << 24;
/// Upper bound of the chunk cache given to a dataset opened for reading (bytes).
constexpr std::size_t kMaxChunkCache = std::size_t{256} << 20;
/// Chunk cache of the CSR datasets read: a block rarely starts on a chunk boundary, so the chunk
/// it shares with the previous block must still be cached to be decompressed only once.
constexpr std::size_t kCsrChunkCache = std::size_t{32} << 20;
/// Hash slots of a chunk cache, a prime each as HDF5 recommends: the fewest that give every chunk
/// of the dataset its own slot, up to the last. HDF5 zeroes the slots at every open of the
/// dataset, so a small file's datasets get few (100003 slots are 0.8 MB to clear per open).
constexpr std::array<std::size_t, 4> kChunkCacheSlots = {521, 4099, 16411, 100003};

/// Opens a file for reading, distinguishing "cannot open" from "not HDF5".
Handle open_for_reading(const Site& site, hid_t access = H5P_DEFAULT) {
  std::FILE* probe = std::fopen(site.path().c_str(), "rb");
  if (probe == nullptr) site.fail(std::string("cannot open: ") + std::strerror(errno));
  std::fclose(probe);
  const hid_t file = H5Fopen(site.path().c_str(), H5F_ACC_RDONLY, access);
  if (file < 0) {
    const std::string reason = hdf5_reason();
    site.fail("not a readable HDF5 file (truncated or corrupt?)" +
              (reason.empty() ? "" : ": " + reason));
  }
  if (access == H5P_DEFAULT) hdf5_keep_open_in_scope(site.path());
  return Handle(file, H5Fclose);
}

bool has_link(const Site& site, hid_t location, const std::string& name) {
  const htri_t exists = H5Lexists(location, name.c_str(), H5P_DEFAULT);
  if (exists < 0) site.call_failed("H5Lexists", name);
  return exists > 0;
}

H5T_class_t type_class(const Site& site, hid_t type, const std::string& object) {
  const H5T_class_t cls = H5Tget_class(type);
  if (cls == H5T_NO_CLASS) site.call_failed("H5Tget_class", object);
  return cls;
}

/// Fails unless `type` is an integer (or, if allowed, a floating-point) type.
void require_numeric(const Site& site, hid_t type, bool allow_float, const std::string& object) {
  const H5T_class_t cls = type_class(site, type, object);
  if (cls == H5T_INTEGER || (allow_float && cls == H5T_FLOAT)) return;
  site.fail(object + " is not " + (allow_float ? "numeric" : "an integer dataset"));
}

/// Extent of a dataset that must have `rank` dimensions.
std::vector<hsize_t> extent(const Site& site, hid_t dataset, int rank, const std::string& object) {
  const Handle space = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
  const int ndims = H5Sget_simple_extent_ndims(space.get());
  if (ndims < 0) site.call_failed("H5Sget_simple_extent_ndims", object);
  if (ndims != rank) {
    site.fail(fmt::format("{} has {} dimension(s), expected {}", object, ndims, rank));
  }
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) {
    site.call_failed("H5Sget_simple_extent_dims", object);
  }
  return dims;
}

/// Reads a scalar string attribute, fixed or variable length.
std::string read_string_attribute(const Site& site, hid_t owner, const char* name,
                                  const std::string& object) {
  const std::string what = object + " attribute " + name;
  const Handle attr = site.own(H5Aopen(owner, name, H5P_DEFAULT), H5Aclose, "H5Aopen", what);
  const Handle type = site.own(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type", what);
  if (type_class(site, type.get(), what) != H5T_STRING) site.fail(what + " is not a string");
  const htri_t variable = H5Tis_variable_str(type.get());
  if (variable < 0) site.call_failed("H5Tis_variable_str", what);
  if (variable > 0) {
    const Handle memory = site.own(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy", what);
    site.check(H5Tset_size(memory.get(), H5T_VARIABLE), "H5Tset_size", what);
    const H5T_cset_t cset = H5Tget_cset(type.get());
    if (cset < 0) site.call_failed("H5Tget_cset", what);
    site.check(H5Tset_cset(memory.get(), cset), "H5Tset_cset", what);
    char* text = nullptr;
    site.check(H5Aread(attr.get(), memory.get(), static_cast<void*>(&text)), "H5Aread", what);
    std::string value = text != nullptr ? text : "";
    static_cast<void>(H5free_memory(text));
    return value;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) site.call_failed("H5Tget_size", what);
  std::string value(size, '\0');
  site.check(H5Aread(attr.get(), type.get(), value.data()), "H5Aread", what);
  value.resize(std::strlen(value.c_str()));
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

/// Reads `count` elements from offset `first` of a 1-D dataset, converted to `memory_type`.
void read_1d(const Site& site, hid_t dataset, hid_t memory_type, hsize_t first, hsize_t count,
             void* buffer, const std::string& object, hid_t transfer = H5P_DEFAULT) {
  if (count == 0) return;
  const Handle file_space = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
  site.check(
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr),
      "H5Sselect_hyperslab", object);
  const Handle memory_space =
      site.own(H5Screate_simple(1, &count, nullptr), H5Sclose, "H5Screate_simple");
  site.check(H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), transfer, buffer),
             "H5Dread", object);
}

/// This rank's share of a collective read when it has nothing (left) to read: every rank must
/// make the same number of collective H5Dread calls.
void read_nothing(const Site& site, hid_t dataset, hid_t transfer, const std::string& object) {
  const Handle file_space = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
  site.check(H5Sselect_none(file_space.get()), "H5Sselect_none", object);
  const hsize_t one = 1;
  const Handle memory_space =
      site.own(H5Screate_simple(1, &one, nullptr), H5Sclose, "H5Screate_simple");
  site.check(H5Sselect_none(memory_space.get()), "H5Sselect_none", object);
  double unused = 0.0;
  site.check(
      H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), transfer, &unused),
      "H5Dread", object);
}

/// Sorts the entries of the last row (from `start`) by column and sums duplicates, if needed.
void canonicalize_row(kernels::Csr& rows, std::size_t start) {
  bool sorted = true;
  for (std::size_t k = start + 1; k < rows.targets.size() && sorted; ++k) {
    sorted = rows.targets[k - 1] < rows.targets[k];
  }
  if (sorted) return;
  std::vector<std::pair<Index, Weight>> entries;
  entries.reserve(rows.targets.size() - start);
  for (std::size_t k = start; k < rows.targets.size(); ++k)
    entries.emplace_back(rows.targets[k], rows.weights[k]);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t out = start;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (k > 0 && entries[k].first == entries[k - 1].first) {
      rows.weights[out - 1] += entries[k].second;
    } else {
      rows.targets[out] = entries[k].first;
      rows.weights[out] = entries[k].second;
      ++out;
    }
  }
  rows.targets.resize(out);
  rows.weights.resize(out);
}

/// Hash slots for a chunk cache over a dataset of `chunks` chunks.
std::size_t chunk_cache_slots(hsize_t chunks) {
  for (const std::size_t slots : kChunkCacheSlots)
    if (chunks <= slots) return slots;
  return kChunkCacheSlots.back();
}

/// Dataset access list with a chunk cache of `bytes` (fully read chunks are evicted first) for a
/// dataset of `chunks` chunks.
Handle make_cache_plist(const Site& site, std::size_t bytes, hsize_t chunks) {
  Handle plist = site.own(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose, "H5Pcreate");
  site.check(H5Pset_chunk_cache(plist.get(), chunk_cache_slots(chunks), bytes, 1.0),
             "H5Pset_chunk_cache");
  return plist;
}

/// The chunk dimensions of a dataset, or an empty vector when it is not chunked.
std::vector<hsize_t> chunk_dims(const Site& site, hid_t dataset, int rank,
                                const std::string& object) {
  const Handle plist =
      site.own(H5Dget_create_plist(dataset), H5Pclose, "H5Dget_create_plist", object);
  const H5D_layout_t layout = H5Pget_layout(plist.get());
  if (layout < 0) site.call_failed("H5Pget_layout", object);
  if (layout != H5D_CHUNKED) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Pget_chunk(plist.get(), rank, dims.data()) != rank)
    site.call_failed("H5Pget_chunk", object);
  return dims;
}

/// a * b, or the largest hsize_t when that overflows (sizes declared by a header can be anything).
hsize_t saturating_product(hsize_t a, hsize_t b) {
  if (a != 0 && b > std::numeric_limits<hsize_t>::max() / a)
    return std::numeric_limits<hsize_t>::max();
  return a * b;
}

/// Refuses a dataset whose header declares more than the file stores. HDF5 hands back fill values
/// for whatever was never written, so a file of a few kilobytes can declare gigabytes of zeros
/// that a reader would allocate and scan. A contiguous dataset must store all its bytes; a chunked
/// one every chunk its extent covers (chunks are counted, not bytes: compressed chunks are
/// legitimately smaller than their extent); external files and virtual datasets are refused.
void require_stored(const Site& site, hid_t dataset, const std::string& object,
                    const std::vector<hsize_t>& dims) {
  hsize_t values = 1;
  std::string extent_text;
  for (const hsize_t d : dims) {
    values = saturating_product(values, d);
    if (!extent_text.empty()) extent_text += 'x';
    extent_text += std::to_string(d);
  }
  if (values == 0) return;
  const std::string declared =
      object + " declares " + extent_text + (dims.size() == 1 ? " entries" : " values");
  const Handle plist =
      site.own(H5Dget_create_plist(dataset), H5Pclose, "H5Dget_create_plist", object);
  const H5D_layout_t layout = H5Pget_layout(plist.get());
  switch (layout) {
    case H5D_COMPACT:  // the values are in the object header, all of them
      return;
    case H5D_CONTIGUOUS: {
      const int external = H5Pget_external_count(plist.get());
      if (external < 0) site.call_failed("H5Pget_external_count", object);
      if (external > 0) site.fail(object + " keeps its values in external files (not supported)");
      const Handle type = site.own(H5Dget_type(dataset), H5Tclose, "H5Dget_type", object);
      const std::size_t value_bytes = H5Tget_size(type.get());
      if (value_bytes == 0) site.call_failed("H5Tget_size", object);
      const hsize_t expected = saturating_product(values, value_bytes);
      const hsize_t stored = H5Dget_storage_size(dataset);
      if (stored == 0) site.fail(declared + " but stores none");
      if (stored < expected) {
        site.fail(
            fmt::format("{} ({} bytes) but stores only {} bytes", declared, expected, stored));
      }
      return;
    }
    case H5D_CHUNKED: {
      const std::vector<hsize_t> chunk =
          chunk_dims(site, dataset, static_cast<int>(dims.size()), object);
      hsize_t expected = 1;
      for (std::size_t k = 0; k < dims.size(); ++k) {
        if (chunk[k] == 0) site.fail(object + " has chunks of size 0");
        expected = saturating_product(expected, (dims[k] + chunk[k] - 1) / chunk[k]);
      }
      // H5S_ALL is not handled by HDF5 1.10 here: the dataset's own dataspace selects it all.
      const Handle space = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
      hsize_t stored = 0;
      site.check(H5Dget_num_chunks(dataset, space.get(), &stored), "H5Dget_num_chunks", object);
      if (stored == 0) site.fail(declared + " but stores none");
      if (stored < expected) {
        site.fail(
            fmt::format("{} in {} chunks but stores only {} of them", declared, expected, stored));
      }
      return;
    }
    case H5D_VIRTUAL:
      site.fail(object + " is a virtual dataset (not supported)");
    case H5D_LAYOUT_ERROR:
    case H5D_NLAYOUTS:
      break;
  }
  site.call_failed("H5Pget_layout", object);
}

/// The errors of a collective read: the first is kept and thrown only once this rank has made
/// every H5Dread call it owes the others (empty ones in place of the calls it skips), since a rank
/// leaving early leaves the others waiting inside a collective transfer. Outside collective
/// reading an error is thrown at once.
class DeferredErrors {
 public:
  explicit DeferredErrors(bool collective) : collective_(collective) {}

  /// Runs `read`, or `instead` (the empty read owed) once an error was kept.
  template <typename Read, typename Instead>
  void run(const Read& read, const Instead& instead) {
    if (error_) {
      try {
        instead();
      } catch (...) {
        // The first error is the one reported.
      }
      return;
    }
    try {
      read();
    } catch (...) {
      if (!collective_) throw;
      error_ = std::current_exception();
    }
  }

  /// Throws the kept error, if any.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  bool collective_;
  std::exception_ptr error_;
};

// HDF5 trusts a file's metadata: a damaged object header, symbol table or attribute can make it
// crash or loop (fuzzer findings: SIGSEGV in H5F__accum_read under H5Lexists, endless global heap
// reads). What it reads before any row is therefore read in a child process first
// (io/hdf5_probe.h); a child that dies or hangs refuses the file here, in one line, before this
// process reads it.
std::string links_read(const std::string& object) {
  return "links:" + object;
}
std::string metadata_read(const std::string& object) {
  return "metadata:" + object;
}

}  // namespace

struct Hdf5MatrixReader::Impl {
  Site site;
  std::string object;
  Handle file;
  bool csr = false;
  Index n = 0;
  Handle dense;            ///< the 2-D dataset
  Handle group;            ///< the CSR group
  Handle data;             ///< CSR values
  Handle indices;          ///< CSR column indices
  Handle indptr_set;       ///< CSR row starts (read whole once the order is accepted)
  hsize_t entries = 0;     ///< CSR entries (length of data and indices)
  hsize_t block_rows = 1;  ///< dense rows per read block
  std::vector<std::int64_t> indptr;
  std::vector<double> values;         ///< read buffer
  std::vector<std::int64_t> columns;  ///< read buffer
  Handle file_access;                 ///< MPI-IO file access (parallel reader), else invalid
  Handle transfer;                    ///< collective transfers (parallel reader), else invalid
  MPI_Comm comm = MPI_COMM_NULL;

  [[nodiscard]] hid_t transfer_plist() const {
    return transfer.get() >= 0 ? transfer.get() : H5P_DEFAULT;
  }

  Impl(const std::string& path, std::string name)
      : site(path, /*reading=*/true), object(std::move(name)) {}

  /// Opens the object and checks its layout, its shape and that the file stores what it declares
  /// (metadata only); then `check` judges the header; only then is anything of size n read.
  void open(const HeaderCheck& check) {
    file = open_for_reading(site, file_access.get() >= 0 ? file_access.get() : H5P_DEFAULT);
    if (!has_link(site, file.get(), object)) {
      site.fail("missing " + object + ": the file has no dataset or group named " + object);
    }
    Handle node =
        site.own(H5Oopen(file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", object);
    switch (H5Iget_type(node.get())) {
      case H5I_DATASET:
        dense = std::move(node);
        open_dense();
        if (check) check(MatrixHeader{n, static_cast<Offset>(n) * n});
        reopen_dense_with_cache();
        return;
      case H5I_GROUP:
        group = std::move(node);
        csr = true;
        open_csr();
        if (check) check(MatrixHeader{n, static_cast<Offset>(entries)});
        read_indptr();
        indptr_set = Handle();
        return;
      default:
        site.fail(object + " is neither a dataset nor a group");
    }
  }

  void set_order(std::int64_t rows, std::int64_t cols, const std::string& what) {
    if (rows != cols) site.fail(fmt::format("not square: {} is {}x{}", what, rows, cols));
    if (rows < 0 || rows > std::numeric_limits<Index>::max()) {
      site.fail(fmt::format("{} has an unsupported order {}", what, rows));
    }
    if (rows == 0) site.fail(what + " is 0x0: the matrix has no ranks");
    n = static_cast<Index>(rows);
  }

  void open_dense() {
    const std::vector<hsize_t> dims = extent(site, dense.get(), 2, "dataset " + object);
    const Handle type = site.own(H5Dget_type(dense.get()), H5Tclose, "H5Dget_type", object);
    require_numeric(site, type.get(), /*allow_float=*/true, "dataset " + object);
    if (dims[0] != dims[1]) {
      site.fail(fmt::format("not square: dataset {} is {}x{}", object, dims[0], dims[1]));
    }
    if (dims[0] > static_cast<hsize_t>(std::numeric_limits<Index>::max())) {
      site.fail(fmt::format("dataset {} has an unsupported order {}", object, dims[0]));
    }
    set_order(static_cast<std::int64_t>(dims[0]), static_cast<std::int64_t>(dims[1]),
              "dataset " + object);
    require_stored(site, dense.get(), object, dims);
  }

  /// Chooses the read block and reopens the dataset with a chunk cache that holds one band of
  /// chunks across the rows, so that a chunk is decompressed once even when a read block ends
  /// inside it (chunks of h5py or other writers need not be whole rows).
  void reopen_dense_with_cache() {
    const auto order = static_cast<hsize_t>(n);
    block_rows = std::clamp<hsize_t>(kBlockValues / std::max<hsize_t>(order, 1), 1, kMaxBlockRows);
    const std::vector<hsize_t> chunk = chunk_dims(site, dense.get(), 2, object);
    if (chunk.empty() || order == 0) return;
    // Whole chunks of rows per block, as long as the block stays reasonable.
    if (chunk[0] * order <= kMaxAlignedBlockValues)
      block_rows = (block_rows + chunk[0] - 1) / chunk[0] * chunk[0];
    const Handle type = site.own(H5Dget_type(dense.get()), H5Tclose, "H5Dget_type", object);
    const std::size_t value_bytes = H5Tget_size(type.get());
    if (value_bytes == 0) site.call_failed("H5Tget_size", object);
    const hsize_t band = (order + chunk[1] - 1) / chunk[1];
    const hsize_t band_bytes = band * chunk[0] * chunk[1] * value_bytes;
    const std::size_t cache = static_cast<std::size_t>(
        std::clamp<hsize_t>(band_bytes + (band_bytes >> 3), std::size_t{1} << 20, kMaxChunkCache));
    const hsize_t chunks = saturating_product((order + chunk[0] - 1) / chunk[0], band);
    const Handle access = make_cache_plist(site, cache, chunks);
    dense =
        site.own(H5Dopen2(file.get(), object.c_str(), access.get()), H5Dclose, "H5Dopen2", object);
  }

  /// Opens a CSR dataset, then, when it is chunked, again with a chunk cache sized to it.
  Handle open_member(const char* name) {
    const std::string what = "CSR group " + object;
    const std::string member = object + "/" + name;
    if (!has_link(site, group.get(), name)) site.fail(what + " has no dataset '" + name + "'");
    Handle dataset =
        site.own(H5Dopen2(group.get(), name, H5P_DEFAULT), H5Dclose, "H5Dopen2", member);
    const hsize_t length = extent(site, dataset.get(), 1, member)[0];
    const std::vector<hsize_t> chunk = chunk_dims(site, dataset.get(), 1, member);
    if (chunk.empty() || chunk[0] == 0) return dataset;
    const Handle access =
        make_cache_plist(site, kCsrChunkCache, (length + chunk[0] - 1) / chunk[0]);
    return site.own(H5Dopen2(group.get(), name, access.get()), H5Dclose, "H5Dopen2", member);
  }

  void open_csr() {
    const std::string what = "CSR group " + object;
    // Shape: two integers, n x n.
    const htri_t has_shape = H5Aexists(group.get(), "shape");
    if (has_shape < 0) site.call_failed("H5Aexists", object + " attribute shape");
    if (has_shape == 0) site.fail(what + " has no attribute 'shape'");
    {
      const std::string attr_name = object + " attribute shape";
      const Handle attr =
          site.own(H5Aopen(group.get(), "shape", H5P_DEFAULT), H5Aclose, "H5Aopen", attr_name);
      const Handle space = site.own(H5Aget_space(attr.get()), H5Sclose, "H5Aget_space", attr_name);
      const hssize_t points = H5Sget_simple_extent_npoints(space.get());
      if (points < 0) site.call_failed("H5Sget_simple_extent_npoints", attr_name);
      const Handle type = site.own(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type", attr_name);
      require_numeric(site, type.get(), /*allow_float=*/false, attr_name);
      if (points != 2) site.fail(fmt::format("{} has {} values, expected 2", attr_name, points));
      std::int64_t shape[2] = {0, 0};
      site.check(H5Aread(attr.get(), H5T_NATIVE_INT64, shape), "H5Aread", attr_name);
      set_order(shape[0], shape[1], what + " (attribute shape)");
    }
    const htri_t has_encoding = H5Aexists(group.get(), "encoding-type");
    if (has_encoding < 0) site.call_failed("H5Aexists", object + " attribute encoding-type");
    if (has_encoding > 0) {
      const std::string encoding =
          read_string_attribute(site, group.get(), "encoding-type", object);
      if (encoding != "csr_matrix") {
        site.fail(what + " has encoding-type '" + encoding + "', only csr_matrix is supported");
      }
    }

    data = open_member("data");
    indices = open_member("indices");
    indptr_set = open_member("indptr");
    const std::string data_name = object + "/data";
    const std::string indices_name = object + "/indices";
    const std::string indptr_name = object + "/indptr";
    const std::vector<hsize_t> data_dims = extent(site, data.get(), 1, data_name);
    const std::vector<hsize_t> indices_dims = extent(site, indices.get(), 1, indices_name);
    const std::vector<hsize_t> indptr_dims = extent(site, indptr_set.get(), 1, indptr_name);
    {
      const Handle type = site.own(H5Dget_type(data.get()), H5Tclose, "H5Dget_type", data_name);
      require_numeric(site, type.get(), /*allow_float=*/true, data_name);
    }
    {
      const Handle type =
          site.own(H5Dget_type(indices.get()), H5Tclose, "H5Dget_type", indices_name);
      require_numeric(site, type.get(), /*allow_float=*/false, indices_name);
    }
    {
      const Handle type =
          site.own(H5Dget_type(indptr_set.get()), H5Tclose, "H5Dget_type", indptr_name);
      require_numeric(site, type.get(), /*allow_float=*/false, indptr_name);
    }
    if (indptr_dims[0] != static_cast<hsize_t>(n) + 1) {
      site.fail(fmt::format("{} has {} entries, expected n + 1 = {}", indptr_name, indptr_dims[0],
                            static_cast<std::int64_t>(n) + 1));
    }
    if (data_dims[0] != indices_dims[0]) {
      site.fail(fmt::format("{} has {} entries but {} has {}", data_name, data_dims[0],
                            indices_name, indices_dims[0]));
    }
    entries = data_dims[0];
    require_stored(site, indptr_set.get(), indptr_name, indptr_dims);
    require_stored(site, data.get(), data_name, data_dims);
    require_stored(site, indices.get(), indices_name, indices_dims);
  }

  /// Reads indptr in blocks, checking each as it arrives: memory grows with what the file
  /// delivers, and a bad value stops the reading.
  void read_indptr() {
    const std::string indptr_name = object + "/indptr";
    const hsize_t length = static_cast<hsize_t>(n) + 1;
    indptr.clear();
    for (hsize_t first = 0; first < length; first += kBlockValues) {
      const hsize_t count = std::min(kBlockValues, length - first);
      indptr.resize(static_cast<std::size_t>(first + count));
      read_1d(site, indptr_set.get(), H5T_NATIVE_INT64, first, count,
              indptr.data() + static_cast<std::ptrdiff_t>(first), indptr_name);
      if (first == 0 && indptr[0] != 0) {
        site.fail(fmt::format("{}[0] is {}, expected 0", indptr_name, indptr[0]));
      }
      for (auto r = static_cast<std::size_t>(std::max<hsize_t>(first, 1)); r < indptr.size(); ++r) {
        if (indptr[r] < indptr[r - 1]) {
          site.fail(fmt::format("{} is not monotone: indptr[{}] = {} > indptr[{}] = {}",
                                indptr_name, r - 1, indptr[r - 1], r, indptr[r]));
        }
      }
    }
    if (indptr.back() != static_cast<std::int64_t>(entries)) {
      site.fail(fmt::format("{} ends at {} but {}/data has {} entries", indptr_name, indptr.back(),
                            object, entries));
    }
  }

  [[noreturn]] void bad_value(std::int64_t row, std::int64_t col, double value) const {
    const char* why = std::isnan(value)   ? "is NaN"
                      : std::isinf(value) ? "is infinite (NaN/inf not allowed)"
                                          : "is negative";
    site.fail(fmt::format("{}: entry at row {}, column {} (0-based) {} ({})", object, row, col, why,
                          value));
  }

  /// End of the CSR rows from `r` whose entries fit one read (a single longer row alone).
  [[nodiscard]] std::size_t csr_block_end(std::size_t r, std::size_t end) const {
    std::size_t r_end = r + 1;
    while (r_end < end && static_cast<hsize_t>(indptr[r_end + 1] - indptr[r]) <= kBlockValues)
      ++r_end;
    return r_end;
  }

  /// Dense blocks `read_dense` makes for row_count rows.
  [[nodiscard]] std::int64_t dense_reads(Index row_count) const {
    return static_cast<std::int64_t>((static_cast<hsize_t>(row_count) + block_rows - 1) /
                                     block_rows);
  }

  /// Appends the rows [r, r + count) held by `values` (count x n, row-major), checking them.
  void take_dense_rows(hsize_t r, hsize_t count, kernels::Csr& rows) const {
    const auto order = static_cast<hsize_t>(n);
    for (hsize_t i = 0; i < count; ++i) {
      const auto row = static_cast<Index>(r + i);
      const double* line = values.data() + i * order;
      for (Index c = 0; c < n; ++c) {
        const double v = line[c];
        if (v == 0.0) continue;
        if (!(v > 0.0) || !std::isfinite(v)) bad_value(row, c, v);
        if (c == row) continue;
        rows.targets.push_back(c);
        rows.weights.push_back(v);
      }
      rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
    }
  }

  /// Reads rows [first_row, first_row + row_count); collective reading (`collective`) then makes
  /// empty reads up to `reads` in all, so that every rank makes the same number of H5Dread calls,
  /// and throws an error only once they are all made.
  void read_dense(Index first_row, Index row_count, kernels::Csr& rows, bool collective,
                  std::int64_t reads = 0) {
    const auto order = static_cast<hsize_t>(n);
    const hsize_t block =
        collective ? block_rows
                   : std::min(block_rows, static_cast<hsize_t>(std::max<Index>(row_count, 1)));
    values.resize(static_cast<std::size_t>(block * order));
    DeferredErrors calls(collective);
    const auto nothing = [&] { read_nothing(site, dense.get(), transfer_plist(), object); };
    const auto end = static_cast<hsize_t>(first_row) + static_cast<hsize_t>(row_count);
    for (auto r = static_cast<hsize_t>(first_row); r < end; r += block) {
      const hsize_t count[2] = {std::min(block, end - r), order};
      calls.run(
          [&] {
            const hsize_t start[2] = {r, 0};
            const RowBlock spaces = row_block(site, dense.get(), start, count, object);
            site.check(H5Dread(dense.get(), H5T_NATIVE_DOUBLE, spaces.memory.get(),
                               spaces.file.get(), transfer_plist(), values.data()),
                       "H5Dread", object);
            take_dense_rows(r, count[0], rows);
          },
          nothing);
      --reads;
    }
    for (; reads > 0; --reads) calls.run(nothing, nothing);
    calls.rethrow();
  }

  /// CSR blocks `read_csr` makes for rows [first_row, first_row + row_count).
  [[nodiscard]] std::int64_t csr_reads(Index first_row, Index row_count) const {
    const std::size_t end =
        static_cast<std::size_t>(first_row) + static_cast<std::size_t>(row_count);
    std::int64_t reads = 0;
    for (std::size_t r = static_cast<std::size_t>(first_row); r < end; r = csr_block_end(r, end))
      ++reads;
    return reads;
  }

  /// Reads one range of a 1-D dataset; collective reads always call H5Dread, even for nothing.
  void read_entries(hid_t dataset, hid_t memory_type, hsize_t first, hsize_t count, void* buffer,
                    const std::string& name) {
    if (count == 0 && transfer.get() >= 0) {
      read_nothing(site, dataset, transfer_plist(), name);
    } else {
      read_1d(site, dataset, memory_type, first, count, buffer, name, transfer_plist());
    }
  }

  /// Appends the rows [r, r_end) whose entries, from entry `first` on, `values` and `columns` hold.
  void take_csr_rows(std::size_t r, std::size_t r_end, hsize_t first, kernels::Csr& rows) const {
    for (; r < r_end; ++r) {
      const std::size_t start = rows.targets.size();
      for (auto e = static_cast<std::size_t>(indptr[r]);
           e < static_cast<std::size_t>(indptr[r + 1]); ++e) {
        const std::size_t k = e - static_cast<std::size_t>(first);
        const std::int64_t c = columns[k];
        const double v = values[k];
        if (c < 0 || c >= n) {
          site.fail(fmt::format("{}/indices[{}] = {} is out of range [0, {}) (row {})", object, e,
                                c, n, r));
        }
        if (v == 0.0) continue;
        if (!(v > 0.0) || !std::isfinite(v)) bad_value(static_cast<std::int64_t>(r), c, v);
        if (c == static_cast<std::int64_t>(r)) continue;
        rows.targets.push_back(static_cast<Index>(c));
        rows.weights.push_back(v);
      }
      canonicalize_row(rows, start);
      rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
    }
  }

  /// Reads rows [first_row, first_row + row_count); collective reading (`collective`) first makes
  /// empty reads up to `reads` blocks in all and throws an error only once every read is made.
  void read_csr(Index first_row, Index row_count, kernels::Csr& rows, bool collective,
                std::int64_t reads = 0) {
    const std::size_t end =
        static_cast<std::size_t>(first_row) + static_cast<std::size_t>(row_count);
    std::size_t r = static_cast<std::size_t>(first_row);
    DeferredErrors calls(collective);
    const std::string data_name = object + "/data";
    const std::string indices_name = object + "/indices";
    const auto nothing_data = [&] { read_nothing(site, data.get(), transfer_plist(), data_name); };
    const auto nothing_indices = [&] {
      read_nothing(site, indices.get(), transfer_plist(), indices_name);
    };
    for (; collective && reads > csr_reads(first_row, row_count); --reads) {
      calls.run(nothing_data, nothing_data);
      calls.run(nothing_indices, nothing_indices);
    }
    // A rank's whole block in one call: its stored entries bound what it keeps, so its arrays
    // are sized once instead of doubling (the serial reader appends block after block to arrays
    // its caller sized).
    if (collective) {
      calls.run(
          [&] {
            const auto bound = static_cast<std::size_t>(indptr[end] - indptr[r]);
            rows.targets.reserve(rows.targets.size() + bound);
            rows.weights.reserve(rows.weights.size() + bound);
            rows.offsets.reserve(rows.offsets.size() + (end - r));
          },
          [] {});
    }
    while (r < end) {
      // Rows [r, r_end) whose entries fit one read (a single longer row is read alone).
      const std::size_t r_end = csr_block_end(r, end);
      const auto first = static_cast<hsize_t>(indptr[r]);
      const auto count = static_cast<hsize_t>(indptr[r_end] - indptr[r]);
      calls.run(
          [&] {
            values.resize(static_cast<std::size_t>(count));
            read_entries(data.get(), H5T_NATIVE_DOUBLE, first, count, values.data(), data_name);
          },
          nothing_data);
      calls.run(
          [&] {
            columns.resize(static_cast<std::size_t>(count));
            read_entries(indices.get(), H5T_NATIVE_INT64, first, count, columns.data(),
                         indices_name);
          },
          nothing_indices);
      calls.run([&] { take_csr_rows(r, r_end, first, rows); }, [] {});
      r = r_end;
    }
    calls.rethrow();
  }
};

void Hdf5MatrixReader::read_metadata(const std::string& path, const std::string& object) {
  struct MetadataRead {};
  const QuietErrors quiet;
  Impl probe(path, object);
  try {
    probe.open([](const MatrixHeader&) { throw MetadataRead{}; });
  } catch (const MetadataRead&) {
    // everything before the rows was read
  }
}

void Hdf5MatrixReader::probe_metadata(const std::string& path, const std::string& object) {
  hdf5_read_tried_in_child(path, {metadata_read(object)}, "the metadata of " + object,
                           [&] { read_metadata(path, object); });
}

Hdf5MatrixReader::Hdf5MatrixReader(const std::string& path, const std::string& object,
                                   const HeaderCheck& check)
    : impl_(std::make_unique<Impl>(path, object)) {
  probe_metadata(path, object);
  const QuietErrors quiet;
  impl_->open(check);
}

Hdf5MatrixReader::Hdf5MatrixReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

/// Builds the reader of open_hdf5_matrix_collective (a friend of Hdf5MatrixReader).
struct Hdf5CollectiveOpen {
  static Hdf5MatrixReader open(const std::string& path, const std::string& object, MPI_Comm comm,
                               const HeaderCheck& check) {
    Hdf5MatrixReader reader(std::make_unique<Hdf5MatrixReader::Impl>(path, object));
    const QuietErrors quiet;
    Hdf5MatrixReader::Impl& impl = *reader.impl_;
    impl.comm = comm;
    // Every rank opens the same file: they agree on the outcome before any of them returns, or
    // unwinds and closes its file (H5Fclose is collective) while others would still be opening.
    run_agreed(comm, [&] {
      Hdf5MatrixReader::probe_metadata(path, object);
      impl.file_access = impl.site.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
      impl.site.check(H5Pset_fapl_mpio(impl.file_access.get(), comm, MPI_INFO_NULL),
                      "H5Pset_fapl_mpio");
      impl.transfer = impl.site.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate");
      impl.site.check(H5Pset_dxpl_mpio(impl.transfer.get(), H5FD_MPIO_COLLECTIVE),
                      "H5Pset_dxpl_mpio");
      impl.open(check);
    });
    return reader;
  }
};

Hdf5MatrixReader open_hdf5_matrix_collective(const std::string& path, const std::string& object,
                                             MPI_Comm comm, const HeaderCheck& check) {
  return Hdf5CollectiveOpen::open(path, object, comm, check);
}

void Hdf5MatrixReader::read_rows_collective(Index first_row, Index row_count, kernels::Csr& rows) {
  Impl& impl = *impl_;
  if (impl.comm == MPI_COMM_NULL) {
    throw std::logic_error("Hdf5MatrixReader::read_rows_collective: opened without a communicator");
  }
  if (first_row < 0 || row_count < 0 || static_cast<std::int64_t>(first_row) + row_count > impl.n) {
    throw std::out_of_range(
        fmt::format("Hdf5MatrixReader::read_rows_collective: rows [{}, {}+{}) outside [0, {})",
                    first_row, first_row, row_count, impl.n));
  }
  const QuietErrors quiet;
  const std::int64_t mine =
      impl.csr ? impl.csr_reads(first_row, row_count) : impl.dense_reads(row_count);
  std::int64_t reads = 0;
  if (MPI_Allreduce(&mine, &reads, 1, MPI_INT64_T, MPI_MAX, impl.comm) != MPI_SUCCESS)
    impl.site.fail("MPI_Allreduce failed while agreeing on the collective reads");
  // A bad value or a failed read on one rank is thrown on every rank, once all reads are made.
  run_agreed(impl.comm, [&] {
    if (impl.csr) {
      impl.read_csr(first_row, row_count, rows, /*collective=*/true, reads);
    } else {
      impl.read_dense(first_row, row_count, rows, /*collective=*/true, reads);
    }
  });
}

Hdf5MatrixReader::~Hdf5MatrixReader() = default;
Hdf5MatrixReader::Hdf5MatrixReader(Hdf5MatrixReader&&) noexcept = default;
Hdf5MatrixReader& Hdf5MatrixReader::operator=(Hdf5MatrixReader&&) noexcept = default;

Index Hdf5MatrixReader::size() const {
  return impl_->n;
}

void Hdf5MatrixReader::read_rows(Index first_row, Index row_count, kernels::Csr& rows) {
  if (first_row < 0 || row_count < 0 ||
      static_cast<std::int64_t>(first_row) + row_count > impl_->n) {
    throw std::out_of_range(
        fmt::format("Hdf5MatrixReader::read_rows: rows [{}, {}+{}) outside [0, {})", first_row,
                    first_row, row_count, impl_->n));
  }
  const QuietErrors quiet;
  if (impl_->csr) {
    impl_->read_csr(first_row, row_count, rows, /*collective=*/false);
  } else {
    impl_->read_dense(first_row, row_count, rows, /*collective=*/false);
  }
}

Index Hdf5MatrixReader::block_end(Index first_row) const {
  if (first_row < 0 || first_row >= impl_->n) {
    throw std::out_of_range(
        fmt::format("Hdf5MatrixReader::block_end: row {} outside [0, {})", first_row, impl_->n));
  }
  if (impl_->csr) {
    return static_cast<Index>(impl_->csr_block_end(static_cast<std::size_t>(first_row),
                                                   static_cast<std::size_t>(impl_->n)));
  }
  return static_cast<Index>(std::min<hsize_t>(static_cast<hsize_t>(first_row) + impl_->block_rows,
                                              static_cast<hsize_t>(impl_->n)));
}

Offset Hdf5MatrixReader::stored_entries() const {
  return impl_->csr ? static_cast<Offset>(impl_->entries) : 0;
}

namespace {

/// Row blocks of one matrix of an HDF5 file.
class Hdf5RowSource final : public MatrixRowSource {
 public:
  Hdf5RowSource(const std::string& path, const std::string& object, const HeaderCheck& check)
      : reader_(path, object, check) {}

  [[nodiscard]] Index size() const override { return reader_.size(); }
  [[nodiscard]] Offset expected_entries() const override { return reader_.stored_entries(); }

  Index append_rows(kernels::Csr& rows) override {
    if (next_ == reader_.size()) return 0;
    const Index end = reader_.block_end(next_);
    reader_.read_rows(next_, end - next_, rows);
    const Index appended = end - next_;
    next_ = end;
    return appended;
  }

 private:
  Hdf5MatrixReader reader_;
  Index next_ = 0;
};

}  // namespace

std::unique_ptr<MatrixRowSource> open_hdf5_row_source(const std::string& path,
                                                      const std::string& object,
                                                      const HeaderCheck& check) {
  return std::make_unique<Hdf5RowSource>(path, object, check);
}

namespace {

bool has_object(const std::string& path, const std::string& object) {
  const QuietErrors quiet;
  const Site site(path, /*reading=*/true);
  const Handle file = open_for_reading(site);
  // One link at a time: H5Lexists fails, rather than saying no, when a parent is missing or is
  // not a group ("/a/b" without "/a").
  for (std::size_t slash = object.find('/', 1);; slash = object.find('/', slash + 1)) {
    const std::string prefix = object.substr(0, slash);
    if (!has_link(site, file.get(), prefix)) return false;
    if (slash == std::string::npos || slash + 1 == object.size()) return true;
    const Handle parent =
        site.own(H5Oopen(file.get(), prefix.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", prefix);
    if (H5Iget_type(parent.get()) != H5I_GROUP) return false;
  }
}

}  // namespace

bool hdf5_has_object(const std::string& path, const std::string& object) {
  hdf5_read_tried_in_child(path, {links_read(object)}, "the links to " + object,
                           [&] { (void)has_object(path, object); });
  return has_object(path, object);
}

void probe_hdf5_objects(const std::string& path, const std::vector<std::string>& objects) {
  std::vector<std::string> reads;
  std::string names;
  for (const std::string& object : objects) {
    reads.push_back(links_read(object));
    reads.push_back(metadata_read(object));
    names += (names.empty() ? "" : ", ") + object;
  }
  hdf5_read_tried_in_child(path, reads, "the metadata of " + names, [&] {
    for (const std::string& object : objects) {
      try {
        if (has_object(path, object)) Hdf5MatrixReader::read_metadata(path, object);
      } catch (const std::exception&) {
        // this process meets the same error when it reads the object
      }
    }
  });
}

bool hdf5_has_group_member(const std::string& path, const std::string& object,
                           const std::string& member) {
  const QuietErrors quiet;
  const Site site(path, /*reading=*/true);
  const Handle file = open_for_reading(site);
  const Handle owner =
      site.own(H5Oopen(file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen", object);
  const H5I_type_t type = H5Iget_type(owner.get());
  if (type == H5I_BADID) site.call_failed("H5Iget_type", object);
  return type == H5I_GROUP && has_link(site, owner.get(), member);
}

kernels::Csr read_hdf5_matrix_rows(const std::string& path, const std::string& object) {
  Hdf5MatrixReader reader(path, object);
  kernels::Csr rows;
  rows.n = reader.size();
  rows.offsets.reserve(static_cast<std::size_t>(rows.n) + 1);
  reader.read_rows(/*first_row=*/0, reader.size(), rows);
  return rows;
}

}  // namespace treematch::io
