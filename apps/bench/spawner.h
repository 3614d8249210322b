// Runs benchmarked commands from a small helper process, so that each one's peak RSS is its own.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace treematch::bench {

/// What one command did: wall time of the whole command and its peak resident set size.
struct ChildRun {
  double wall_seconds = 0.0;  ///< fork to reaped, measured by the helper
  double peak_rss_mib = 0.0;  ///< wait4() ru_maxrss / 1024 (Linux gives KiB)
  int exit_code = -1;         ///< exit status when the command exited normally
  int term_signal = 0;        ///< the signal that killed it, 0 if none
  bool timed_out = false;     ///< killed (SIGKILL) after the time limit
  std::string exec_error;     ///< why execv failed, empty when it ran

  [[nodiscard]] bool ok() const {
    return exec_error.empty() && !timed_out && term_signal == 0 && exit_code == 0;
  }
  /// One line saying why the run failed ("exit code 2", "killed by signal 11 (...)", ...);
  /// empty when ok().
  [[nodiscard]] std::string failure() const;
};

/// Starts commands with fork/execv and reaps them with wait4.
///
/// Why a helper: Linux carries the high-water RSS of the process that calls exec into the
/// child's ru_maxrss, and a forked child starts with a copy of its parent's anonymous pages, so a
/// command forked straight from the (large) benchmark would report the benchmark's memory. The
/// constructor therefore forks a helper while the benchmark is still small; every command is
/// forked from that helper and measured there. Construct it first thing in main(), before any
/// thread exists and before large allocations.
class Spawner {
 public:
  /// Forks the helper. Throws std::system_error if a pipe or fork fails.
  Spawner();
  /// Closes the request pipe (the helper then exits) and reaps the helper.
  ~Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;
  Spawner(Spawner&&) = delete;
  Spawner& operator=(Spawner&&) = delete;

  /// Runs argv[0] (a path, not searched in PATH) with stdin from /dev/null and stdout / stderr
  /// into the given files, killing it after `timeout_seconds` (0 = no limit). Blocks until it
  /// ends. Throws std::runtime_error if the helper is gone or argv is empty.
  ChildRun run(const std::vector<std::string>& argv, const std::string& stdout_path,
               const std::string& stderr_path, unsigned timeout_seconds);

 private:
  int request_fd_ = -1;
  int reply_fd_ = -1;
  pid_t helper_ = -1;
};

/// The path of `program` found in $PATH (or `program` itself if it contains a '/' and is
/// executable), or "" when there is none.
std::string find_in_path(const std::string& program);

}  // namespace treematch::bench
