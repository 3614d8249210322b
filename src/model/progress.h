// Where long work says how far it got; the command line shows it on a terminal
// (apps/progress_display.h). Nothing here prints.
#pragma once

#include <string>

namespace treematch {

struct LevelTrace;
struct StrategyTrace;

/// Receives the steps of long work: `what` is being done and `fraction` (0 to 1) of the current
/// phase is done; a negative fraction: not known (e.g. the baselines' costs). Called from the
/// thread that orchestrates the work (the driver, between levels), never from inside parallel
/// kernels, so an implementation only records.
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void step(const std::string& what, double fraction) = 0;
  /// A strategy of the driver has ended (candidates made, refined and costed): `--verbose` prints
  /// its line then rather than at the end of a long run.
  virtual void strategy_ended(const StrategyTrace& /*trace*/) {}
  /// A level of TreeMatch's walk has ended, in step `what` (strategy, level i of n).
  virtual void level_ended(const std::string& /*what*/, const LevelTrace& /*level*/) {}
};

/// The share [begin, end] of a phase that nested work fills, with the label of its step.
struct ProgressSpan {
  ProgressObserver* observer = nullptr;  ///< null: nobody listens
  std::string label;
  double begin = 0.0;
  double end = 1.0;

  /// `inner` (0 to 1) of this span done, now at `detail` (appended to the label).
  void at(double inner, const std::string& detail = "") const {
    if (observer != nullptr) observer->step(label + detail, begin + (end - begin) * inner);
  }
  /// A walk level ended at `detail` (appended to the label).
  void level_ended(const LevelTrace& level, const std::string& detail) const {
    if (observer != nullptr) observer->level_ended(label + detail, level);
  }
  /// The part [from, to] of this span, for work nested one level further.
  [[nodiscard]] ProgressSpan part(double from, double to) const {
    return {observer, label, begin + (end - begin) * from, begin + (end - begin) * to};
  }
};

}  // namespace treematch
