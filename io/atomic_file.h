// Writes a file all at once or not at all: a temporary name in the same directory, then rename.
#pragma once

#include <string>

namespace treematch::io {

/// Writes `content` to `path` via "<path>.tmp.<pid>" (same directory, so the rename stays on one
/// file system): write, fflush, fsync, then rename(2) over `path`. Throws InputError(path,
/// "cannot write: <strerror>") if any step fails (directory missing or not writable, disk full,
/// `path` is a directory...); the temporary file is then removed and `path` keeps its old content,
/// so a partial file never appears under `path`. The rename is atomic; the directory entry itself
/// is not fsynced. `path` "-" means standard output: `content` is written there and flushed (errors
/// name "<stdout>").
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace treematch::io
