// A fork/exec helper process that times commands and reads their peak RSS with wait4.
#include "apps/bench/spawner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "kernels/utility.h"

namespace treematch::bench {
namespace {

/// The helper's answer for one command (plain data: it crosses a pipe).
struct Reply {
  double wall_seconds = 0.0;
  long max_rss_kib = 0;
  int exit_code = -1;
  int term_signal = 0;
  int timed_out = 0;
  int exec_errno = 0;
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// False at end of file or on error before `size` bytes.
bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_strings(int fd, const std::vector<std::string>& strings) {
  const auto count = static_cast<std::uint32_t>(strings.size());
  if (!write_all(fd, &count, sizeof count)) return false;
  for (const std::string& s : strings) {
    const auto size = static_cast<std::uint32_t>(s.size());
    if (!write_all(fd, &size, sizeof size) || !write_all(fd, s.data(), s.size())) return false;
  }
  return true;
}

bool read_strings(int fd, std::vector<std::string>& strings) {
  std::uint32_t count = 0;
  if (!read_all(fd, &count, sizeof count)) return false;
  strings.assign(count, std::string());
  for (std::string& s : strings) {
    std::uint32_t size = 0;
    if (!read_all(fd, &size, sizeof size)) return false;
    s.resize(size);
    if (size > 0 && !read_all(fd, s.data(), size)) return false;
  }
  return true;
}

volatile sig_atomic_t g_alarm_fired = 0;  // written by the helper's SIGALRM handler only

void on_alarm(int /*signal*/) {
  g_alarm_fired = 1;
}

/// Request layout: [timeout, stdout path, stderr path, argv...].
Reply run_one(const std::vector<std::string>& request) {
  Reply reply;
  const unsigned timeout = static_cast<unsigned>(std::strtoul(request[0].c_str(), nullptr, 10));
  const std::string& out_path = request[1];
  const std::string& err_path = request[2];
  std::vector<char*> argv;
  for (std::size_t i = 3; i < request.size(); ++i)
    argv.push_back(const_cast<char*>(request[i].c_str()));
  argv.push_back(nullptr);

  int status_pipe[2];  // the child reports a failed execv here; closed on a successful one
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    reply.exec_errno = errno;
    return reply;
  }
  g_alarm_fired = 0;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    reply.exec_errno = errno;
    ::close(status_pipe[0]);
    ::close(status_pipe[1]);
    return reply;
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::close(status_pipe[0]);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int error = 0;
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0) {
      error = errno;
    } else {
      ::execv(argv[0], argv.data());
      error = errno;
    }
    (void)!::write(status_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(status_pipe[1]);
  if (timeout > 0) ::alarm(timeout);
  int status = 0;
  struct rusage usage {};
  pid_t got = -1;
  for (;;) {
    got = ::wait4(pid, &status, 0, &usage);
    if (got == pid) break;
    if (got < 0 && errno == EINTR) {
      if (g_alarm_fired != 0 && reply.timed_out == 0) {
        reply.timed_out = 1;
        ::kill(pid, SIGKILL);
      }
      continue;
    }
    break;  // ECHILD: cannot happen for our own child
  }
  ::alarm(0);
  reply.wall_seconds = kernels::seconds_since(start);
  reply.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) reply.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) reply.term_signal = WTERMSIG(status);
  int exec_error = 0;
  if (read_all(status_pipe[0], &exec_error, sizeof exec_error)) reply.exec_errno = exec_error;
  ::close(status_pipe[0]);
  return reply;
}

[[noreturn]] void helper_loop(int request_fd, int reply_fd) {
  struct sigaction action {};
  action.sa_handler = on_alarm;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the alarm must interrupt wait4
  ::sigaction(SIGALRM, &action, nullptr);
  std::vector<std::string> request;
  for (;;) {
    if (!read_strings(request_fd, request)) ::_exit(0);  // the benchmark closed the pipe
    Reply reply;
    if (request.size() < 4) {
      reply.exec_errno = EINVAL;
    } else {
      reply = run_one(request);
    }
    if (!write_all(reply_fd, &reply, sizeof reply)) ::_exit(1);
  }
}

}  // namespace

std::string ChildRun::failure() const {
  if (!exec_error.empty()) return "cannot run: " + exec_error;
  if (timed_out) return "timed out (killed)";
  if (term_signal != 0) {
    const char* name = ::strsignal(term_signal);
    return "killed by signal " + std::to_string(term_signal) + " (" +
           (name != nullptr ? name : "?") + ")";
  }
  if (exit_code != 0) return "exit code " + std::to_string(exit_code);
  return "";
}

Spawner::Spawner() {
  int request[2];
  int reply[2];
  if (::pipe2(request, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(request[0]);
    ::close(request[1]);
    throw std::system_error(error, std::generic_category(), "pipe2");
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    for (int fd : {request[0], request[1], reply[0], reply[1]}) ::close(fd);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid == 0) {
    ::close(request[1]);
    ::close(reply[0]);
    helper_loop(request[0], reply[1]);
  }
  ::close(request[0]);
  ::close(reply[1]);
  request_fd_ = request[1];
  reply_fd_ = reply[0];
  helper_ = pid;
}

Spawner::~Spawner() {
  if (request_fd_ >= 0) ::close(request_fd_);
  if (reply_fd_ >= 0) ::close(reply_fd_);
  if (helper_ > 0) {
    int status = 0;
    while (::waitpid(helper_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

ChildRun Spawner::run(const std::vector<std::string>& argv, const std::string& stdout_path,
                      const std::string& stderr_path, unsigned timeout_seconds) {
  if (argv.empty()) throw std::invalid_argument("Spawner::run: empty argv");
  std::vector<std::string> request{std::to_string(timeout_seconds), stdout_path, stderr_path};
  request.insert(request.end(), argv.begin(), argv.end());
  Reply reply;
  if (!write_strings(request_fd_, request) || !read_all(reply_fd_, &reply, sizeof reply)) {
    throw std::runtime_error("the benchmark's spawner helper process is gone");
  }
  ChildRun run;
  run.wall_seconds = reply.wall_seconds;
  run.peak_rss_mib = static_cast<double>(reply.max_rss_kib) / 1024.0;
  run.exit_code = reply.exit_code;
  run.term_signal = reply.term_signal;
  run.timed_out = reply.timed_out != 0;
  if (reply.exec_errno != 0) run.exec_error = argv[0] + ": " + std::strerror(reply.exec_errno);
  return run;
}

std::string find_in_path(const std::string& program) {
  const auto executable = [](const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return executable(program) ? program : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path folder =
        dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir);
    const std::string candidate = (folder / program).string();
    if (executable(candidate)) return candidate;
  }
  return "";
}

}  // namespace treematch::bench
