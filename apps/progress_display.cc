// The progress line on a terminal (see progress_display.h).
#include "apps/progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "kernels/utility.h"

namespace treematch::apps {
namespace {

constexpr auto kQuietStart = std::chrono::milliseconds(1000);
constexpr auto kRedraw = std::chrono::milliseconds(250);
/// Steps may come once per row: redraws are at least this far apart.
constexpr auto kMinRedraw = std::chrono::milliseconds(40);

/// TREEMATCH_PROGRESS_DELAY in seconds (0 draws from the first step: tests, slow terminals);
/// kQuietStart when unset or not a number from 0 to 3600.
std::chrono::milliseconds quiet_start() {
  const char* text = std::getenv("TREEMATCH_PROGRESS_DELAY");
  if (text == nullptr || *text == '\0') return kQuietStart;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds >= 0.0 && seconds <= 3600.0)) return kQuietStart;
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

/// The whole percentage shown for `fraction`; -1 when unknown (negative).
int percent_of(double fraction) {
  return fraction < 0.0 ? -1 : static_cast<int>(std::lround(100.0 * std::min(fraction, 1.0)));
}

}  // namespace

bool progress_wanted(bool quiet) {
  return !quiet && isatty(STDERR_FILENO) == 1;
}

ProgressDisplay::ProgressDisplay(std::string command, bool enabled)
    : command_(std::move(command)),
      start_(std::chrono::steady_clock::now()),
      drawable_from_(start_ + quiet_start()),
      enabled_(enabled) {
  if (enabled_) thread_ = std::thread([this] { run(); });
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
  // Drawn at once when the percentage moves, else unless the last draw was a moment ago (steps
  // may come once per row).
  const auto now = std::chrono::steady_clock::now();
  if (enabled_ && !stopping_ && now >= drawable_from_ &&
      (percent_of(fraction) != drawn_percent_ || now - last_draw_ >= kMinRedraw)) {
    draw();
  }
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
  if (wake_.wait_until(lock, drawable_from_, [this] { return stopping_; })) return;
  // Between steps, the elapsed time keeps moving.
  while (!stopping_) {
    if (std::chrono::steady_clock::now() - last_draw_ >= kMinRedraw) draw();
    wake_.wait_for(lock, kRedraw, [this] { return stopping_; });
  }
}

void ProgressDisplay::draw() {
  std::string line = command_ + ": " + phase_;
  if (!what_.empty()) line += (phase_.empty() ? "" : ": ") + what_;
  drawn_percent_ = percent_of(fraction_);
  if (drawn_percent_ >= 0) line += fmt::format("  {:3}%", drawn_percent_);
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
  last_draw_ = std::chrono::steady_clock::now();
}

}  // namespace treematch::apps
