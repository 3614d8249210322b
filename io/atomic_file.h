// Writes a file all at once or not at all: a temporary name in the same directory, then rename.
#pragma once

#include <string>

namespace tm::io {

/// Writes `content` to `path` via "<path>.tmp.<pid>" + rename(2). Throws InputError naming `path`
/// if the directory is not writable; never leaves a partial file under `path`.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tm::io
