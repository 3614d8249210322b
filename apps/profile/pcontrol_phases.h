// The phases a program marks with MPI_Pcontrol(level): what this process sent while each level
// was on, one row per level, for the profile's /phase/pcontrol_LEVEL matrices. Plain C++ (no MPI).
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <vector>

#include "apps/profile/traffic_recorder.h"
#include "kernels/types.h"

namespace treematch::profile {

/// Level 0 counts nothing; every positive level is a phase. A level that comes back adds to its
/// phase, so MPI_Pcontrol(2) around every solver step gives the solver's matrix. The rows are
/// differences of snapshots of the counters (ProfileSession::snapshot), so each phase holds the
/// same classes as the profile's totals, MPI_Get replies excepted (they reach the sender's row
/// only at MPI_Finalize).
class PcontrolPhases {
 public:
  /// At most this many distinct levels are kept (16 bytes x world size each); the traffic of
  /// further levels is still in the totals, and dropped_levels() says how many were left out.
  static constexpr std::size_t kMaxPhases = 64;

  /// `level`: 1 when counting starts at MPI_Init, 0 when it waits for MPI_Pcontrol.
  PcontrolPhases(int world_size, int level);

  /// The program switched to `level` (>= 0) with the counters at `counters` (one entry per world
  /// rank): the phase that was on gets what was sent since it began. Throws std::bad_alloc.
  void change(int level, std::span<const Volume> counters);

  /// The current level.
  [[nodiscard]] int level() const noexcept { return level_; }
  /// The levels that were on at some point, increasing.
  [[nodiscard]] std::vector<int> levels() const;
  /// This process's row of phase `level` (n = 1, non-zero entries by increasing column; empty
  /// when the level was never on here). Throws std::bad_alloc.
  [[nodiscard]] kernels::Csr matrix_row(int level, VolumeMetric metric) const;
  [[nodiscard]] std::size_t dropped_levels() const noexcept { return dropped_levels_; }

 private:
  int world_size_;
  int level_;
  std::vector<Volume> since_;  ///< the counters when the current level began
  std::map<int, std::vector<Volume>> rows_;
  std::size_t dropped_levels_ = 0;
};

}  // namespace treematch::profile
