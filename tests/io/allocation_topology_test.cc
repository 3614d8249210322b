// The allocation topology without MPI: --network parsing, host names, the cluster tree of even and
// uneven nodes.
#include "io/allocation_topology.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "io/process_binding.h"
#include "io/topology_reader.h"

namespace treematch::distributed {
namespace {

NodeDescription node(const std::string& host, const std::string& synthetic) {
  return NodeDescription{host, io::read_topology(synthetic)};
}

/// A node of 2 packages x 4 cores whose PUs have the OS indexes first .. first + 7.
NodeDescription node_from(const std::string& host, Index first) {
  std::vector<Index> os;
  for (Index i = 0; i < 8; ++i) os.push_back(first + i);
  return NodeDescription{host,
                         Topology({TreeLevel{2, 1.0, "Package"}, TreeLevel{4, 1.0, "Core"}}, os)};
}

/// The message of the InputError `call` throws ("" if it throws none).
template <class Call>
std::string input_error(Call&& call) {
  try {
    call();
  } catch (const io::InputError& error) {
    return error.what();
  }
  return "";
}

TEST(ParseNetwork, FlatByDefault) {
  EXPECT_EQ(parse_network("").switches, 0);
  EXPECT_EQ(parse_network("flat").switches, 0);
}

TEST(ParseNetwork, SwitchesByNodes) {
  const NetworkShape network = parse_network("128:16");
  EXPECT_EQ(network.switches, 128);
  EXPECT_EQ(network.nodes_per_switch, 16);
}

TEST(ParseNetwork, RejectsMalformedShapes) {
  for (const std::string text : {"16", "0:4", "4:0", "4:", ":4", "4:2:1", "a:b", "-1:4", "4x16"}) {
    EXPECT_NE(input_error([&] { parse_network(text); }).find("--network: '" + text + "'"),
              std::string::npos)
        << text;
  }
}

TEST(CheckNodesDistinct, AcceptsNodesThatDifferInEveryOtherWay) {
  EXPECT_NO_THROW(check_nodes_distinct(
      {node("a", "pack:2 core:8 pu:1"), node("b", "pack:2 core:12 pu:2"), node_from("c", 8)}));
}

TEST(CheckNodesDistinct, RejectsTwoNodesWithOneHostName) {
  const std::string message = input_error([] {
    check_nodes_distinct({node_from("a", 0), node_from("a", 0)});
  });
  EXPECT_NE(message.find("nodes 0 and 1 both report host name 'a'"), std::string::npos) << message;
}

TEST(CheckNodesDistinct, RejectsNoNode) {
  EXPECT_THROW(check_nodes_distinct({}), io::InputError);
}

TEST(BuildAllocationTopology, FlatNodesSitUnderOneLevel) {
  // root -- 3 nodes -- 2 packages -- 2 cores
  const AllocationTopology allocation =
      build_allocation_topology({node("n0", "pack:2 core:2 pu:1"), node("n1", "pack:2 core:2 pu:1"),
                                 node("n2", "pack:2 core:2 pu:1")},
                                NetworkShape{});
  EXPECT_EQ(allocation.topology.shape(), "3x2x2");
  EXPECT_EQ(allocation.topology.machine_level(), 1);
  EXPECT_EQ(allocation.topology.leaves_per_machine(), 4);
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{"n0", "n1", "n2"}));
  EXPECT_FALSE(allocation.topology.has_holes());
  EXPECT_EQ(allocation.nodes, 3);
  EXPECT_EQ(allocation.topology.levels()[0].name, "Node");
  // Node m numbers its PUs m * 4 + its own OS index.
  EXPECT_EQ(allocation.topology.leaf_os_indexes(),
            (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(BuildAllocationTopology, ASingleFlatNodeIsTheNodeItself) {
  // Cores are the leaves, each standing for its two hardware threads.
  const AllocationTopology allocation =
      build_allocation_topology({node("only", "pack:2 core:4 pu:2")}, NetworkShape{});
  EXPECT_EQ(allocation.topology.shape(), "2x4");
  EXPECT_EQ(allocation.topology.machine_level(), 0);
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{"only"}));
  const std::span<const Index> last = allocation.topology.cpus(7);
  EXPECT_EQ(std::vector<Index>(last.begin(), last.end()), (std::vector<Index>{14, 15}));
}

TEST(BuildAllocationTopology, ANetworkWithSpareSlotsAllowsTheRealNodesOnly) {
  // root -- 2 switches -- 2 node slots -- 2 cores; 3 nodes, slot 3 is empty.
  const AllocationTopology allocation = build_allocation_topology(
      {node("a", "core:2 pu:1"), node("b", "core:2 pu:1"), node("c", "core:2 pu:1")},
      parse_network("2:2"));
  EXPECT_EQ(allocation.topology.shape(), "2x2x2");
  EXPECT_EQ(allocation.topology.machine_level(), 2);
  EXPECT_EQ(allocation.topology.levels()[0].name, "Switch");
  EXPECT_EQ(allocation.topology.levels()[1].name, "Node");
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{"a", "b", "c", "unused-slot-3"}));
  EXPECT_EQ(allocation.topology.present_leaves(), (std::vector<Index>{0, 1, 2, 3, 4, 5}));
}

