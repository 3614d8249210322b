// End-to-end: --refine / --no-refine, --link-costs on map and eval, generate geometric.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/cost.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

const std::string kCluster = "tleaf 3 10 1 2 1 12 1";  // 10 nodes x 2 sockets x 12 cores

std::string clover(const std::string& size) {
  return data_dir() + "/pacos/examples/taskgraph/CloverLeaf" + size + ".APHiD";
}

/// The pairs-and-halves pattern of tests/src/link_costs_test.cc as a dense text matrix.
void write_pairs_and_halves(const std::string& path) {
  std::ofstream out(path);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      const int w = a == b ? 0 : a / 2 == b / 2 ? 10 : a % 2 == b % 2 ? 6 : 0;
      out << w << (b + 1 < 8 ? " " : "\n");
    }
  }
}

TEST(CliRefine, RefinementIsOnByDefaultAndNeverCostlierThanWithout) {
  TempDir dir;
  const std::string args = "map -m " + quote(clover("240")) + " -t " + quote(kCluster);
  const CommandResult plain = run_treematch(args + " --no-refine", dir);
  const CommandResult by_default = run_treematch(args, dir);
  const CommandResult refined = run_treematch(args + " --refine", dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(by_default.exit_code, 0) << by_default.err;
  ASSERT_EQ(refined.exit_code, 0) << refined.err;
  EXPECT_EQ(by_default.out, refined.out);
  const CommGraph graph = io::read_matrix(clover("240"));
  const Topology topology = io::read_topology(kCluster);
  const std::vector<Index> leaves = parse_perm(refined.out);
  ASSERT_EQ(leaves.size(), 240u);
  EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 240u);
  EXPECT_LE(evaluate_cost(graph, topology, Mapping{leaves}).weighted,
            evaluate_cost(graph, topology, Mapping{parse_perm(plain.out)}).weighted);
}

TEST(CliRefine, SameMappingAtOneTwoAndFourThreads) {
  TempDir dir;
  const std::string args =
      "map -m " + quote(clover("480")) + " -t " + quote("tleaf 3 20 1 2 1 12 1") + " --threads ";
  const CommandResult one = run_treematch(args + "1", dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  for (const char* threads : {"2", "4"}) {
    const CommandResult other = run_treematch(args + threads, dir);
    ASSERT_EQ(other.exit_code, 0) << other.err;
    EXPECT_EQ(other.out, one.out) << threads << " threads";
  }
}

TEST(CliLinkCosts, ChangeTheMappingAndTheWeightedCostEvalReports) {
  TempDir dir;
  write_pairs_and_halves(dir.file("pairs.mat"));
  const std::string args =
      "map -m " + dir.file("pairs.mat") + " -t " + quote("tleaf 3 2 1 2 1 2 1");
  const CommandResult hops = run_treematch(args, dir);
  const CommandResult costly = run_treematch(args + " --link-costs 1:1:100", dir);
  ASSERT_EQ(hops.exit_code, 0) << hops.err;
  ASSERT_EQ(costly.exit_code, 0) << costly.err;
  EXPECT_NE(hops.out, costly.out);
  std::ofstream(dir.file("hops.perm")) << hops.out;
  std::ofstream(dir.file("costly.perm")) << costly.out;
  const auto weighted = [&](const char* perm) {
    const CommandResult eval = run_treematch(
        "eval --json -m " + dir.file("pairs.mat") + " -t " + quote("tleaf 3 2 1 2 1 2 1") +
            " --link-costs 1:1:100 --mapping " + dir.file(perm),
        dir);
    EXPECT_EQ(eval.exit_code, 0) << eval.err;
    return nlohmann::json::parse(eval.out).at("weighted").get<double>();
  };
  // 8 x 6 pair edges of cost 2 ... : the evens/odds split costs 16800 (here as the input gives
  // every pair twice), the pairs-first mapping 19936.
  EXPECT_DOUBLE_EQ(weighted("costly.perm"), 16800.0);
  EXPECT_DOUBLE_EQ(weighted("hops.perm"), 19936.0);
}

TEST(CliLinkCosts, BadListsAreOneLineErrors) {
  TempDir dir;
  write_pairs_and_halves(dir.file("pairs.mat"));
  const std::string args =
      "map -m " + dir.file("pairs.mat") + " -t " + quote("tleaf 3 2 1 2 1 2 1");
  const CommandResult two = run_treematch(args + " --link-costs 1:10", dir);
  EXPECT_NE(two.exit_code, 0);
  EXPECT_NE(two.err.find("--link-costs"), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("2 link costs given for 3 levels"), std::string::npos) << two.err;
  const CommandResult word = run_treematch(args + " --link-costs 1:x:3", dir);
  EXPECT_NE(word.exit_code, 0);
  EXPECT_NE(word.err.find("'x'"), std::string::npos) << word.err;
  EXPECT_TRUE(word.out.empty());
}

TEST(CliGenerate, GeometricIsDeterministicAndReadsBack) {
  TempDir dir;
  const std::string args = "generate geometric --ranks 48 --points 5000 --seed 7 ";
  ASSERT_EQ(run_treematch(args + dir.file("a.graph"), dir).exit_code, 0);
  ASSERT_EQ(run_treematch(args + dir.file("b.graph"), dir).exit_code, 0);
  EXPECT_EQ(read_text(dir.file("a.graph")), read_text(dir.file("b.graph")));
  const CommGraph graph = io::read_matrix(dir.file("a.graph"));
  EXPECT_EQ(graph.size(), 48);
  EXPECT_GT(graph.nnz(), 48);
  const CommandResult few =
      run_treematch("generate geometric --ranks 48 --points 10 " + dir.file("c.graph"), dir);
  EXPECT_NE(few.exit_code, 0);
  EXPECT_NE(few.err.find("--points"), std::string::npos) << few.err;
}

}  // namespace
}  // namespace treematch::testing
