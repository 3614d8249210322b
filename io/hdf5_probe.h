// HDF5 metadata reads tried in a child process once per file, not once per call.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace treematch::io {

/// Runs `read` (HDF5 calls reading the metadata of file `path`) in a forked child process first
/// (io/contained_call.h), unless every name of `reads` passed such a probe of this very file
/// (same device, inode, size and modification time) before. `reads` names what `read` covers
/// ("links:/size", "metadata:/msg"): one probe may cover all a command will read of a file, so
/// that the later calls fork no child of their own. When the child crashes or hangs, throws
/// InputError(path, "HDF5 <what happened> reading <what>: the file is damaged"), and so at once for
/// every later probe of the same file. Errors `read` throws in the child are the caller's to meet.
void hdf5_read_tried_in_child(const std::string& path, const std::vector<std::string>& reads,
                              const std::string& what, const std::function<void()>& read);

}  // namespace treematch::io
