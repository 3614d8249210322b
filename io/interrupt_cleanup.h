// Temporary outputs removed when an interrupt (SIGINT, SIGTERM) ends the process.
#pragma once

#include <cstddef>
#include <string>

namespace treematch::io {

/// Installs the SIGINT and SIGTERM handlers (once; later calls do nothing): they remove every
/// temporary file registered at that moment, then let the signal end the process as it would
/// have (a shell then reports exit status 130 or 143). A signal ignored from the start (nohup)
/// stays ignored. For the commands' main: Ctrl-C or a scheduler's SIGTERM must not leave
/// "OUT.tmp.PID" files behind.
void remove_temporaries_on_interrupt();

/// While it lives, `path` is removed by the interrupt handlers. At most kMaxRegistered paths
/// (of at most kMaxPathBytes bytes) are registered at once; beyond, a path is simply not covered.
class RemovedOnInterrupt {
 public:
  static constexpr int kMaxRegistered = 64;
  static constexpr std::size_t kMaxPathBytes = 4096;

  explicit RemovedOnInterrupt(const std::string& path);
  ~RemovedOnInterrupt();
  RemovedOnInterrupt(const RemovedOnInterrupt&) = delete;
  RemovedOnInterrupt& operator=(const RemovedOnInterrupt&) = delete;

 private:
  int slot_ = -1;  ///< the registry slot, -1 when none was free
};

}  // namespace treematch::io
