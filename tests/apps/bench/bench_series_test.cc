// The growth series: which cases `--cases growth` selects, and how its time per entry is judged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/bench/bench_cases.h"
#include "apps/bench/report.h"

namespace treematch::bench {
namespace {

std::vector<std::string> names_of(const Selection& selection) {
  std::vector<std::string> names;
  for (const CaseSpec& spec : selection.cases) names.push_back(spec.name);
  return names;
}

TEST(GrowthSeries, SelectsTheStencilsFrom16kTo1MButS4OnlyByName) {
  const std::vector<CaseSpec> catalogue = all_cases();
  EXPECT_EQ(names_of(select_cases(catalogue, {"growth"})),
            (std::vector<std::string>{"S1", "S2", "growth-262144", "S3"}));
  EXPECT_EQ(names_of(select_cases(catalogue, {"growth", "S4"})),
            (std::vector<std::string>{"S1", "S2", "growth-262144", "S3", "S4"}));
}

TEST(GrowthSeries, FlatWhenEveryPointIsWithin30PercentOfTheMedian) {
  const std::optional<Flatness> flat = flatness({1.0, 1.25, 0.8});
  ASSERT_TRUE(flat.has_value());
  EXPECT_DOUBLE_EQ(flat->median, 1.0);
  EXPECT_DOUBLE_EQ(flat->lowest, 0.8);
  EXPECT_DOUBLE_EQ(flat->highest, 1.25);
  EXPECT_TRUE(flat->flat);
  const std::optional<Flatness> steep = flatness({1.0, 1.0, 1.5, 3.0});
  ASSERT_TRUE(steep.has_value());
  EXPECT_DOUBLE_EQ(steep->median, 1.25);
  EXPECT_FALSE(steep->flat);
  EXPECT_FALSE(flatness({1.0}).has_value());
}

CaseResult mapped(const std::string& name, long long entries, double seconds) {
  CaseResult c;
  c.name = name;
  c.series = "growth";
  c.processes = static_cast<Index>(entries / 26);
  c.entries = entries;
  PresetResult fast{"fast", {}, {}};
  fast.tool.attempted = true;
  fast.tool.wall_seconds = {seconds};
  fast.tool.min_wall_seconds = seconds;
  fast.tool.phases = {PhaseSeconds{0.0, 0.0, seconds / 2}};
  c.presets.push_back(fast);
  return c;
}

TEST(GrowthSeries, ThePresetTableSaysWhetherTheTimePerEntryStaysFlat) {
  // 1 us an entry, then 4 us: the larger case strays.
  const std::vector<CaseResult> steep = {mapped("small", 1000000, 1.0),
                                         mapped("large", 10000000, 40.0)};
  const std::string text = render_series_presets(steep, "growth");
  EXPECT_NE(text.find("--preset fast:"), std::string::npos) << text;
  EXPECT_NE(text.find("TM s per entry 0.40x to 1.60x its median (not within +-30%)"),
            std::string::npos)
      << text;
  const std::vector<CaseResult> even = {mapped("small", 1000000, 1.0),
                                        mapped("large", 10000000, 11.0)};
  EXPECT_NE(render_series_presets(even, "growth").find("(within +-30%)"), std::string::npos);
  EXPECT_EQ(render_series_presets(even, "other"), "");
}

}  // namespace
}  // namespace treematch::bench
