// Atomic file output (temporary file + fsync + rename) and the "-" = standard output convention.
#include "io/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// errno of the failed call; EIO when the C library failed without setting it (a short fwrite may).
int last_error() {
  return errno != 0 ? errno : EIO;
}

[[noreturn]] void throw_write_error(const std::string& path, int error) {
  throw InputError(path, std::string("cannot write: ") + std::strerror(error));
}

void write_to_stdout(const std::string& content) {
  errno = 0;
  const std::size_t written = std::fwrite(content.data(), 1, content.size(), stdout);
  if (written != content.size() || std::fflush(stdout) != 0)
    throw_write_error("<stdout>", last_error());
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  if (path == "-") {
    write_to_stdout(content);
    return;
  }
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  errno = 0;
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) throw_write_error(path, last_error());

  // Each step runs only if the previous ones succeeded; `error` keeps the first errno.
  int error = 0;
  if (std::fwrite(content.data(), 1, content.size(), file) != content.size()) error = last_error();
  if (error == 0 && std::fflush(file) != 0) error = last_error();
  if (error == 0 && ::fsync(::fileno(file)) != 0) error = last_error();
  if (std::fclose(file) != 0 && error == 0) error = last_error();
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = last_error();
  if (error != 0) {
    // Best effort: the temporary may already be gone; the error reported is the one that mattered.
    static_cast<void>(std::remove(temporary.c_str()));
    throw_write_error(path, error);
  }
}

}  // namespace treematch::io
