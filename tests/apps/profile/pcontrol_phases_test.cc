// MPI_Pcontrol phases of the profiling library: rows as differences of counter snapshots.
#include <gtest/gtest.h>

#include <vector>

#include "apps/profile/pcontrol_phases.h"

namespace treematch::profile {
namespace {

/// Counters towards 3 world ranks, bytes only (one message per 100 bytes).
std::vector<Volume> counters(std::uint64_t b0, std::uint64_t b1, std::uint64_t b2) {
  return {Volume{b0 / 100, b0}, Volume{b1 / 100, b1}, Volume{b2 / 100, b2}};
}

/// Phase `level`'s row as (column, value) pairs.
std::vector<std::pair<kernels::Index, double>> entries(const PcontrolPhases& phases, int level,
                                                       VolumeMetric metric) {
  const kernels::Csr row = phases.matrix_row(level, metric);
  EXPECT_EQ(row.n, 1);
  EXPECT_EQ(row.offsets.size(), 2u);
  std::vector<std::pair<kernels::Index, double>> out;
  for (std::size_t k = 0; k < row.targets.size(); ++k)
    out.emplace_back(row.targets[k], row.weights[k]);
  return out;
}

using Entries = std::vector<std::pair<kernels::Index, double>>;

TEST(PcontrolPhases, EachLevelGetsWhatWasSentWhileItWasOnAndAReturningLevelAdds) {
  PcontrolPhases phases(3, 1);                 // counting from MPI_Init: level 1
  phases.change(2, counters(100, 0, 0));       // level 1 sent 100 to rank 0
  phases.change(3, counters(100, 500, 0));     // level 2 sent 500 to rank 1
  phases.change(0, counters(100, 500, 700));   // level 3 sent 700 to rank 2
  phases.change(2, counters(900, 500, 700));   // off: 800 to rank 0 counted in no phase
  phases.change(0, counters(900, 800, 1000));  // level 2 again: 300 to rank 1, 300 to rank 2
  EXPECT_EQ(phases.levels(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(entries(phases, 1, VolumeMetric::kBytes), (Entries{{0, 100.0}}));
  EXPECT_EQ(entries(phases, 2, VolumeMetric::kBytes), (Entries{{1, 800.0}, {2, 300.0}}));
  EXPECT_EQ(entries(phases, 2, VolumeMetric::kMessages), (Entries{{1, 8.0}, {2, 3.0}}));
  EXPECT_EQ(entries(phases, 3, VolumeMetric::kBytes), (Entries{{2, 700.0}}));
  EXPECT_TRUE(entries(phases, 4, VolumeMetric::kBytes).empty()) << "a level never on";
  EXPECT_EQ(phases.dropped_levels(), 0u);
}

TEST(PcontrolPhases, StartingOffCountsNothingBeforeTheFirstLevel) {
  PcontrolPhases phases(3, 0);
  phases.change(0, counters(100, 0, 0));  // stays off
  phases.change(5, counters(100, 0, 0));
  phases.change(5, counters(150, 0, 0));  // the same level: the phase goes on
  phases.change(0, counters(200, 0, 0));
  EXPECT_EQ(phases.levels(), (std::vector<int>{5}));
  EXPECT_EQ(entries(phases, 5, VolumeMetric::kBytes), (Entries{{0, 100.0}}));
}

TEST(PcontrolPhases, LevelsBeyondTheLimitAreCountedAsDropped) {
  PcontrolPhases phases(3, 0);
  std::uint64_t sent = 0;
  for (int level = 1; level <= static_cast<int>(PcontrolPhases::kMaxPhases) + 2; ++level) {
    phases.change(level, counters(sent, 0, 0));
    sent += 100;
  }
  phases.change(0, counters(sent, 0, 0));
  EXPECT_EQ(phases.levels().size(), PcontrolPhases::kMaxPhases);
  EXPECT_EQ(phases.dropped_levels(), 2u);
  EXPECT_EQ(entries(phases, 1, VolumeMetric::kBytes), (Entries{{0, 100.0}}));
}

}  // namespace
}  // namespace treematch::profile
