// End-to-end tests of the treematch command: outputs in every format, costs, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/cost.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

const std::string kTopology = "tleaf 3 4 100 2 10 16 1";  // 4 nodes x 2 sockets x 16 cores

std::string clover128() {
  return data_dir() + "/pacos/examples/taskgraph/CloverLeaf128.APHiD";
}

std::vector<Index> parse_perm(const std::string& text) {
  std::vector<Index> leaves;
  std::istringstream in(text);
  Index leaf = 0;
  while (in >> leaf) leaves.push_back(leaf);
  return leaves;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST(CliMap, PermIsAPermutationWhoseCostTheCheckerConfirms) {
  TempDir dir;
  const CommandResult run =
      run_treematch("map -m " + quote(clover128()) + " -t " + quote(kTopology), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<Index> leaves = parse_perm(run.out);
  ASSERT_EQ(leaves.size(), 128u);
  EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 128u);
  EXPECT_TRUE(std::all_of(leaves.begin(), leaves.end(), [](Index l) { return l >= 0 && l < 128; }));

  // Independent check: recompute the cost and compare with the summary and with `eval`.
  const CommGraph graph = io::read_matrix(clover128());
  const Topology topology = io::read_topology(kTopology);
  const MappingCost cost = evaluate_cost(graph, topology, Mapping{leaves});
  std::ofstream(dir.file("ours.perm")) << run.out;
  const CommandResult eval =
      run_treematch("eval --json -m " + quote(clover128()) + " -t " + quote(kTopology) +
                        " --mapping " + dir.file("ours.perm"),
                    dir);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto j = nlohmann::json::parse(eval.out);
  EXPECT_DOUBLE_EQ(j["hop_bytes"].get<double>(), cost.hop_bytes);
  EXPECT_DOUBLE_EQ(j["weighted"].get<double>(), cost.weighted);
}

TEST(CliMap, CompareListsEveryBaselineAndTreeMatchBeatsPacked) {
  TempDir dir;
  const CommandResult run = run_treematch(
      "map --compare --format json -m " + quote(clover128()) + " -t " + quote(kTopology), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name : {"treematch", "packed", "round-robin", "random", "MPIPP.1", "MPIPP.5"}) {
    EXPECT_NE(run.err.find(name), std::string::npos) << name;
  }
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["mapping"].size(), 128u);
  EXPECT_LT(report["costs"]["treematch"]["hop_bytes"].get<double>(),
            report["costs"]["packed"]["hop_bytes"].get<double>());
  EXPECT_LT(report["costs"]["treematch"]["hop_bytes"].get<double>(),
            report["costs"]["random"]["hop_bytes"].get<double>());
}

TEST(CliMap, RankfileNamesHostsAndSlotsWithinANode) {
  TempDir dir;
  const std::string out = dir.file("job.rankfile");
  const CommandResult run =
      run_treematch("map --format rankfile --node-size 32 --hosts a,b,c,d -m " +
                        quote(clover128()) + " -t " + quote(kTopology) + " -o " + out,
                    dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty());
  const std::vector<std::string> lines = lines_of(read_text(out));
  ASSERT_EQ(lines.size(), 128u);
  const std::regex line_form(R"(rank (\d+)=([abcd]) slot=(\d+))");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(lines[i], match, line_form)) << lines[i];
    EXPECT_EQ(std::stoul(match[1]), i);
    EXPECT_LT(std::stoi(match[3]), 32);
  }
}

