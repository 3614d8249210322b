// The quality corpus (what --cases corpus selects) and the regression guard's baseline checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/bench/bench_cases.h"
#include "apps/bench/cost_baseline.h"
#include "apps/bench/report.h"

namespace treematch::bench {
namespace {

TEST(Corpus, HoldsFortyNamedInstancesFrom256To65536RanksMostlyIrregular) {
  const std::vector<CaseSpec> catalogue = all_cases();
  const Selection corpus = select_cases(catalogue, {"corpus"});
  const Selection quick = select_cases(catalogue, {"corpus-quick"});
  ASSERT_GE(corpus.cases.size(), 40U);
  std::set<std::string> all_names;  // a name selects one case of the whole catalogue
  for (const CaseSpec& spec : catalogue)
    EXPECT_TRUE(all_names.insert(spec.name).second) << spec.name;
  std::set<std::string> names;
  int irregular = 0;
  for (const CaseSpec& spec : corpus.cases) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " twice";
    EXPECT_FALSE(spec.description.empty()) << spec.name;
    EXPECT_FALSE(spec.in_default) << spec.name;
    if (spec.matrix_source == MatrixSource::kGeometric) {
      ++irregular;
      EXPECT_GE(spec.geometric.ranks, 256) << spec.name;
      EXPECT_LE(spec.geometric.ranks, 65536) << spec.name;
    }
  }
  EXPECT_GT(2 * irregular, static_cast<int>(corpus.cases.size()));
  ASSERT_FALSE(quick.cases.empty());
  for (const CaseSpec& spec : quick.cases) EXPECT_TRUE(names.count(spec.name)) << spec.name;
  EXPECT_LT(quick.cases.size(), corpus.cases.size());
}

/// The catalogue's case `name`, generated (seed 1, no data folder); throws if there is none.
LoadedCase load_generated(const std::string& name) {
  const std::vector<CaseSpec> catalogue = all_cases();
  const auto it = std::find_if(catalogue.begin(), catalogue.end(),
                               [&](const CaseSpec& c) { return c.name == name; });
  if (it == catalogue.end()) throw std::invalid_argument("no case " + name);
  return load_case(*it, /*data_dir=*/"", /*seed=*/1);
}

TEST(Corpus, ASmallInstanceLoadsWithItsSizeAndTree) {
  const LoadedCase loaded = load_generated("knn3d-512-hops");
  EXPECT_EQ(loaded.processes, 512);
  EXPECT_EQ(loaded.topology.leaf_count(), 512);
  EXPECT_EQ(loaded.topology_spec, "tleaf 4 4 4 8 3 2 2 8 1");
}

TEST(Corpus, ARestrictedInstanceKeepsTheReservedCoresFromTheJob) {
  const LoadedCase loaded = load_generated("geo2d-3000-corespec");
  EXPECT_EQ(loaded.processes, 3000);
  EXPECT_EQ(loaded.topology.leaf_count(), 4096);
  // 14 of every 16-core package: 3584 cores, none of the last two of a package.
  ASSERT_EQ(loaded.allowed_leaves.size(), 3584U);
  EXPECT_TRUE(std::is_sorted(loaded.allowed_leaves.begin(), loaded.allowed_leaves.end()));
  for (const Index leaf : loaded.allowed_leaves) EXPECT_LT(leaf % 16, 14) << leaf;
}

CaseResult mapped(const std::string& name, const std::string& preset, double cost) {
  CaseResult c;
  c.name = name;
  PresetResult p{preset, {}, {}};
  p.tool.attempted = true;
  p.tool.cost.weighted = cost;
  c.presets.push_back(p);
  return c;
}

TEST(CostBaseline, FailsOnlyAboveEachPresetsAllowance) {
  const std::vector<BaselineCost> baseline{
      {"a", "default", 1000.0, "d1"}, {"a", "fast", 1000.0, "d2"}, {"b", "strong", 500.0, "d3"}};
  EXPECT_TRUE(check_cost_baseline(baseline, {mapped("a", "default", 1000.09)}).empty());
  EXPECT_EQ(check_cost_baseline(baseline, {mapped("a", "default", 1000.11)}).size(), 1U);
  EXPECT_TRUE(check_cost_baseline(baseline, {mapped("a", "fast", 1004.9)}).empty());
  const std::vector<std::string> fast = check_cost_baseline(baseline, {mapped("a", "fast", 1006)});
  ASSERT_EQ(fast.size(), 1U);
  EXPECT_NE(fast[0].find("a fast"), std::string::npos) << fast[0];
  EXPECT_TRUE(check_cost_baseline(baseline, {mapped("b", "strong", 400.0)}).empty());  // better
  EXPECT_EQ(check_cost_baseline(baseline, {mapped("c", "strong", 1.0)}).size(), 1U);   // unknown
  CaseResult moved = mapped("b", "strong", 500.0);
  moved.presets[0].mapping_digest = "other";
  EXPECT_TRUE(check_cost_baseline(baseline, {moved}).empty());
  EXPECT_EQ(check_cost_baseline(baseline, {moved}, /*same_mappings=*/true).size(), 1U);
  moved.presets[0].mapping_digest = "d3";
  EXPECT_TRUE(check_cost_baseline(baseline, {moved}, /*same_mappings=*/true).empty());
  CaseResult failed = mapped("b", "strong", 0.0);
  failed.presets[0].tool.failure = "killed";
  EXPECT_EQ(check_cost_baseline(baseline, {failed}).size(), 1U);
  CaseResult broken;
  broken.name = "b";
  broken.error = "missing data file";
  EXPECT_EQ(check_cost_baseline(baseline, {broken}).size(), 1U);
}

TEST(CostBaseline, WritesWhatItReadsAndNamesTheBadLine) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "corpus_guard_test_baseline.txt";
  CaseResult a = mapped("a", "default", 1234.5678901234567);
  a.presets[0].mapping_digest = "abc";
  write_cost_baseline(path.string(), {a}, "header line\nsecond");
  const std::vector<BaselineCost> read = read_cost_baseline(path.string());
  ASSERT_EQ(read.size(), 1U);
  EXPECT_EQ(read[0].instance, "a");
  EXPECT_EQ(read[0].preset, "default");
  EXPECT_EQ(read[0].cost, 1234.5678901234567);
  EXPECT_EQ(read[0].digest, "abc");
  {
    std::ofstream out(path, std::ios::app);
    out << "b default 12\n";
  }
  try {
    (void)read_cost_baseline(path.string());
    FAIL() << "a line without a cost was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":4"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW((void)read_cost_baseline(path.string()), std::runtime_error);
}

TEST(CostBaseline, DigestsTellMappingsApart) {
  EXPECT_EQ(mapping_digest({0, 1, 2}), mapping_digest({0, 1, 2}));
  EXPECT_NE(mapping_digest({0, 1, 2}), mapping_digest({0, 2, 1}));
  EXPECT_EQ(mapping_digest({}).size(), 16U);
}

}  // namespace
}  // namespace treematch::bench
