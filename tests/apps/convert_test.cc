// End-to-end tests of `treematch convert` and `generate`: round trips, metrics, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/matrix_reader.h"
#include "tests/apps/run_command.h"
#include "tests/graph_arrays.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;

using testing::arrays;
using testing::GraphArrays;

// The seed matrix:
//     0 1000   10    1  100    1    1    1
//  1000    0 1000    1    1  100    1    1
//    10 1000    0 1000    1    1  100    1
//     1    1 1000    0    1    1    1  100
//   100    1    1    1    0 1000   10    1
//     1  100    1    1 1000    0 1000    1
//     1    1  100    1   10 1000    0 1000
//     1    1    1  100    1    1 1000    0
const char* const kSeed =
    "0 1000 10 1 100 1 1 1\n1000 0 1000 1 1 100 1 1\n10 1000 0 1000 1 1 100 1\n"
    "1 1 1000 0 1 1 1 100\n100 1 1 1 0 1000 10 1\n1 100 1 1 1000 0 1000 1\n"
    "1 1 100 1 10 1000 0 1000\n1 1 1 100 1 1 1000 0\n";

/// A random symmetric sparse matrix of 300 ranks (~10 neighbours, fractional weights) as .mat text.
std::string random_sparse_300() {
  const int n = 300;
  std::mt19937_64 engine(11);
  std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 5; ++k) {
      const auto j = static_cast<int>(engine() % n);
      if (j == i) continue;
      m[i][j] = m[j][i] = static_cast<double>(engine() % 1000000) / 3.0 + 1.0;
    }
  }
  std::string text;
  for (const auto& row : m) {
    for (int j = 0; j < n; ++j) text += fmt::format("{}{}", row[j], j + 1 < n ? " " : "\n");
  }
  return text;
}

/// Files in `dir` whose name contains ".tmp" (a leftover temporary).
std::vector<std::string> leftovers(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (entry.path().filename().string().find(".tmp") != std::string::npos)
      names.push_back(entry.path().string());
  }
  return names;
}

/// mat -> h5 -> csv -> metis -> h5-dense -> mat through the CLI; every file reads as the original.
void expect_round_trip(const std::string& text) {
  TempDir dir;
  const std::string original = dir.file("original.mat");
  std::ofstream(original) << text;
  const GraphArrays expected = arrays(io::read_matrix(original));
  const std::vector<std::pair<std::string, std::string>> steps = {
      {"a.h5", ""}, {"b.csv", ""}, {"c.graph", ""}, {"d.h5", "--format h5-dense"}, {"e.mat", ""}};
  std::string from = original;
  for (const auto& [name, extra] : steps) {
    const std::string to = dir.file(name);
    const CommandResult run =
        run_treematch("convert " + quote(from) + " " + quote(to) + " " + extra, dir);
    ASSERT_EQ(run.exit_code, 0) << name << ": " << run.err;
    EXPECT_EQ(arrays(io::read_matrix(to)), expected) << name;
    from = to;
  }
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(CliConvert, SeedMatrixRoundTripsThroughEveryFormat) {
  expect_round_trip(kSeed);
}

TEST(CliConvert, RandomSparse300RoundTripsThroughEveryFormat) {
  expect_round_trip(random_sparse_300());
}

TEST(CliConvert, SummaryLineNamesFormatAndCounts) {
  TempDir dir;
  std::ofstream(dir.file("seed.mat")) << kSeed;
  const CommandResult run = run_treematch(
      "convert " + dir.file("seed.mat") + " " + dir.file("seed.h5") + " --no-compress", dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty());
  EXPECT_NE(run.err.find("(h5, uncompressed): 8 ranks, 56 entries"), std::string::npos) << run.err;
}

TEST(CliConvert, MaplibPairToHdf5WithBothMetricsThenMsgIsReadBack) {
  TempDir dir;
  const std::string size = data_dir() + "/maplib/amg_comm_matrix.p2p.size.csv";
  if (!fs::exists(size)) GTEST_SKIP() << "MapLib data missing: " << size;
  const std::string out = dir.file("amg.h5");

  const CommandResult run =
      run_treematch("convert " + quote(size) + " " + quote(out) + " --metric both", dir);

  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("/size and /msg"), std::string::npos) << run.err;
  EXPECT_EQ(arrays(io::read_matrix(out, io::Metric::kMsg)),
            arrays(io::read_matrix(size, io::Metric::kMsg)));
  EXPECT_EQ(arrays(io::read_matrix(out, io::Metric::kSize)),
            arrays(io::read_matrix(size, io::Metric::kSize)));
  EXPECT_EQ(arrays(io::read_matrix(out, io::Metric::kAvg)),
            arrays(io::read_matrix(size, io::Metric::kAvg)));
  // The mapper picks the metric later.
  const CommandResult map =
      run_treematch("map --metric msg -m " + quote(out) + " -t 'pack:4 core:16 pu:1'", dir);
  EXPECT_EQ(map.exit_code, 0) << map.err;
}

