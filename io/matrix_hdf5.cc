// Reads and writes communication matrices in HDF5 (dense 2-D dataset or scipy CSR group).
#include "io/matrix_hdf5.h"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/agreement.h"
#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_parallel.h"

namespace treematch::io {
namespace {

using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// Values per dense row block or CSR entry chunk (32 MiB of doubles).
constexpr hsize_t kBlockValues = hsize_t{1} << 22;
/// At most this many dense rows per block (unless a chunk holds more).
constexpr hsize_t kMaxBlockRows = 256;
/// Target size of a written chunk, in values (1 MiB of doubles): whole dense rows, or CSR entries.
constexpr hsize_t kChunkValues = hsize_t{1} << 17;
/// A dense read block is rounded up to whole chunks of rows while it stays below this many values.
constexpr hsize_t kMaxAlignedBlockValues = hsize_t{1} << 24;
/// Upper bound of the chunk cache given to a dataset opened for reading (bytes).
constexpr std::size_t kMaxChunkCache = std::size_t{256} << 20;
/// Chunk cache of the CSR datasets read: a block rarely starts on a chunk boundary, so the chunk
/// it shares with the previous block must still be cached to be decompressed only once.
constexpr std::size_t kCsrChunkCache = std::size_t{32} << 20;
/// Hash slots of a chunk cache (a prime, as HDF5 recommends).
constexpr std::size_t kChunkCacheSlots = 100003;
/// Largest chunk HDF5 accepts is 4 GiB - 1 bytes.
constexpr hsize_t kMaxChunkBytes = (hsize_t{1} << 32) - 1;
constexpr unsigned kDeflateLevel = 4;

/// Owns one HDF5 identifier and closes it with the matching H5?close; never throws.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      static_cast<void>(close());
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  ~Handle() { static_cast<void>(close()); }

  [[nodiscard]] hid_t get() const noexcept { return id_; }

