// SIGINT and SIGTERM while treematch writes an output: the temporary file is removed, nothing
// appears under the output's name, and the shell sees the signal's status (130, 143).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;

/// Files in `dir` whose name starts with `prefix`.
int files_starting_with(const fs::path& dir, const std::string& prefix) {
  int count = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    count += entry.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
  return count;
}

TEST(Interrupt, GenerateRemovesItsTemporaryAndEndsWithTheSignalsStatus) {
  for (const auto& [signal, status] : {std::pair<std::string, int>{"INT", 130}, {"TERM", 143}}) {
    TempDir dir;
    // A dense 8192 x 8192 text matrix (about 0.3 GB): several seconds of writing. The signal is
    // sent once the temporary file holds data; `set -m` keeps SIGINT for the background job.
    const std::string out = dir.file("big.mat");
    const std::string script =
        dir.write("interrupt.sh",
                  "set -m\n" + std::string(TM_BINARY) +
                      " generate hierarchical -t 'pack:128 core:64 pu:1' \"$1\" &\n"
                      "pid=$!\n"
                      "for i in $(seq 600); do\n"
                      "  [ -n \"$(find \"$(dirname \"$1\")\" -name 'big.mat.tmp.*' -size +1M)\" ] "
                      "&& break\n"
                      "  sleep 0.05\n"
                      "done\n"
                      "kill -" +
                      signal +
                      " $pid\n"
                      "wait $pid\n"
                      "echo \"status $?\"\n");
    const CommandResult run = run_shell("bash " + quote(script) + " " + quote(out),
                                        dir.file("stdout.txt"), dir.file("stderr.txt"));
    EXPECT_NE(run.out.find("status " + std::to_string(status)), std::string::npos)
        << signal << ": " << run.out << run.err;
    EXPECT_FALSE(fs::exists(out)) << signal;
    EXPECT_EQ(files_starting_with(dir.path(), "big.mat"), 0) << signal;
  }
}

// 16384 ranks: 2.7e8 noisy entries, about 5.1 GB of text. generate says so before it writes;
// the test stops it once it has.
TEST(Interrupt, GenerateAnnouncesAnOutputAboveOneGigabyte) {
  TempDir dir;
  const std::string out = dir.file("huge.mat");
  const std::string err = dir.file("generate.err");
  const std::string script = dir.write(
      "announce.sh", std::string(TM_BINARY) +
                         " generate hierarchical -t 'pack:256 core:64 pu:1' \"$1\" 2> \"$2\" &\n"
                         "pid=$!\n"
                         "for i in $(seq 600); do\n"
                         "  grep -q 'writing about' \"$2\" && break\n"
                         "  sleep 0.05\n"
                         "done\n"
                         "kill -TERM $pid\n"
                         "wait $pid\n");
  run_shell("bash " + quote(script) + " " + quote(out) + " " + quote(err), dir.file("stdout.txt"),
            dir.file("stderr.txt"));
  const std::string said = read_text(err);
  EXPECT_NE(
      said.find("treematch generate: writing about 5.1 GB (16384 x 16384 entries, mat) to " + out),
      std::string::npos)
      << said;
  EXPECT_EQ(files_starting_with(dir.path(), "huge.mat"), 0);
}

}  // namespace
}  // namespace treematch::testing