TEST(BuildAllocationTopology, NodesOfDifferentSizesShareTheLargestShape) {
  // a: 2 packages x 8 cores, b: 2 x 12. The tree is 2 nodes x 2 packages x 12 cores; a's
  // packages leave 4 holes each, and logical numbers count the real cores only.
  const AllocationTopology allocation = build_allocation_topology(
      {node("a", "pack:2 core:8 pu:1"), node("b", "pack:2 core:12 pu:1")}, NetworkShape{});
  const Topology& tree = allocation.topology;
  EXPECT_EQ(tree.shape(), "2x2x12");
  EXPECT_EQ(tree.present_leaf_count(), 40);
  EXPECT_TRUE(tree.is_present(7));
  EXPECT_FALSE(tree.is_present(8));
  EXPECT_TRUE(tree.is_present(12));  // a's second package
  EXPECT_EQ(tree.logical_index(12), 8);
  EXPECT_EQ(tree.logical_index(24), 16);  // b's first core
  // Node b numbers its own cores from 0: stride 16 (a's largest OS index + 1 is 16, b's 24).
  EXPECT_EQ(tree.machine_os_stride(), 24);
  EXPECT_EQ(tree.os_index(24), 24);
}

TEST(BuildAllocationTopology, NodesOfDifferentLevelsAlignTheirLevelsByName) {
  // b has an L3 level under each package that a lacks: a's cores sit under a single L3 there.
  const AllocationTopology allocation = build_allocation_topology(
      {node("a", "pack:2 core:4 pu:1"), node("b", "pack:2 l3:2 core:2 pu:1")}, NetworkShape{});
  const Topology& tree = allocation.topology;
  EXPECT_EQ(tree.shape(), "2x2x2x4");
  EXPECT_EQ(tree.levels()[2].name, "L3Cache");
  EXPECT_EQ(tree.present_leaf_count(), 16);
  // a's package 0 holds positions 0-3 (its single L3), b's first L3 positions 16-17.
  EXPECT_EQ(tree.present_leaves(),
            (std::vector<Index>{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 20, 21, 24, 25, 28, 29}));
  EXPECT_EQ(tree.common_ancestor_height(16, 17), 1);
  EXPECT_EQ(tree.common_ancestor_height(16, 20), 2);
}

TEST(BuildAllocationTopology, PartialNodesKeepTheirHoles) {
  // A node whose job may use 5 of its 8 cores: 4 on package 0, 1 on package 1.
  const Topology partial({TreeLevel{2, 1.0, "Package"}, TreeLevel{4, 1.0, "Core"}},
                         {0, 1, 2, 3, 4, -1, -1, -1});
  const AllocationTopology allocation =
      build_allocation_topology({{"a", partial}, node_from("b", 0)}, NetworkShape{});
  EXPECT_EQ(allocation.topology.shape(), "2x2x4");
  EXPECT_EQ(allocation.topology.present_leaf_count(), 13);
  EXPECT_FALSE(allocation.topology.is_present(5));
  EXPECT_EQ(allocation.topology.logical_index(8), 5);  // b's first core
}

TEST(BuildAllocationTopology, KeepsSparseNodeNumbering) {
  // Every node offers PUs 2, 3, 6, 7: OS indexes are spaced by the largest one + 1.
  const Topology cores({TreeLevel{2, 1.0, "Package"}, TreeLevel{2, 1.0, "Core"}}, {2, 3, 6, 7});
  const AllocationTopology allocation =
      build_allocation_topology({{"a", cores}, {"b", cores}}, NetworkShape{});
  EXPECT_EQ(allocation.topology.leaf_os_indexes(),
            (std::vector<Index>{2, 3, 6, 7, 10, 11, 14, 15}));
}

