// The fuzzers' input as a file: the readers take paths, so each input is written to a temporary
// file (in /dev/shm when there is one: memory, not disk) that is removed afterwards.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace treematch::fuzz {

/// A folder of this process for its input files.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    const std::filesystem::path base = std::filesystem::exists("/dev/shm")
                                           ? std::filesystem::path("/dev/shm")
                                           : std::filesystem::temp_directory_path();
    std::filesystem::path own = base / ("tm-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(own);
    return own;
  }();
  return folder;
}

/// The bytes written to scratch_folder()/`name`, removed when this object dies.
class FuzzFile {
 public:
  FuzzFile(const std::string& name, const std::uint8_t* data, std::size_t size)
      : path_((scratch_folder() / name).string()) {
    std::ofstream(path_, std::ios::binary)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ~FuzzFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  FuzzFile(const FuzzFile&) = delete;
  FuzzFile& operator=(const FuzzFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace treematch::fuzz
