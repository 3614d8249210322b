// Writes a file all at once or not at all: a temporary name in the same directory, then rename.
#pragma once

#include <string>

#include "io/interrupt_cleanup.h"

namespace treematch::io {

/// Writes `content` to `path` via "<path>.tmp.<pid>" (same directory, so the rename stays on one
/// file system): write, fflush, fsync, then rename(2) over `path`. Throws InputError(path,
/// "cannot write: <strerror>") if any step fails (directory missing or not writable, disk full,
/// `path` is a directory...); the temporary file is then removed and `path` keeps its old content,
/// so a partial file never appears under `path`. The rename is atomic; the directory entry itself
/// is not fsynced. `path` "-" means standard output: `content` is written there and flushed (errors
/// name "<stdout>").
void write_file_atomically(const std::string& path, const std::string& content);

/// A large output written in place under a temporary name beside `path` ("<path>.tmp.<pid>", same
/// directory so that rename(2) stays on one file system), then moved over `path` by commit(). The
/// temporary file is removed by the destructor unless commit() succeeded, so that an error (bad
/// input found half-way, disk full) never leaves a partial file under either name.
class PendingFile {
 public:
  /// Creates the empty temporary file: throws InputError(path, "cannot write: <reason>") at once
  /// if the directory is missing or not writable.
  explicit PendingFile(std::string path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  /// Where to write.
  [[nodiscard]] const std::string& temporary() const { return temporary_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  /// fsync(2)s the temporary file and renames it to path(). Throws InputError(path, "cannot write:
  /// <reason>") (the temporary is then removed).
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  RemovedOnInterrupt interrupted_;  ///< an interrupt removes the temporary too
  bool committed_ = false;
};

}  // namespace treematch::io
