// Lists the matrices an HDF5 file holds (datasets and CSR groups), for batch mapping.
#include "io/hdf5_container.h"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/hdf5_handle.h"
#include "io/hdf5_probe.h"

namespace treematch::io {
namespace {

using hdf5::Handle;

/// Owns `id`, or throws std::runtime_error("<call> failed") for a failed call. (Not Site::own: this
/// listing's errors are plain std::runtime_error naming the call, and leave HDF5's error stack.)
Handle own(hid_t id, Handle::Closer closer, const std::string& call) {
  if (id < 0) throw std::runtime_error(call + " failed");
  return Handle(id, closer);
}

void check_hdf5(herr_t code, const std::string& call) {
  if (code < 0) throw std::runtime_error(call + " failed");
}

bool has_link(hid_t group, const char* name, const std::string& where) {
  const htri_t exists = H5Lexists(group, name, H5P_DEFAULT);
  if (exists < 0) throw std::runtime_error("H5Lexists(" + where + "/" + name + ") failed");
  return exists > 0;
}

std::uint64_t storage_bytes(hid_t location, const char* dataset, const std::string& where) {
  const Handle id = own(H5Dopen2(location, dataset, H5P_DEFAULT), H5Dclose,
                        "H5Dopen2(" + where + "/" + dataset + ")");
  return static_cast<std::uint64_t>(H5Dget_storage_size(id.get()));
}

constexpr int kMaxHdf5Depth = 64;  ///< guards against hard-link cycles

/// Appends the matrix objects at or under `name`: a square 2-D dataset, or a group holding data,
/// indices and indptr (scipy CSR; not entered). Groups are walked by link name, hard links only.
void find_hdf5_matrices(hid_t file, const std::string& name, int depth,
                        std::vector<Hdf5MatrixObject>& found) {
  const Handle object =
      own(H5Oopen(file, name.c_str(), H5P_DEFAULT), H5Oclose, "H5Oopen(" + name + ")");
  const H5I_type_t type = H5Iget_type(object.get());
  if (type == H5I_DATASET) {
    const Handle space = own(H5Dget_space(object.get()), H5Sclose, "H5Dget_space(" + name + ")");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) throw std::runtime_error("H5Sget_simple_extent_ndims(" + name + ") failed");
    if (rank != 2) return;
    std::array<hsize_t, 2> dims{};
    check_hdf5(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr),
               "H5Sget_simple_extent_dims(" + name + ")");
    if (dims[0] == dims[1]) {
      found.push_back({name, static_cast<std::uint64_t>(H5Dget_storage_size(object.get()))});
    }
    return;
  }
  if (type != H5I_GROUP) return;  // a named datatype
  if (has_link(object.get(), "data", name) && has_link(object.get(), "indices", name) &&
      has_link(object.get(), "indptr", name)) {
    found.push_back({name, storage_bytes(object.get(), "data", name) +
                               storage_bytes(object.get(), "indices", name)});
    return;
  }
  if (depth >= kMaxHdf5Depth) {
    throw std::runtime_error(name + ": groups nested deeper than " + std::to_string(kMaxHdf5Depth) +
                             " (a cycle of hard links?)");
  }
  H5G_info_t info;
  check_hdf5(H5Gget_info(object.get(), &info), "H5Gget_info(" + name + ")");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(object.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i,
                                              nullptr, 0, H5P_DEFAULT);
    if (length < 0) throw std::runtime_error("H5Lget_name_by_idx(" + name + ") failed");
    std::string child(static_cast<std::size_t>(length) + 1, '\0');
    if (H5Lget_name_by_idx(object.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, child.data(),
                           child.size(), H5P_DEFAULT) < 0) {
      throw std::runtime_error("H5Lget_name_by_idx(" + name + ") failed");
    }
    child.resize(static_cast<std::size_t>(length));
    H5L_info_t link;
    check_hdf5(H5Lget_info(object.get(), child.c_str(), &link, H5P_DEFAULT),
               "H5Lget_info(" + name + "/" + child + ")");
    if (link.type != H5L_TYPE_HARD) continue;  // soft and external links may loop or leave
    find_hdf5_matrices(file, name == "/" ? "/" + child : name + "/" + child, depth + 1, found);
  }
}

}  // namespace

/// The matrix objects of `path` at or under `object`, in name order. Throws std::runtime_error.
std::vector<Hdf5MatrixObject> list_hdf5_matrices(const std::string& path,
                                                 const std::string& object) {
  const auto list = [&] {
    const hdf5::QuietErrors quiet;
    const Handle file =
        own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "H5Fopen(" + path + ")");
    std::vector<Hdf5MatrixObject> found;
    find_hdf5_matrices(file.get(), object, 0, found);
    return found;
  };
  // Walking a damaged file's groups may crash HDF5 or never end: walked in a child first.
  hdf5_read_tried_in_child(path, {"list:" + object}, "the objects under " + object,
                           [&] { (void)list(); });
  return list();
}

Hdf5ObjectName split_hdf5_object(const std::string& name) {
  std::string low = name;
  std::transform(low.begin(), low.end(), low.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::string_view suffix : {std::string_view(".h5:/"), std::string_view(".hdf5:/")}) {
    const std::size_t at = low.find(suffix);
    if (at == std::string::npos) continue;
    const std::size_t colon = at + suffix.size() - 2;
    std::error_code ec;
    if (std::filesystem::is_regular_file(name.substr(0, colon), ec)) {
      return {name.substr(0, colon), name.substr(colon + 1)};
    }
  }
  return {name, ""};
}

void skip_hdf5_shutdown_at_exit() {
  H5dont_atexit();
}

void start_hdf5() {
  if (H5open() < 0) throw std::runtime_error("H5open failed");
}

}  // namespace treematch::io
