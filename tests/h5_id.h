// An owning HDF5 identifier for tests that write or inspect HDF5 files by hand.
#pragma once

#include <hdf5.h>

namespace treematch::testing {

/// Owns an hid_t, closed by `closer` (H5Fclose, H5Dclose, ...) unless it is negative (a failure).
class H5Id {
 public:
  H5Id(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  ~H5Id() {
    if (id_ >= 0) closer_(id_);
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  operator hid_t() const { return id_; }  // NOLINT: used as an HDF5 argument

 private:
  hid_t id_;
  herr_t (*closer_)(hid_t);
};

}  // namespace treematch::testing
