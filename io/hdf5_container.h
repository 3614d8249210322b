// The matrices an HDF5 file holds: every square 2-D dataset and every CSR group, for batch mapping.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace treematch::io {

/// One matrix object inside an HDF5 file.
struct Hdf5MatrixObject {
  std::string object;       ///< its path inside the file, e.g. "/runs/a"
  std::uint64_t bytes = 0;  ///< storage size, to hand out the largest first
};

/// The matrix objects of the file `path` at or under `object` ("/" = the whole file), in name
/// order: square 2-D datasets and groups holding data/indices/indptr (CSR). Hard links only (soft
/// and external links may loop or leave the file). Throws std::runtime_error naming the call.
std::vector<Hdf5MatrixObject> list_hdf5_matrices(const std::string& path,
                                                 const std::string& object);

/// A matrix named inside an HDF5 file, as every command writes it: "FILE.h5:/OBJECT".
struct Hdf5ObjectName {
  std::string file;
  std::string object;  ///< empty when the name is a plain path
};

/// "run.h5:/external" -> {"run.h5", "/external"} when the text before ":/" ends in .h5 or .hdf5
/// (any case) and names an existing regular file; otherwise {name, ""} (a plain path).
Hdf5ObjectName split_hdf5_object(const std::string& name);

/// Tells HDF5 not to shut itself down at exit; call first, before any other HDF5 call. A file
/// damaged past what HDF5 can close (a corrupt object header) otherwise makes its shutdown print
/// "HDF5: infinite loop closing library" and a line of codes after treematch's one error line;
/// the process is ending, so nothing is lost by leaving its memory to the system.
void skip_hdf5_shutdown_at_exit();

/// Starts the HDF5 library now: under MPI it registers itself with MPI when it starts, which
/// must happen on the main thread before worker threads open files. Throws std::runtime_error.
void start_hdf5();

}  // namespace treematch::io
