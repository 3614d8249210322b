// Tests of write_file_atomically: content lands whole, failures throw and leave nothing behind.
#include "io/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

/// A fresh empty directory per test, removed afterwards.
class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("tm_atomic_file_" + std::to_string(::getpid()) + "_" + std::string(info->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::vector<std::string> entries(const fs::path& dir) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      names.push_back(entry.path().filename().string());
    return names;
  }

  fs::path dir_;
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(AtomicFileTest, WritesTheContentAndNoTemporary) {
  const fs::path path = dir_ / "mapping.txt";
  const std::string content = "rank 0=node0 slot=1\n" + std::string(100000, 'x') + "\n";

  write_file_atomically(path.string(), content);

  EXPECT_EQ(read(path), content);
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"mapping.txt"});
}

TEST_F(AtomicFileTest, ReplacesAnExistingFile) {
  const fs::path path = dir_ / "out.json";
  std::ofstream(path) << "old content that is longer than the new one\n";

  write_file_atomically(path.string(), "new\n");

  EXPECT_EQ(read(path), "new\n");
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"out.json"});
}

TEST_F(AtomicFileTest, MissingDirectoryThrowsAndCreatesNothing) {
  const fs::path path = dir_ / "no_such_dir" / "out.txt";

  try {
    write_file_atomically(path.string(), "data\n");
    FAIL() << "no exception";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()),
              path.string() + ": cannot write: No such file or directory");
  }
  EXPECT_TRUE(entries(dir_).empty());
}

TEST_F(AtomicFileTest, FailedRenameRemovesTheTemporary) {
  // The target is a non-empty directory: the temporary is written, then rename(2) fails.
  const fs::path path = dir_ / "target";
  fs::create_directory(path);
  std::ofstream(path / "keep") << "kept\n";

  EXPECT_THROW(write_file_atomically(path.string(), "data\n"), InputError);

  EXPECT_EQ(entries(dir_), std::vector<std::string>{"target"});
  EXPECT_EQ(read(path / "keep"), "kept\n");
}

TEST_F(AtomicFileTest, ReadOnlyDirectoryThrowsAndCreatesNothing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write into a read-only directory";
  const fs::path locked = dir_ / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);

  EXPECT_THROW(write_file_atomically((locked / "out.txt").string(), "data\n"), InputError);

  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_TRUE(entries(locked).empty());
}

TEST_F(AtomicFileTest, DashWritesToStandardOutput) {
  ::testing::internal::CaptureStdout();

  write_file_atomically("-", "to stdout\n");

  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "to stdout\n");
  EXPECT_TRUE(entries(dir_).empty());
  EXPECT_FALSE(fs::exists("-"));
}

}  // namespace
}  // namespace treematch::io
