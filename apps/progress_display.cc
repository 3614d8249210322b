// The progress line on a terminal (see progress_display.h).
#include "apps/progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "kernels/utility.h"

namespace treematch::apps {
namespace {

constexpr auto kQuietStart = std::chrono::seconds(1);
constexpr auto kRedraw = std::chrono::milliseconds(250);

}  // namespace

bool progress_wanted(bool quiet) {
  return !quiet && isatty(STDERR_FILENO) == 1;
}

ProgressDisplay::ProgressDisplay(std::string command, bool enabled)
    : command_(std::move(command)), start_(std::chrono::steady_clock::now()) {
  if (enabled) thread_ = std::thread([this] { run(); });
}

ProgressDisplay::~ProgressDisplay() {
  stop();
}

void ProgressDisplay::phase(const std::string& name) {
  const std::lock_guard<std::mutex> lock(mutex_);
  phase_ = name;
  what_.clear();
  fraction_ = -1.0;
}

void ProgressDisplay::step(const std::string& what, double fraction) {
  const std::lock_guard<std::mutex> lock(mutex_);
  what_ = what;
  fraction_ = fraction;
}

void ProgressDisplay::print(const std::string& text) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

void ProgressDisplay::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    if (drawn_) std::fputs("\r\033[K", stderr);  // the command's own output starts clean
    drawn_ = false;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressDisplay::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, kQuietStart, [this] { return stopping_; })) return;
  while (!stopping_) {
    draw();
    wake_.wait_for(lock, kRedraw, [this] { return stopping_; });
  }
}

void ProgressDisplay::draw() {
  std::string line = command_ + ": " + phase_;
  if (!what_.empty()) line += (phase_.empty() ? "" : ": ") + what_;
  if (fraction_ >= 0.0) line += fmt::format("  {:3.0f}%", 100.0 * std::min(fraction_, 1.0));
  line += fmt::format("  {:.0f} s", kernels::seconds_since(start_));
  // Narrower than the terminal: a wrapped line would not be erased by the next redraw.
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 &&
      line.size() >= size.ws_col) {
    line.resize(static_cast<std::size_t>(size.ws_col) - 1);
  }
  // \r and erase to the end of the line: one line, redrawn in place.
  std::fputs(("\r\033[K" + line).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace treematch::apps
