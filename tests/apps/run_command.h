// Runs the treematch binary from a test and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace treematch::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

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

 private:
  std::filesystem::path path_;
};

/// Runs `TM_BINARY <arguments>` through the shell (arguments already quoted by the caller).
inline CommandResult run_treematch(const std::string& arguments, const TempDir& scratch) {
  const std::string out = scratch.file("stdout.txt");
  const std::string err = scratch.file("stderr.txt");
  const std::string command = std::string(TM_BINARY) + " " + arguments + " >" + out + " 2>" + err;
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out);
  result.err = read_text(err);
  return result;
}

/// The shared test data folder (../shared/data beside the repository).
inline std::string data_dir() {
  const char* root = std::getenv("TM_SOURCE_DIR");
  return std::string(root ? root : TM_SOURCE_ROOT) + "/../shared/data";
}

inline std::string quote(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace treematch::testing
