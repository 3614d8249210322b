// End-to-end: `treematch convert --from ompi-monitoring`, then map/eval/convert/batch on the
// result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/model/cost.h"
#include "tests/apps/run_command.h"
#include "tests/graph_arrays.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;

// 4 machines x 4 cores for the 16 ranks of the sample (a 4 x 4 halo, a ring, an allreduce).
const std::string kMonitoredTopology = "tleaf 2 4 100 4 1";

std::string sample_dir() {
  return data_dir() + "/ompi-monitoring-sample/stencil16";
}

/// Files in `dir` whose name contains ".tmp" (a leftover temporary).
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp") != std::string::npos)
      names.push_back(entry.path().string());
  }
  return names;
}

/// The sample converted once into <dir>/pattern.h5.
class OmpiMonitoringCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CommandResult run = run_treematch(
        "convert --from ompi-monitoring " + quote(sample_dir()) + " " + quote(pattern()), dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    convert_err = run.err;
  }
  [[nodiscard]] std::string pattern() const { return dir.file("pattern.h5"); }

  TempDir dir;
  std::string convert_err;
};

TEST_F(OmpiMonitoringCli, ConvertSaysWhatItRead) {
  EXPECT_NE(convert_err.find("16 ranks"), std::string::npos) << convert_err;
  EXPECT_NE(convert_err.find("external 3850240 B / 640 msgs"), std::string::npos) << convert_err;
  EXPECT_NE(convert_err.find("internal 5480 B / 730 msgs"), std::string::npos) << convert_err;
  EXPECT_NE(convert_err.find("one-sided 0 B / 0 msgs"), std::string::npos) << convert_err;
  EXPECT_NE(convert_err.find("240 C lines not added"), std::string::npos) << convert_err;
  EXPECT_TRUE(leftovers(dir.path()).empty());
}

TEST_F(OmpiMonitoringCli, MapWritesARankfileWhoseCostTheCheckerConfirms) {
  const std::string rankfile = dir.file("job.rankfile");
  const CommandResult map = run_treematch("map --matrix " + quote(pattern()) + " --topology " +
                                              quote(kMonitoredTopology) +
                                              " --node-size 4 --hosts n0,n1,n2,n3 --format "
                                              "rankfile -o " +
                                              quote(rankfile),
                                          dir);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  std::istringstream lines(read_text(rankfile));
  const std::regex form(R"(rank (\d+)=(n[0-3]) slot=([0-3]))");
  std::set<std::string> slots;
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.front() == '#') continue;  // the header says how to launch it
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, form)) << line;
    EXPECT_EQ(std::stoi(match[1]), count++);
    slots.insert(match[2].str() + ":" + match[3].str());
  }
  EXPECT_EQ(count, 16);
  EXPECT_EQ(slots.size(), 16u);

  // The same mapping as a permutation; its cost recomputed from the converted file.
  const CommandResult perm =
      run_treematch("map --compare --format json --matrix " + quote(pattern()) + " -t " +
                        quote(kMonitoredTopology),
                    dir);
  ASSERT_EQ(perm.exit_code, 0) << perm.err;
  const auto report = nlohmann::json::parse(perm.out);
  const std::vector<Index> leaves = report["mapping"].get<std::vector<Index>>();
  const MappingCost cost = evaluate_cost(io::read_matrix(pattern()),
                                         io::read_topology(kMonitoredTopology), Mapping{leaves});
  EXPECT_DOUBLE_EQ(report["costs"]["treematch"]["hop_bytes"].get<double>(), cost.hop_bytes);
  // Rows of the grid per machine (packed) cut 12 halo links; 2 x 2 blocks cut 8.
  EXPECT_LT(cost.hop_bytes, report["costs"]["packed"]["hop_bytes"].get<double>());
}

TEST_F(OmpiMonitoringCli, MatrixNamesATrafficClassInsideTheFile) {
  // map and eval read pattern.h5:/external (size and msg), or one matrix of it (size only).
  const CommandResult map = run_treematch(
      "map --matrix " + quote(pattern() + ":/external") + " -t " + quote(kMonitoredTopology), dir);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  std::ofstream(dir.file("external.perm")) << map.out;
  const std::vector<Index> leaves = parse_perm(map.out);
  ASSERT_EQ(leaves.size(), 16u);

  for (const std::string metric : {"size", "msg", "avg"}) {
    const CommandResult eval = run_treematch(
        "eval --json --metric " + metric + " --matrix " + quote(pattern() + ":/external") + " -t " +
            quote(kMonitoredTopology) + " --mapping " + quote(dir.file("external.perm")),
        dir);
    ASSERT_EQ(eval.exit_code, 0) << metric << ": " << eval.err;
    const MappingCost cost =
        evaluate_cost(io::read_matrix(pattern() + ":/external", io::parse_metric(metric)),
                      io::read_topology(kMonitoredTopology), Mapping{leaves});
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(eval.out)["hop_bytes"].get<double>(), cost.hop_bytes)
        << metric;
  }
  const CommandResult one = run_treematch(
      "map --matrix " + quote(pattern() + ":/internal/msg") + " -t " + quote(kMonitoredTopology),
      dir);
  EXPECT_EQ(one.exit_code, 0) << one.err;

  const CommandResult single_metric =
      run_treematch("map --metric msg --matrix " + quote(pattern() + ":/internal/msg") + " -t " +
                        quote(kMonitoredTopology),
                    dir);
  EXPECT_EQ(single_metric.exit_code, 2);
  EXPECT_NE(single_metric.err.find("single metric"), std::string::npos) << single_metric.err;
  const CommandResult missing = run_treematch(
      "map --matrix " + quote(pattern() + ":/collective") + " -t " + quote(kMonitoredTopology),
      dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(pattern() + ":/collective: no object /collective"), std::string::npos)
      << missing.err;
}