TEST(CliMap, SlurmAndHydraBindEveryRankOnce) {
  TempDir dir;
  for (const std::string format : {"slurm", "hydra"}) {
    const CommandResult run = run_treematch("map --node-size 32 --format " + format + " -m " +
                                                quote(clover128()) + " -t " + quote(kTopology),
                                            dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::size_t bound = 0;
    const std::regex list(format == "slurm" ? R"(map_cpu:([0-9,]+))" : R"(user:([0-9,]+))");
    for (const std::string& line : lines_of(run.out)) {
      std::smatch match;
      if (std::regex_search(line, match, list)) {
        bound += static_cast<std::size_t>(std::count(match[1].first, match[1].second, ',') + 1);
      }
    }
    EXPECT_EQ(bound, 128u) << format << "\n" << run.out;
  }
}

TEST(CliMap, PhysicalNumberingPrintsOsIndexes) {
  TempDir dir;
  const std::string topology = "pack:2 core:4 pu:1(indexes=0,2,4,6,1,3,5,7)";
  const CommandResult logical =
      run_treematch("map -m " + quote(data_dir() + "/pacos/examples/taskgraph/16.mat") +
                        " --oversubscribe 2 -t " + quote(topology),
                    dir);
  const CommandResult physical = run_treematch(
      "map --numbering physical -m " + quote(data_dir() + "/pacos/examples/taskgraph/16.mat") +
          " --oversubscribe 2 -t " + quote(topology),
      dir);
  ASSERT_EQ(logical.exit_code, 0) << logical.err;
  ASSERT_EQ(physical.exit_code, 0) << physical.err;
  const std::vector<Index> os_of_logical{0, 2, 4, 6, 1, 3, 5, 7};
  const std::vector<Index> l = parse_perm(logical.out);
  const std::vector<Index> p = parse_perm(physical.out);
  ASSERT_EQ(l.size(), 16u);
  ASSERT_EQ(p.size(), 16u);
  for (std::size_t i = 0; i < l.size(); ++i)
    EXPECT_EQ(p[i], os_of_logical[static_cast<std::size_t>(l[i])]);
}

struct BadInput {
  std::string name;
  std::string file;        ///< fixture file name ("" = none)
  std::string content;     ///< fixture content
  std::string arguments;   ///< {file} is replaced by the fixture path
  std::string keyword;     ///< must appear in the message
  bool names_file = true;  ///< the message names the fixture (else an option, named by keyword)
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineErrorNamingTheProblemNonZeroExitNoOutput) {
  TempDir dir;
  const BadInput& bad = GetParam();
  std::string arguments = bad.arguments;
  if (!bad.file.empty()) {
    std::ofstream(dir.file(bad.file)) << bad.content;
    arguments = std::regex_replace(arguments, std::regex(R"(\{file\})"), dir.file(bad.file));
  }
  const std::string out = dir.file("mapping.out");
  const CommandResult run = run_treematch(arguments + " -o " + out, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(bad.keyword), std::string::npos) << run.err;
  if (!bad.file.empty() && bad.names_file) {
    EXPECT_NE(run.err.find(dir.file(bad.file)), std::string::npos) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CliBadInput,
    ::testing::Values(
        BadInput{"non_square", "m.mat", "0 1 2\n1 0 3\n", "map -m {file} -t 'tleaf 1 8 1'",
                 "square"},
        BadInput{"ragged", "m.mat", "0 1 2\n1 0\n2 1 0\n", "map -m {file} -t 'tleaf 1 8 1'",
                 "ragged"},
        BadInput{"negative", "m.mat", "0 -1\n-1 0\n", "map -m {file} -t 'tleaf 1 8 1'", "negative"},
        BadInput{"nan", "m.mat", "0 nan\nnan 0\n", "map -m {file} -t 'tleaf 1 8 1'", "NaN"},
        BadInput{"not_hdf5", "m.h5", "hello\n", "map -m {file} -t 'tleaf 1 8 1'", "HDF5"},
        BadInput{"metis_edge_count_lies", "m.graph", "3 3 001\n2 1\n1 1 3 1\n2 1\n",
                 "map -m {file} -t 'tleaf 1 8 1'", "edge"},
        BadInput{"metis_asymmetric", "m.graph", "3 2 001\n2 1\n1 1 3 1\n2 5\n",
                 "map -m {file} -t 'tleaf 1 8 1'", "symmetric"},
        BadInput{"fewer_leaves_than_processes", "m.mat", "0 1 1\n1 0 1\n1 1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1'", "--oversubscribe"},
        BadInput{"cores_names_missing_leaf", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --cores 0,9", "--cores: names leaf 9", false},
        BadInput{"missing_matrix", "", "", "map -m /nonexistent/m.mat -t 'tleaf 1 2 1'",
                 "/nonexistent/m.mat"},
        BadInput{"bad_topology_string", "m.mat", "0 1\n1 0\n", "map -m {file} -t 'pack:two core:2'",
                 "--topology: cannot parse 'pack:two", false}),
    [](const ::testing::TestParamInfo<BadInput>& param) { return param.param.name; });

}  // namespace
}  // namespace treematch::testing