TEST(CliConvert, MetricMsgPicksTheCountFile) {
  TempDir dir;
  const std::string size = data_dir() + "/maplib/amg_comm_matrix.p2p.size.csv";
  if (!fs::exists(size)) GTEST_SKIP() << "MapLib data missing: " << size;
  const std::string out = dir.file("amg_msg.csv");

  const CommandResult run =
      run_treematch("convert " + quote(size) + " " + quote(out) + " --metric msg", dir);

  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(arrays(io::read_matrix(out)), arrays(io::read_matrix(size, io::Metric::kMsg)));
}

TEST(CliConvert, DirectedInputToMetisSaysItWritesCPlusCTranspose) {
  TempDir dir;
  std::ofstream(dir.file("d.mat")) << "0 5\n1 0\n";
  const CommandResult run =
      run_treematch("convert " + dir.file("d.mat") + " " + dir.file("d.graph"), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("C + C^T"), std::string::npos) << run.err;
  EXPECT_EQ(read_text(dir.file("d.graph")), "2 1 001\n2 6\n1 6\n");
}

TEST(CliConvert, FailedConversionKeepsTheOldOutput) {
  TempDir dir;
  const std::string out = dir.file("out.h5");
  std::ofstream(out) << "previous content\n";
  std::ofstream(dir.file("bad.mat")) << "0 1 1\n1 0 1\n1 1\n";
  const CommandResult run = run_treematch("convert " + dir.file("bad.mat") + " " + out, dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(read_text(out), "previous content\n");
  EXPECT_TRUE(leftovers(dir).empty());
}

struct BadConvert {
  std::string name;
  std::string file;       ///< fixture file name ("" = none)
  std::string content;    ///< fixture content
  std::string arguments;  ///< {file} -> the fixture, {out} -> the output path
  std::string out;        ///< output file name
  std::string keyword;    ///< must appear in the message
  bool names_file = true;
};

/// Its name in test listings (CTest's test names), not gtest's byte dump.
void PrintTo(const BadConvert& c, std::ostream* out) {
  *out << c.name;
}

class CliConvertBadInput : public ::testing::TestWithParam<BadConvert> {};

TEST_P(CliConvertBadInput, OneLineErrorNonZeroExitNoOutputFile) {
  TempDir dir;
  const BadConvert& bad = GetParam();
  std::string arguments = bad.arguments;
  if (!bad.file.empty()) {
    std::ofstream(dir.file(bad.file)) << bad.content;
    arguments = std::regex_replace(arguments, std::regex(R"(\{file\})"), dir.file(bad.file));
  }
  const std::string out = dir.file(bad.out);
  arguments = std::regex_replace(arguments, std::regex(R"(\{out\})"), out);

  const CommandResult run = run_treematch(arguments, dir);

  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(bad.keyword), std::string::npos) << run.err;
  if (bad.names_file && !bad.file.empty()) {
    EXPECT_NE(run.err.find(dir.file(bad.file)), std::string::npos) << run.err;
  }
  EXPECT_FALSE(fs::exists(out)) << out;
  EXPECT_TRUE(leftovers(dir).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CliConvertBadInput,
    ::testing::Values(
        BadConvert{"ragged_to_h5", "m.mat", "0 1 2\n1 0\n2 1 0\n", "convert {file} {out}", "o.h5",
                   "ragged"},
        BadConvert{"too_few_rows_to_dense", "m.mat", "0 1 2\n1 0 3\n",
                   "convert {file} {out} --format h5-dense", "o.h5", "not square"},
        BadConvert{"negative_to_csv", "m.mat", "0 -1\n-1 0\n", "convert {file} {out}", "o.csv",
                   "negative"},
        BadConvert{"nan_to_metis", "m.csv", "0,nan\nnan,0\n", "convert {file} {out}", "o.graph",
                   "NaN"},
        BadConvert{"metis_asymmetric_to_mat", "m.graph", "3 2 001\n2 1\n1 1 3 1\n2 5\n",
                   "convert {file} {out}", "o.mat", "symmetric"},
        BadConvert{"metis_edge_count_to_h5", "m.graph", "3 3 001\n2 1\n1 1 3 1\n2 1\n",
                   "convert {file} {out}", "o.h5", "edge count"},
        BadConvert{"not_hdf5", "m.h5", "hello\n", "convert {file} {out}", "o.mat", "HDF5"},
        BadConvert{"missing_input", "", "", "convert /nonexistent/m.mat {out}", "o.h5",
                   "/nonexistent/m.mat: cannot open"},
        BadConvert{"missing_output_dir", "m.mat", "0 1\n1 0\n", "convert {file} {out}",
                   "no/such/dir/o.h5", "cannot write", false},
        BadConvert{"both_needs_two_metrics", "m.mat", "0 1\n1 0\n",
                   "convert {file} {out} --metric both", "o.h5", "single metric"},
        BadConvert{"both_needs_hdf5_output", "m.mat", "0 1\n1 0\n",
                   "convert {file} {out} --metric both", "o.csv", "--metric", false},
        BadConvert{"msg_of_single_metric", "m.mat", "0 1\n1 0\n",
                   "convert {file} {out} --metric msg", "o.h5", "single metric"},
        BadConvert{"unknown_extension", "m.mat", "0 1\n1 0\n", "convert {file} {out}", "o.txt",
                   "cannot tell the output format", false},
        BadConvert{"chunk_rows_on_csr", "m.mat", "0 1\n1 0\n",
                   "convert {file} {out} --chunk-rows 4", "o.h5", "--chunk-rows", false},
        // METIS output holds the whole matrix: nothing is sized from header counts the file
        // cannot hold (2 x (2^63 - 1) entries; 2^31 - 1 rows).
        BadConvert{"metis_edges_beyond_the_file_to_metis", "m.graph",
                   "4 9223372036854775807\n2\n1\n4\n3\n", "convert {file} {out}", "o.graph",
                   "header says 9223372036854775807 edges but the file (30 bytes) can hold at most "
                   "7"},
        BadConvert{"metis_vertices_beyond_the_file_to_metis", "m.graph", "2147483647 1\n2\n1\n",
                   "convert {file} {out}", "o.graph",
                   "header says 2147483647 vertices but the file (17 bytes) cannot hold"},
        BadConvert{"metis_no_vertices_to_mat", "m.graph", "0 0\n", "convert {file} {out}", "o.mat",
                   "no ranks"}),
    [](const ::testing::TestParamInfo<BadConvert>& param) { return param.param.name; });

TEST(CliGenerate, HierarchicalDenseHdf5ReadsBackAndMaps) {
  // 16 ranks on pack:2 l2:2 core:4 (depth 3): 10^(3 - h) x (1 + noise): 100-ish within an L2
  // (h = 1), 10-ish within a pack (h = 2), 1-ish across packs (h = 3); every entry present.
  TempDir dir;
  const std::string out = dir.file("h.h5");
  const std::string topology = "'pack:2 l2:2 core:4 pu:1'";

  const CommandResult run =
      run_treematch("generate hierarchical --ranks 16 --topology " + topology +
                        " --noise 0.1 --seed 5 --format " + "h5-dense --no-compress " + quote(out),
                    dir);

  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommGraph g = io::read_matrix(out);
  EXPECT_EQ(g.size(), 16);
  EXPECT_EQ(g.nnz(), 16 * 15);
  EXPECT_FALSE(g.was_symmetrised());
  int per_level[3] = {0, 0, 0};
  for (const Weight w : g.view().weights) {
    if (w >= 100 && w < 110) ++per_level[0];
    if (w >= 10 && w < 11) ++per_level[1];
    if (w >= 1 && w < 1.1) ++per_level[2];
  }
  EXPECT_EQ(per_level[0], 16 * 3);  // 3 other PUs in the same core
  EXPECT_EQ(per_level[1], 16 * 4);  // 4 PUs in the other core of the pack
  EXPECT_EQ(per_level[2], 16 * 8);  // 8 PUs in the other pack

  // The same seed gives the same matrix, in any format.
  const CommandResult again = run_treematch(
      "generate hierarchical --ranks 16 -t " + topology + " --seed 5 " + quote(dir.file("h.graph")),
      dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(arrays(io::read_matrix(dir.file("h.graph"))), arrays(g));

  const CommandResult map = run_treematch("map -m " + quote(out) + " -t " + topology, dir);
  EXPECT_EQ(map.exit_code, 0) << map.err;
}

TEST(CliGenerate, MoreRanksThanLeavesIsRejected) {
  TempDir dir;
  const std::string out = dir.file("h.h5");
  const CommandResult run =
      run_treematch("generate hierarchical --ranks 9 -t 'pack:2 core:4 pu:1' " + quote(out), dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--ranks: 9 ranks"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace treematch::testing