  /// Closes now and returns the close call's result (for a writer that must know it succeeded).
  herr_t close() noexcept {
    herr_t rc = 0;
    if (id_ >= 0 && closer_ != nullptr) rc = closer_(id_);
    id_ = H5I_INVALID_HID;
    return rc;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Turns HDF5's automatic error printing off for its lifetime (errors become one-line exceptions).
class QuietErrors {
 public:
  QuietErrors() noexcept {
    if (H5Eget_auto2(H5E_DEFAULT, &func_, &data_) < 0) {
      func_ = nullptr;
      data_ = nullptr;
    }
    static_cast<void>(H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr));
  }
  ~QuietErrors() { static_cast<void>(H5Eset_auto2(H5E_DEFAULT, func_, data_)); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

herr_t keep_innermost(unsigned n, const H5E_error2_t* error, void* client) {
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(client) = error->desc;
  return 0;
}

/// The most specific message on HDF5's error stack (one line), and clears the stack.
std::string hdf5_reason() {
  std::string reason;
  static_cast<void>(H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &reason));
  static_cast<void>(H5Eclear2(H5E_DEFAULT));
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  return reason;
}

/// Where failures are reported: InputError when reading the user's file, Hdf5Error when writing.
class Site {
 public:
  Site(std::string path, bool reading) : path_(std::move(path)), reading_(reading) {}

  [[nodiscard]] const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& problem) const {
    if (reading_) throw InputError(path_, problem);
    throw Hdf5Error(path_ + ": " + problem);
  }

  [[noreturn]] void call_failed(const char* call, const std::string& object) const {
    const std::string reason = hdf5_reason();
    fail(std::string(call) + " failed" + (object.empty() ? "" : " on " + object) +
         (reason.empty() ? "" : ": " + reason));
  }

  void check(herr_t rc, const char* call, const std::string& object = {}) const {
    if (rc < 0) call_failed(call, object);
  }

  Handle own(hid_t id, Handle::Closer closer, const char* call,
             const std::string& object = {}) const {
    if (id < 0) call_failed(call, object);
    return Handle(id, closer);
  }

 private:
  std::string path_;
  bool reading_;
};

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
/// The dataspaces of a block of rows of a 2-D dataset: `file` selects count[0] rows from
/// start[0], `memory` is a dense count[0] x count[1] buffer.
struct RowBlock {
  Handle file;
  Handle memory;
};

RowBlock row_block(const Site& site, hid_t dataset, const hsize_t start[2], const hsize_t count[2],
                   const std::string& object) {
  Handle file = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
  site.check(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
             "H5Sselect_hyperslab", object);
  Handle memory = site.own(H5Screate_simple(2, count, nullptr), H5Sclose, "H5Screate_simple");
  return RowBlock{std::move(file), std::move(memory)};
}

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

Handle make_chunked_plist(const Site& site, int rank, const hsize_t* chunk, bool compress) {
  Handle plist = site.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
  site.check(H5Pset_chunk(plist.get(), rank, chunk), "H5Pset_chunk");
  if (!compress) return plist;
  const htri_t deflate = H5Zfilter_avail(H5Z_FILTER_DEFLATE);
  if (deflate < 0) site.call_failed("H5Zfilter_avail", {});
  if (deflate > 0) site.check(H5Pset_deflate(plist.get(), kDeflateLevel), "H5Pset_deflate");
  return plist;
}

/// Dataset access list with a chunk cache of `bytes` (fully read chunks are evicted first).
Handle make_cache_plist(const Site& site, std::size_t bytes) {
  Handle plist = site.own(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose, "H5Pcreate");
  site.check(H5Pset_chunk_cache(plist.get(), kChunkCacheSlots, bytes, 1.0), "H5Pset_chunk_cache");
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

/// Link creation list that creates missing intermediate groups of a nested object name.
Handle make_link_plist(const Site& site) {
  Handle plist = site.own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "H5Pcreate");
  site.check(H5Pset_create_intermediate_group(plist.get(), 1), "H5Pset_create_intermediate_group");
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

void write_string_attribute(const Site& site, hid_t owner, const char* name, const char* value) {
  const Handle type = site.own(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy", name);
  site.check(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size", name);
  site.check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset", name);
  const Handle space = site.own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", name);
  const Handle attr =
      site.own(H5Acreate2(owner, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
               "H5Acreate2", name);
  const char* data[1] = {value};
  site.check(H5Awrite(attr.get(), type.get(), static_cast<const void*>(data)), "H5Awrite", name);
}

/// The csr_matrix attributes: shape = [n, n], encoding-type and encoding-version.
void write_csr_attributes(const Site& site, hid_t group, Index n) {
  const hsize_t two = 2;
  const Handle space =
      site.own(H5Screate_simple(1, &two, nullptr), H5Sclose, "H5Screate_simple", "shape");
  const Handle shape =
      site.own(H5Acreate2(group, "shape", H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
               H5Aclose, "H5Acreate2", "shape");
  const std::int64_t order[2] = {n, n};
  site.check(H5Awrite(shape.get(), H5T_NATIVE_INT64, order), "H5Awrite", "shape");
  write_string_attribute(site, group, "encoding-type", "csr_matrix");
  write_string_attribute(site, group, "encoding-version", "0.1.0");
}

/// Closes the file and reports a failed final flush.
void close_written(const Site& site, Handle& file) {
  site.check(file.close(), "H5Fclose");
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
  /// (metadata only); then `check` judges the order; only then is anything of size n read.
  void open(const OrderCheck& check) {
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
        if (check) check(n);
        reopen_dense_with_cache();
        return;
      case H5I_GROUP:
        group = std::move(node);
        csr = true;
        open_csr();
        if (check) check(n);
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
    const Handle access = make_cache_plist(site, cache);
    dense =
        site.own(H5Dopen2(file.get(), object.c_str(), access.get()), H5Dclose, "H5Dopen2", object);
  }

  Handle open_member(const char* name) {
    const std::string what = "CSR group " + object;
    if (!has_link(site, group.get(), name)) site.fail(what + " has no dataset '" + name + "'");
    const Handle access = make_cache_plist(site, kCsrChunkCache);
    return site.own(H5Dopen2(group.get(), name, access.get()), H5Dclose, "H5Dopen2",
                    object + "/" + name);
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
    probe.open([](Index) { throw MetadataRead{}; });
  } catch (const MetadataRead&) {
    // everything before the rows was read
  }
}

void Hdf5MatrixReader::probe_metadata(const std::string& path, const std::string& object) {
  hdf5_read_tried_in_child(path, {metadata_read(object)}, "the metadata of " + object,
                           [&] { read_metadata(path, object); });
}

Hdf5MatrixReader::Hdf5MatrixReader(const std::string& path, const std::string& object,
                                   const OrderCheck& check)
    : impl_(std::make_unique<Impl>(path, object)) {
  probe_metadata(path, object);
  const QuietErrors quiet;
  impl_->open(check);
}

Hdf5MatrixReader::Hdf5MatrixReader(const std::string& path, const std::string& object,
                                   MPI_Comm comm, const OrderCheck& check)
    : impl_(std::make_unique<Impl>(path, object)) {
  const QuietErrors quiet;
  Impl& impl = *impl_;
  impl.comm = comm;
  // Every rank opens the same file: they agree on the outcome before any of them returns, or
  // unwinds and closes its file (H5Fclose is collective) while others would still be opening.
  run_agreed(comm, [&] {
    probe_metadata(path, object);
    impl.file_access = impl.site.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
    impl.site.check(H5Pset_fapl_mpio(impl.file_access.get(), comm, MPI_INFO_NULL),
                    "H5Pset_fapl_mpio");
    impl.transfer = impl.site.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate");
    impl.site.check(H5Pset_dxpl_mpio(impl.transfer.get(), H5FD_MPIO_COLLECTIVE),
                    "H5Pset_dxpl_mpio");
    impl.open(check);
  });
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
  Hdf5RowSource(const std::string& path, const std::string& object, const OrderCheck& check)
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
                                                      const OrderCheck& check) {
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

// ---------------------------------------------------------------------------------------------
// Parallel (MPI-IO) CSR writing: io/matrix_hdf5_parallel.h.

namespace {

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
