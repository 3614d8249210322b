// HDF5 metadata reads tried in a child process once per file and read, not once per call.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace treematch::io {

/// While one lives on this thread, the probes of hdf5_read_tried_in_child are remembered: a read
/// that passed for a file is not tried again, a file refused is refused again at once. Nested
/// scopes share the outermost's record; it is gone with it, so nothing outlives the reading of
/// one input (a long batch or fuzzing run accumulates nothing), and the files
/// hdf5_keep_open_in_scope kept open are closed with it.
class Hdf5ProbeScope {
 public:
  Hdf5ProbeScope();
  ~Hdf5ProbeScope();
  Hdf5ProbeScope(const Hdf5ProbeScope&) = delete;
  Hdf5ProbeScope& operator=(const Hdf5ProbeScope&) = delete;

  struct Record;

 private:
  std::unique_ptr<Record> own_;  ///< null when an outer scope holds the record
};

/// Within an Hdf5ProbeScope, opens the HDF5 file `path` for reading once more and keeps it open
/// until the outermost scope ends (once per file; nothing outside a scope or when opening fails).
/// While it is open, HDF5 gives every later H5Fopen of that file the same open file and metadata
/// cache instead of a new one (0.5 MB to clear, the superblock to read again): a small input's
/// reading opens the file about eight times.
void hdf5_keep_open_in_scope(const std::string& path);

/// Runs `read` (HDF5 calls reading the metadata of file `path`) in a forked child process first
/// (io/contained_call.h), unless, within an Hdf5ProbeScope, every name of `reads` passed such a
/// probe of this very file (same device, inode, size, modification and change times). `reads`
/// names what `read` covers ("links:/size", "metadata:/msg"): one probe may cover all a command
/// will read of a file, so that the later calls fork no child of their own. When the child
/// crashes or hangs, throws InputError(path, "HDF5 <what happened> reading <what>: the file is
/// damaged"). Errors `read` throws in the child are the caller's to meet when it reads.
void hdf5_read_tried_in_child(const std::string& path, const std::vector<std::string>& reads,
                              const std::string& what, const std::function<void()>& read);

}  // namespace treematch::io