TEST(BuildAllocationTopology, RejectsANetworkTooSmallForTheNodes) {
  const std::string message = input_error([] {
    build_allocation_topology({node_from("a", 0), node_from("b", 0), node_from("c", 0)},
                              parse_network("1:2"));
  });
  EXPECT_EQ(message,
            "--network: 1 switches x 2 nodes offer 2 node slots but the job runs on 3 nodes");
}

TEST(BuildAllocationTopology, NodesMayOfferDifferentCores) {
  // b's job got its cores 8-15: each node keeps its own numbering in the outputs.
  const AllocationTopology allocation =
      build_allocation_topology({node_from("a", 0), node_from("b", 8)}, NetworkShape{});
  EXPECT_EQ(allocation.topology.machine_os_stride(), 16);
  EXPECT_EQ(allocation.topology.os_index(8), 16 + 8);
}

TEST(BuildAllocationTopology, ChecksTheHostNamesFirst) {
  EXPECT_THROW(build_allocation_topology({node_from("a", 0), node_from("a", 8)}, NetworkShape{}),
               io::InputError);
}

/// A 2 x 4 node of which the job may use the cores `allowed` (OS index = position).
NodeDescription partial_node(const std::string& host, const std::vector<Index>& allowed) {
  std::vector<Index> os(8, -1);
  for (const Index core : allowed) os[static_cast<std::size_t>(core)] = core;
  return NodeDescription{host,
                         Topology({TreeLevel{2, 1.0, "Package"}, TreeLevel{4, 1.0, "Core"}}, os)};
}

TEST(OpenMpiAlikeNodes, TwoPartialNodesWithAsManyCoresButOtherOnesAreConfused) {
  // charlie: cores 1, 2 (package 0), 5 (package 1); echo: 0, 1 and 7: two packages, three cores,
  // three PUs each (Open MPI 4.1's signature), not the same cores. delta holds other counts.
  const std::vector<NodeDescription> nodes = {
      partial_node("charlie", {1, 2, 5}), partial_node("delta", {0, 1, 2, 3}),
      partial_node("echo", {0, 1, 7}), node_from("whole", 0)};
  EXPECT_EQ(open_mpi_alike_nodes(nodes),
            (std::vector<std::vector<std::string>>{{"charlie", "echo"}}));
  EXPECT_EQ(build_allocation_topology(nodes, NetworkShape{}).open_mpi_alike,
            (std::vector<std::vector<std::string>>{{"charlie", "echo"}}));
}

TEST(OpenMpiAlikeNodes, NodesOfTheSameCoresOrOfOtherCountsAreNot) {
  // The same cores on both: one topology is right for both. Three cores on one package against
  // two and one: other counts of packages. A whole node and a partial one: other counts of cores.
  EXPECT_TRUE(
      open_mpi_alike_nodes({partial_node("a", {1, 2, 5}), partial_node("b", {1, 2, 5})}).empty());
  EXPECT_TRUE(
      open_mpi_alike_nodes({partial_node("a", {0, 1, 2}), partial_node("b", {0, 1, 4})}).empty());
  EXPECT_TRUE(open_mpi_alike_nodes({node_from("a", 0), partial_node("b", {0, 1, 2})}).empty());
  EXPECT_TRUE(open_mpi_alike_nodes({node_from("a", 0), node_from("b", 0)}).empty());
}

TEST(DescribeThisNode, IsThisMachineWithItsHostName) {
  const NodeDescription here = describe_this_node();
  EXPECT_FALSE(here.host.empty());
  EXPECT_EQ(here.topology.to_tleaf(), io::read_topology("").to_tleaf());
  EXPECT_EQ(here.topology.leaf_os_indexes(), io::read_topology("").leaf_os_indexes());
}

TEST(ReadAllocationTopology, WithoutMpiIsThisMachineAsOneNode) {
  const AllocationTopology allocation = read_allocation_topology(NetworkShape{});
  EXPECT_EQ(allocation.nodes, 1);
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{describe_this_node().host}));
  EXPECT_EQ(allocation.topology.to_tleaf(), io::read_topology("").to_tleaf());
  EXPECT_EQ(allocation.node_of_rank, (std::vector<Index>{0}));
}

TEST(ThisThreadPu, IsAPuOfALeafOfThisMachine) {
  const Topology here = describe_this_node().topology;
  const Index pu = io::this_thread_pu();
  bool found = false;
  for (Index leaf = 0; leaf < here.leaf_count(); ++leaf) {
    for (const Index cpu : here.cpus(leaf)) found = found || cpu == pu;
  }
  EXPECT_TRUE(found) << "PU " << pu;
}

}  // namespace
}  // namespace treematch::distributed
