// The peak memory model: where the driver holds the whole matrix for more than the walk, each
// entry costs more; the model follows the preset's gates (src/driver/treematch.cc).
#include <gtest/gtest.h>

#include <cstdint>

#include "src/driver/memory_estimate.h"
#include "src/model/context.h"

namespace treematch {
namespace {

constexpr std::int64_t kProcesses = 1 << 20;

TEST(MemoryEstimate, GrowsWithProcessesAndEntries) {
  const Context ctx = default_context();
  const std::int64_t entries = std::int64_t{1} << 24;
  EXPECT_LT(estimated_peak_bytes(kProcesses, entries, ctx),
            estimated_peak_bytes(kProcesses, 2 * entries, ctx));
  EXPECT_LT(estimated_peak_bytes(kProcesses, entries, ctx),
            estimated_peak_bytes(2 * kProcesses, entries, ctx));
}

TEST(MemoryEstimate, AnEntryCostsMoreWhereTheWholeMatrixIsHeldForTheTopDownStrategies) {
  // `default` holds the whole matrix up to driver.whole_matrix_max_entries (2^22); above, only
  // the walk runs and an entry costs less (31 B against 41 B: the coarse levels and subgraphs of
  // the multilevel candidate are gone).
  const Context ctx = default_context();
  const std::int64_t held = ctx.driver.whole_matrix_max_entries;
  const std::int64_t per_entry_held =
      (estimated_peak_bytes(kProcesses, held, ctx) - estimated_peak_bytes(kProcesses, 0, ctx)) /
      held;
  const std::int64_t per_entry_walk =
      (estimated_peak_bytes(kProcesses, 4 * held, ctx) - estimated_peak_bytes(kProcesses, 0, ctx)) /
      (4 * held);
  EXPECT_GT(per_entry_held, per_entry_walk + 5);
  // Forcing the whole matrix (--refine) keeps the costlier regime at any size.
  Context forced = ctx;
  forced.driver.whole_matrix_forced = true;
  EXPECT_GT(estimated_peak_bytes(kProcesses, 4 * held, forced),
            estimated_peak_bytes(kProcesses, 4 * held, ctx));
}

TEST(MemoryEstimate, FastHoldsTheWholeMatrixOnlyWhereItsMultilevelCandidateApplies) {
  // fast: the multilevel candidate up to 2^20 entries, refinement up to 2^17; between 2^20 and
  // 2^22 the matrix is whole but only the walk runs on it.
  const Context fast = preset_context(Preset::kFast);
  const Context walk_only = [] {
    Context ctx = preset_context(Preset::kFast);
    ctx.driver.whole_matrix_max_entries = 0;
    return ctx;
  }();
  const std::int64_t small = std::int64_t{1} << 19;
  const std::int64_t middle = std::int64_t{1} << 21;
  EXPECT_GT(estimated_peak_bytes(kProcesses, small, fast),
            estimated_peak_bytes(kProcesses, small, walk_only));
  EXPECT_EQ(estimated_peak_bytes(kProcesses, middle, fast),
            estimated_peak_bytes(kProcesses, middle, walk_only));
}

TEST(MemoryEstimate, TheMillionRankStencilNeedsWhatItWasMeasuredToTake) {
  // S3 (1,048,576 ranks, 26,676,984 entries): `fast` and `default` peaked at 879 and 860 MiB
  // (walk only), with the multilevel candidate forced at 1050 and 1154 MiB.
  const std::int64_t entries = 26676984;
  const double mib = 1 << 20;
  const double walk = static_cast<double>(estimated_peak_bytes(kProcesses, entries,
                                                               preset_context(Preset::kFast))) /
                      mib;
  EXPECT_GT(walk, 860.0 * 0.97);
  EXPECT_LT(walk, 879.0 * 1.05);
  Context forced = preset_context(Preset::kFast);
  forced.driver.whole_matrix_forced = true;
  forced.multilevel.max_entries = entries;
  const double whole = static_cast<double>(estimated_peak_bytes(kProcesses, entries, forced)) / mib;
  EXPECT_GT(whole, 1154.0);
  EXPECT_LT(whole, 1154.0 * 1.1);
}

TEST(MemoryEstimate, RowsSpreadOverRanksNeedWhatTheLargestRankWasMeasuredToTake) {
  // Under mpirun the largest rank peaked at 558 and 322 MiB on S3 (R = 2, 4; fast and default)
  // and at 2.6 GiB on S4 (10,485,760 ranks, 269,983,608 entries; R = 4, fast).
  const double mib = 1 << 20;
  const Context fast = preset_context(Preset::kFast);
  const auto spread = [&](std::int64_t processes, std::int64_t entries, int ranks) {
    return static_cast<double>(estimated_peak_bytes(processes, entries, fast, ranks)) / mib;
  };
  EXPECT_GT(spread(kProcesses, 26676984, 2), 558.0);
  EXPECT_LT(spread(kProcesses, 26676984, 2), 558.0 * 1.1);
  EXPECT_GT(spread(kProcesses, 26676984, 4), 322.0);
  EXPECT_LT(spread(kProcesses, 26676984, 4), 322.0 * 1.15);
  EXPECT_GT(spread(10485760, 269983608, 4), 2.6 * 1024);
  EXPECT_LT(spread(10485760, 269983608, 4), 2.6 * 1024 * 1.1);
  // More ranks, less on each; never below what every rank holds whole.
  EXPECT_LT(spread(10485760, 269983608, 8), spread(10485760, 269983608, 4));
  EXPECT_GT(spread(10485760, 269983608, 1024), 10485760 * 21 / mib);
}

TEST(MemoryEstimate, AMatrixGatheredOnEveryRankNeedsAWholeRunAndItsBlock) {
  // At most driver.whole_matrix_max_entries entries: every rank gathers the matrix.
  const Context ctx = default_context();
  const std::int64_t entries = ctx.driver.whole_matrix_max_entries;
  EXPECT_GT(estimated_peak_bytes(kProcesses, entries, ctx, 4),
            estimated_peak_bytes(kProcesses, entries, ctx, 1));
  EXPECT_LT(estimated_peak_bytes(kProcesses, entries, ctx, 4),
            estimated_peak_bytes(kProcesses, entries, ctx, 1) + entries * 12);
}

}  // namespace
}  // namespace treematch
