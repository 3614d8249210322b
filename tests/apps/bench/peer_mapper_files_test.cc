// The peer mappers' machine strings, their integer graph and the reading of their output.
#include "apps/bench/peer_mapper_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/topology_reader.h"

namespace treematch::bench {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PeerMapperFiles, MachineListsLevelsFromTheCoresUpWithTreematchsDistances) {
  const Topology tree = io::read_topology("tleaf 3 2 100 2 10 4 1");  // 2 nodes x 2 sockets x 4
  std::string why;
  const std::optional<PeerMachine> machine = peer_machine(tree, why);
  ASSERT_TRUE(machine.has_value()) << why;
  EXPECT_EQ(machine->hierarchy, "4:2:2");
  std::string expected;
  for (const Index other : {1, 4, 8}) {
    expected += fmt::format("{}{}", expected.empty() ? "" : ":",
                            std::llround(tree.weighted_distance(0, other)));
  }
  EXPECT_EQ(machine->distances, expected);
  EXPECT_LT(tree.weighted_distance(0, 1), tree.weighted_distance(0, 4));
  EXPECT_LT(tree.weighted_distance(0, 4), tree.weighted_distance(0, 8));
}

TEST(PeerMapperFiles, GraphKeepsIntegerWeightsLeavesOutZerosAndScalesTheRest) {
  const fs::path path = fs::temp_directory_path() / "peer_mapper_files_test.graph";
  // 0 - 1 weight 3, 1 - 2 weight 0 (left out), 0 - 2 weight 5.
  const CommGraph integers = CommGraph::from_triplets(
      3, {{0, 1, 3}, {1, 0, 3}, {1, 2, 0}, {2, 1, 0}, {0, 2, 5}, {2, 0, 5}});
  EXPECT_TRUE(write_peer_graph(path.string(), integers, /*largest_distance=*/10).exact);
  EXPECT_EQ(read_all(path), "3 2 001\n2 3 3 5\n1 3\n1 5\n");
  const CommGraph fractions =
      CommGraph::from_triplets(2, {{0, 1, 0.25}, {1, 0, 0.25}});  // not integers: scaled
  const PeerWeights scaled = write_peer_graph(path.string(), fractions, 1);
  EXPECT_FALSE(scaled.exact);
  const long long weight = std::llround(0.25 * scaled.scale);
  EXPECT_EQ(read_all(path), fmt::format("2 1 001\n2 {}\n1 {}\n", weight, weight));
  // The arcs (both directions) x the largest distance stay within the limit.
  EXPECT_LE(0.5 * scaled.scale * 1, static_cast<double>(kPeerObjectiveLimit) + 1.0);
  fs::remove(path);
}

TEST(PeerMapperFiles, PermutationMustGiveEveryProcessAnotherCore) {
  const fs::path path = fs::temp_directory_path() / "peer_mapper_files_test.perm";
  std::ofstream(path) << "2\n0\n1\n";
  EXPECT_EQ(read_peer_mapping(path.string(), 3).leaf_of_rank, (std::vector<Index>{2, 0, 1}));
  std::ofstream(path) << "2\n2\n1\n";
  EXPECT_THROW((void)read_peer_mapping(path.string(), 3), std::runtime_error);  // core twice
  std::ofstream(path) << "2\n0\n";
  EXPECT_THROW((void)read_peer_mapping(path.string(), 3), std::runtime_error);  // too short
  fs::remove(path);
}

}  // namespace
}  // namespace treematch::bench
