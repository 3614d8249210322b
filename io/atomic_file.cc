// Atomic file output (temporary file + fsync + rename) and the "-" = standard output convention.
#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

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
  PendingFile pending(path);
  errno = 0;
  std::FILE* file = std::fopen(pending.temporary().c_str(), "wb");
  if (file == nullptr) throw_write_error(path, last_error());
  // Each step runs only if the previous ones succeeded; `error` keeps the first errno.
  int error = 0;
  if (std::fwrite(content.data(), 1, content.size(), file) != content.size()) error = last_error();
  if (error == 0 && std::fflush(file) != 0) error = last_error();
  if (std::fclose(file) != 0 && error == 0) error = last_error();
  if (error != 0) throw_write_error(path, error);  // PendingFile removes the temporary
  pending.commit();
}

PendingFile::PendingFile(std::string path)
    : path_(std::move(path)),
      temporary_(path_ + ".tmp." + std::to_string(::getpid())),
      interrupted_(temporary_) {
  errno = 0;
  std::FILE* file = std::fopen(temporary_.c_str(), "wb");
  if (file == nullptr) throw_write_error(path_, last_error());
  if (std::fclose(file) != 0) {
    const int error = last_error();
    static_cast<void>(std::remove(temporary_.c_str()));
    throw_write_error(path_, error);
  }
}

PendingFile::~PendingFile() {
  if (!committed_) static_cast<void>(std::remove(temporary_.c_str()));
}

void PendingFile::commit() {
  errno = 0;
  int error = 0;
  const int fd = ::open(temporary_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = last_error();
  } else {
    if (::fsync(fd) != 0) error = last_error();
    if (::close(fd) != 0 && error == 0) error = last_error();
  }
  if (error == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) error = last_error();
  if (error != 0) throw_write_error(path_, error);  // the destructor removes the temporary
  committed_ = true;
}

}  // namespace treematch::io
