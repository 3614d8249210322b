// What many tests need: a scratch directory, a file's text, the host name, the shared data.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace treematch::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tm-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Writes `content` to the file `name` in this folder and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

/// This machine's host name, as --topology allocation names the node (gethostname).
inline std::string this_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

/// The shared test data folder (../shared/data beside the repository). CTest sets TM_SOURCE_DIR.
inline std::string data_dir() {
  const char* root = std::getenv("TM_SOURCE_DIR");
#ifdef TM_SOURCE_ROOT
  return std::string(root ? root : TM_SOURCE_ROOT) + "/../shared/data";
#else
  return std::string(root ? root : ".") + "/../shared/data";
#endif
}

/// CloverLeaf's 128-rank pattern from PaCoS (in the shared data), and the machine the CLI tests
/// map it on: 4 nodes x 2 sockets x 16 cores.
inline std::string clover128() {
  return data_dir() + "/pacos/examples/taskgraph/CloverLeaf128.APHiD";
}
inline const std::string kClusterOf128 = "tleaf 3 4 100 2 10 16 1";

}  // namespace treematch::testing
