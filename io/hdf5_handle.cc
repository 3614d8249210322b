// HDF5 handles and errors, and the helpers io/'s HDF5 matrix readers and writers share.
#include "io/hdf5_handle.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "io/hdf5_error.h"
#include "io/input_error.h"

namespace treematch::io::hdf5 {
namespace {

herr_t keep_innermost(unsigned n, const H5E_error2_t* error, void* client) {
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(client) = error->desc;
  return 0;
}

}  // namespace

std::string hdf5_reason() {
  std::string reason;
  static_cast<void>(H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &reason));
  static_cast<void>(H5Eclear2(H5E_DEFAULT));
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  return reason;
}

void Site::fail(const std::string& problem) const {
  if (reading_) throw InputError(path_, problem);
  throw Hdf5Error(path_ + ": " + problem);
}

void Site::call_failed(const char* call, const std::string& object) const {
  const std::string reason = hdf5_reason();
  fail(std::string(call) + " failed" + (object.empty() ? "" : " on " + object) +
       (reason.empty() ? "" : ": " + reason));
}

RowBlock row_block(const Site& site, hid_t dataset, const hsize_t start[2], const hsize_t count[2],
                   const std::string& object) {
  Handle file = site.own(H5Dget_space(dataset), H5Sclose, "H5Dget_space", object);
  site.check(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
             "H5Sselect_hyperslab", object);
  Handle memory = site.own(H5Screate_simple(2, count, nullptr), H5Sclose, "H5Screate_simple");
  return RowBlock{std::move(file), std::move(memory)};
}

Handle make_link_plist(const Site& site) {
  Handle plist = site.own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "H5Pcreate");
  site.check(H5Pset_create_intermediate_group(plist.get(), 1), "H5Pset_create_intermediate_group");
  return plist;
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

void write_csr_attributes(const Site& site, hid_t group, kernels::Index n) {
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

void close_written(const Site& site, Handle& file) {
  site.check(file.close(), "H5Fclose");
}

}  // namespace treematch::io::hdf5
