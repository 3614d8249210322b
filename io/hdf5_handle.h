// HDF5 handles and errors, and the helpers io/'s HDF5 matrix readers and writers share.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

#include "kernels/types.h"

// Internal to io/: only the .cc files of the HDF5 readers and writers include it, so that <hdf5.h>
// stays out of the public headers.
namespace treematch::io::hdf5 {

/// Values per dense row block or CSR entry chunk (32 MiB of doubles).
inline constexpr hsize_t kBlockValues = hsize_t{1} << 22;
/// At most this many dense rows per block (unless a chunk holds more).
inline constexpr hsize_t kMaxBlockRows = 256;

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

/// The most specific message on HDF5's error stack (one line), and clears the stack.
std::string hdf5_reason();

/// Where failures are reported: InputError when reading the user's file, Hdf5Error when writing.
class Site {
 public:
  Site(std::string path, bool reading) : path_(std::move(path)), reading_(reading) {}

  [[nodiscard]] const std::string& path() const { return path_; }

  /// Throws InputError(path, problem) when reading, else Hdf5Error("<path>: <problem>").
  [[noreturn]] void fail(const std::string& problem) const;

  /// Fails with "<call> failed[ on <object>][: <HDF5's reason>]".
  [[noreturn]] void call_failed(const char* call, const std::string& object) const;

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

// Helpers the readers and the writers share.

/// The dataspaces of a block of rows of a 2-D dataset: `file` selects count[0] rows from
/// start[0], `memory` is a dense count[0] x count[1] buffer.
struct RowBlock {
  Handle file;
  Handle memory;
};

RowBlock row_block(const Site& site, hid_t dataset, const hsize_t start[2], const hsize_t count[2],
                   const std::string& object);

/// Link creation list that creates missing intermediate groups of a nested object name.
Handle make_link_plist(const Site& site);

/// Sets the attribute `name` of `owner` to a UTF-8 string (variable length).
void write_string_attribute(const Site& site, hid_t owner, const char* name, const char* value);

/// The csr_matrix attributes: shape = [n, n], encoding-type and encoding-version.
void write_csr_attributes(const Site& site, hid_t group, kernels::Index n);

/// Closes the file and reports a failed final flush.
void close_written(const Site& site, Handle& file);

}  // namespace treematch::io::hdf5