TEST_F(OmpiMonitoringCli, ConvertReadsOneClassBack) {
  const std::string text = dir.file("external.mat");
  const CommandResult run =
      run_treematch("convert " + quote(pattern() + ":/external") + " " + quote(text), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("carries size and msg"), std::string::npos) << run.err;
  EXPECT_EQ(arrays(io::read_matrix(text)), arrays(io::read_matrix(pattern() + ":/external")));
  EXPECT_EQ(io::read_matrix(text).size(), 16);
}

TEST_F(OmpiMonitoringCli, BatchMapsAClassGroupAsOnePattern) {
  const fs::path out = dir.path() / "out";
  const CommandResult run =
      run_treematch("batch --metric msg -t " + quote(kMonitoredTopology) + " --out " +
                        quote(out.string()) + " " + quote(pattern() + ":/external") + " " +
                        quote(pattern() + ":/internal") + " " + quote(pattern()),
                    dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto rows = nlohmann::json::parse(read_text(out / "summary.json"))["patterns"];
  ASSERT_EQ(rows.size(), 3u);
  std::vector<std::string> names;
  for (const auto& row : rows) {
    names.push_back(row["name"]);
    EXPECT_EQ(row["status"], "ok") << row.dump();
    EXPECT_EQ(row["p"], 16);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"pattern.h5_external", "pattern.h5_internal", "pattern.h5"}));
}

// --- Bad runs: one line naming the file, no output ---------------------------------------------

/// A copy of the sample in <dir>/run.
fs::path copy_sample(const TempDir& dir) {
  const fs::path run = dir.path() / "run";
  fs::create_directories(run);
  for (const auto& entry : fs::directory_iterator(sample_dir())) {
    fs::copy_file(entry.path(), run / entry.path().filename());
    fs::permissions(run / entry.path().filename(), fs::perms::owner_write, fs::perm_options::add);
  }
  return run;
}

void expect_failure_without_output(const TempDir& dir, const fs::path& run,
                                   const std::string& message) {
  const std::string out = dir.file("pattern.h5");
  const CommandResult result = run_treematch(
      "convert --from ompi-monitoring " + quote(run.string()) + " " + quote(out), dir);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(leftovers(dir.path()).empty());
}

TEST(OmpiMonitoringCliErrors, MalformedLineNamesFileAndLine) {
  TempDir dir;
  const fs::path run = copy_sample(dir);
  std::ofstream(run / "prof.5.prof", std::ios::app) << "E\t5\t6\t12 bytes\n";
  expect_failure_without_output(
      dir, run, (run / "prof.5.prof").string() + ": line 39: E line with 4 tab-separated fields");
}

TEST(OmpiMonitoringCliErrors, MissingRankFileIsNamed) {
  TempDir dir;
  const fs::path run = copy_sample(dir);
  fs::remove(run / "prof.9.prof");
  expect_failure_without_output(dir, run, (run / "prof.9.prof").string() + ": missing");
}

TEST(OmpiMonitoringCliErrors, EmptyDirectory) {
  TempDir dir;
  fs::create_directories(dir.path() / "run");
  expect_failure_without_output(dir, dir.path() / "run", "no Open MPI monitoring file");
}

TEST(OmpiMonitoringCliErrors, OutputMustBeHdf5AndMetricDoesNotApply) {
  TempDir dir;
  const CommandResult text = run_treematch(
      "convert --from ompi-monitoring " + quote(sample_dir()) + " " + dir.file("p.mat"), dir);
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find("writes HDF5"), std::string::npos) << text.err;
  const CommandResult metric = run_treematch(
      "convert --from ompi-monitoring --metric msg " + quote(sample_dir()) + " " + dir.file("p.h5"),
      dir);
  EXPECT_EQ(metric.exit_code, 2);
  EXPECT_NE(metric.err.find("--metric: does not apply"), std::string::npos) << metric.err;
  EXPECT_FALSE(fs::exists(dir.file("p.mat")));
  EXPECT_FALSE(fs::exists(dir.file("p.h5")));
}

}  // namespace
}  // namespace treematch::testing
