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
#include <vector>

#include "kernels/types.h"
#include "tests/test_support.h"

namespace treematch::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs a shell `command` with stdout and stderr sent to the files `out` and `err` (quoted here).
inline CommandResult run_shell(const std::string& command, const std::string& out,
                               const std::string& err) {
  const std::string redirected = command + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(redirected.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out);
  result.err = read_text(err);
  return result;
}

/// Runs `TM_BINARY <arguments>` through the shell (arguments already quoted by the caller).
inline CommandResult run_treematch(const std::string& arguments, const TempDir& scratch) {
  return run_shell(std::string(TM_BINARY) + " " + arguments, scratch.file("stdout.txt"),
                   scratch.file("stderr.txt"));
}

/// The leaves of a `perm` output (one leaf per rank, whitespace separated).
inline std::vector<kernels::Index> parse_perm(const std::string& text) {
  std::vector<kernels::Index> leaves;
  std::istringstream in(text);
  for (kernels::Index leaf = 0; in >> leaf;) leaves.push_back(leaf);
  return leaves;
}

inline std::string quote(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace treematch::testing
