// Library calls tried in a forked child first (see contained_call.h).
#include "io/contained_call.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace treematch::io {

unsigned library_probe_seconds() {
  static const unsigned seconds = [] {
    const char* given = std::getenv("TREEMATCH_PROBE_SECONDS");
    if (given == nullptr) return kLibraryProbeSeconds;
    char* end = nullptr;
    const unsigned long value = std::strtoul(given, &end, 10);
    if (end == given || *end != '\0' || value < 1 || value > 3600) return kLibraryProbeSeconds;
    return static_cast<unsigned>(value);
  }();
  return seconds;
}

std::optional<std::string> failure_in_child(const std::function<void()>& call, unsigned seconds) {
  std::fflush(nullptr);  // nothing buffered here is written twice
  const pid_t child = fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    // The default actions end the child: a handler the process installed (Open MPI's backtrace,
    // a sanitizer's or a fuzzer's report) must not catch the library's crash or the alarm that
    // ends a loop, nor write anything; the parent prints what went wrong.
    for (const int signal : {SIGALRM, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) {
      std::signal(signal, SIG_DFL);
    }
    alarm(seconds);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    try {
      call();
    } catch (...) {
      // an error the parent will meet and report itself
    }
    _exit(0);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGALRM) return "did not finish within " + std::to_string(seconds) + " s";
    return "crashed with signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  // A sanitizer ends a process with exit code 1 on what would be a crash without it.
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return "crashed (exit code " + std::to_string(WEXITSTATUS(status)) + ")";
  }
  return std::nullopt;
}

}  // namespace treematch::io
