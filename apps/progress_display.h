// The progress line of a long command on a terminal: "treematch map: mapping: bottom-up, level 3
// of 7   41%   12 s", redrawn on stderr while the command runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "src/model/progress.h"

namespace treematch::apps {

/// Draws nothing during the first second (short runs stay quiet; TREEMATCH_PROGRESS_DELAY=S
/// changes the wait to S seconds), then redraws the line at each step (at most 25 times a second)
/// and from its own thread four times a second; only when `enabled` (stderr is a
/// terminal and no --quiet: see progress_wanted). The command calls phase() as it goes, the driver
/// step() (through Context::progress); stop() or the destructor clears the line before the command
/// prints.
class ProgressDisplay final : public ProgressObserver {
 public:
  ProgressDisplay(std::string command, bool enabled);
  ~ProgressDisplay() override;
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /// A phase of the command ("reading", "mapping", "writing"): fraction unknown until step().
  void phase(const std::string& name);
  void step(const std::string& what, double fraction) override;
  /// Prints `text` on stderr below a cleared progress line (which comes back at the next redraw).
  void print(const std::string& text);
  /// Stops drawing and clears the line; later calls draw nothing.
  void stop();

 private:
  void run();
  void draw();  ///< mutex_ held

  std::string command_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point drawable_from_;  ///< start + the quiet delay
  std::chrono::steady_clock::time_point last_draw_{};
  int drawn_percent_ = -1;  ///< on the line now; -1: none
  bool enabled_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string phase_;
  std::string what_;
  double fraction_ = -1.0;  ///< negative: unknown
  bool stopping_ = false;
  bool drawn_ = false;  ///< a line is on the terminal
  std::thread thread_;
};

/// Whether a command shows its progress: stderr is a terminal and `quiet` is off.
bool progress_wanted(bool quiet);

}  // namespace treematch::apps
