// End-to-end: --refine / --no-refine, --link-costs on map and eval, generate geometric, the
// strong preset against the default one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/model/cost.h"
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

/// Runs `treematch ARGS OUT` twice (files a.EXT and b.EXT): both succeed and write the same
/// bytes. Returns the matrix read back.
CommGraph generated_twice_alike(const std::string& args, const std::string& extension,
                                TempDir& dir) {
  const std::string a = dir.file("a." + extension);
  const std::string b = dir.file("b." + extension);
  EXPECT_EQ(run_treematch(args + " " + a, dir).exit_code, 0);
  EXPECT_EQ(run_treematch(args + " " + b, dir).exit_code, 0);
  EXPECT_EQ(read_text(a), read_text(b));
  return io::read_matrix(a);
}

TEST(CliGenerate, GeometricIsDeterministicAndReadsBack) {
  TempDir dir;
  const CommGraph graph =
      generated_twice_alike("generate geometric --ranks 48 --points 5000 --seed 7", "graph", dir);
  EXPECT_EQ(graph.size(), 48);
  EXPECT_GT(graph.nnz(), 48);
  const CommandResult few =
      run_treematch("generate geometric --ranks 48 --points 10 " + dir.file("c.graph"), dir);
  EXPECT_NE(few.exit_code, 0);
  EXPECT_NE(few.err.find("--points"), std::string::npos) << few.err;
}

TEST(CliGenerate, StencilHasTheNeighboursAndWeightsOfEachCell) {
  TempDir dir;
  // 3 x 2 x 2 cells hold 20 face pairs (x: 2 per line x 4 lines, y: 6, z: 6), 22 edge pairs (xy: 8,
  // xz: 8, yz: 6) and 8 corner pairs; each pair is stored both ways.
  const CommGraph graph = generated_twice_alike(
      "generate stencil --grid 3x2x2 --weights 1,0.5,0.25 --seed 3", "mat", dir);
  ASSERT_EQ(graph.size(), 12);
  EXPECT_EQ(graph.nnz(), 2 * (20 + 22 + 8));
  EXPECT_DOUBLE_EQ(graph.total_volume(), 2 * (20 * 1.0 + 22 * 0.5 + 8 * 0.25));
  const CommandResult bad = run_treematch("generate stencil --grid 3x2 " + dir.file("c.mat"), dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'3x2' is not NXxNYxNZ"), std::string::npos) << bad.err;
  const CommandResult two =
      run_treematch("generate stencil --grid 2x2x2 --weights 1,2 " + dir.file("d.mat"), dir);
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--weights"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace treematch::testing

namespace treematch::testing {
namespace {

/// A random sparse pattern of `ranks` ranks as a dense text matrix.
std::string random_pattern(int ranks, std::uint32_t seed) {
  std::vector<std::vector<int>> m(static_cast<std::size_t>(ranks),
                                  std::vector<int>(static_cast<std::size_t>(ranks), 0));
  for (int i = 0; i < ranks; ++i) {
    for (int d = 0; d < 3; ++d) {
      seed = seed * 1664525U + 1013904223U;
      const int j = static_cast<int>((seed >> 8) % static_cast<std::uint32_t>(ranks));
      if (j == i) continue;
      m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] +=
          1 + static_cast<int>(seed % 97);
    }
  }
  std::ostringstream text;
  for (const auto& row : m) {
    for (std::size_t j = 0; j < row.size(); ++j) text << (j ? " " : "") << row[j];
    text << '\n';
  }
  return text.str();
}

TEST(CliRestricted, NeverCostlierThanTheFullMachineWithTheSameCores) {
  // A node of 2 packages x 2 L3 x 4 cores x 2 hardware threads, restricted as a batch system's
  // cgroup would (lstopo --restrict) to PU sets of a few shapes: the restricted tree maps no
  // costlier than the full tree with --cores naming the same cores, both costed on the full node.
  TempDir dir;
  const std::string synthetic = "pack:2 l3:2 core:4 pu:2";
  const std::string full = dir.file("full.xml");
  ASSERT_EQ(
      std::system(
          ("lstopo-no-graphics -i '" + synthetic + "' " + quote(full) + " 2>/dev/null").c_str()),
      0);
  // Masks over the 32 PUs (two per core): whole cores, and an uneven split over the packages.
  const std::vector<std::pair<std::string, std::vector<int>>> restrictions{
      {"0x0000ffff", {0, 2, 4, 6, 8, 10, 12, 14}},                // package 0
      {"0x00ff0fff", {0, 2, 4, 6, 8, 10, 16, 18, 20, 22}},        // 6 + 4 cores
      {"0x3c3cf0ff", {0, 2, 4, 6, 12, 14, 18, 20, 26, 28}},       // holes in every L3
      {"0xffff00f3", {0, 4, 6, 16, 18, 20, 22, 24, 26, 28, 30}},  // 3 + 8 cores
  };
  int seed = 1;
  for (const auto& [mask, cores] : restrictions) {
    const std::string restricted = dir.file("restricted-" + mask + ".xml");
    ASSERT_EQ(std::system(("lstopo-no-graphics -i '" + synthetic + "' --restrict " + mask + " " +
                           quote(restricted) + " 2>/dev/null")
                              .c_str()),
              0);
    std::string list;
    for (const int os : cores) {
      if (!list.empty()) list += ',';
      list += std::to_string(os);
    }
    const auto p = static_cast<int>(cores.size());
    const std::string matrix =
        dir.write("m.mat", random_pattern(p, static_cast<std::uint32_t>(seed++)));
    const CommandResult on_restricted = run_treematch(
        "map -m " + quote(matrix) + " -t " + quote(restricted) + " --numbering physical", dir);
    ASSERT_EQ(on_restricted.exit_code, 0) << mask << ": " << on_restricted.err;
    const CommandResult on_full = run_treematch(
        "map -m " + quote(matrix) + " -t " + quote(full) + " --numbering physical --cores " + list,
        dir);
    ASSERT_EQ(on_full.exit_code, 0) << mask << ": " << on_full.err;
    // Both mappings costed on the full node (the restricted run named its cores by OS index).
    const std::string a = dir.write("restricted.perm", on_restricted.out);
    const std::string b = dir.write("full.perm", on_full.out);
    const std::string eval = "eval --json -m " + quote(matrix) + " -t " + quote(full) +
                             " --numbering physical --cores " + list + " --mapping ";
    const CommandResult cost_a = run_treematch(eval + quote(a), dir);
    const CommandResult cost_b = run_treematch(eval + quote(b), dir);
    ASSERT_EQ(cost_a.exit_code, 0) << mask << ": " << cost_a.err;
    ASSERT_EQ(cost_b.exit_code, 0) << mask << ": " << cost_b.err;
    EXPECT_LE(nlohmann::json::parse(cost_a.out)["weighted"].get<double>(),
              nlohmann::json::parse(cost_b.out)["weighted"].get<double>())
        << mask;
  }
}

/// The weighted cost on `machine` of the mapping a successful `map` run printed (a permutation).
double printed_mapping_cost(const std::string& matrix, const std::string& machine,
                            const CommandResult& run) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return evaluate_cost(io::read_matrix(matrix), io::read_topology(machine),
                       Mapping{parse_perm(run.out)})
      .weighted;
}

// The strong preset is never costlier than the default one: it makes the default's candidates
// first (driver.include_default). On these two real patterns its own candidates alone were
// costlier (more bisection attempts give lower cuts, not always cheaper mappings), so the check
// fails when the default's candidates are left out.
TEST(CliPresets, StrongIsNeverCostlierThanDefault) {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {clover("320"), "tleaf 3 14 1 2 1 12 1"},
      {data_dir() + "/maplib/btmz_comm_matrix.p2p.size.csv", "tleaf 3 4 1 2 1 8 1"}};
  for (const auto& [matrix, machine] : cases) {
    const std::string args = "map -m " + quote(matrix) + " -t " + quote(machine) + " --preset ";
    EXPECT_LE(printed_mapping_cost(matrix, machine, run_treematch(args + "strong", dir)),
              printed_mapping_cost(matrix, machine, run_treematch(args + "default", dir)))
        << matrix;
  }
}

// The strong preset maps pairs of sibling subtrees again (pair_remap): on CloverLeaf's 256 ranks
// over 11 nodes of 24 cores, where the top-down split fixed the nodes one part at a time, it finds
// a cheaper mapping than strong's candidates alone (4.799e9 against 4.806e9 on 2026-12-01; on
// the 512 ranks over 22 nodes, this test's input until then, the default preset's k-way V-cycles
// reach the remapping's cost by themselves).
TEST(CliPresets, StrongRemapsPairsOfNodesForALowerCost) {
  TempDir dir;
  const std::string matrix = clover("256");
  const std::string machine = "tleaf 3 11 1 2 1 12 1";
  const std::string args = "map -m " + quote(matrix) + " -t " + quote(machine) + " --preset strong";
  EXPECT_LT(printed_mapping_cost(matrix, machine, run_treematch(args, dir)),
            printed_mapping_cost(matrix, machine,
                                 run_treematch(args + " --set pair_remap.rounds=0", dir)));
}

}  // namespace
}  // namespace treematch::testing
