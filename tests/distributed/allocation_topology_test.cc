// The allocation topology without MPI: --network parsing, the node comparison, the cluster tree.
#include "src/distributed/allocation_topology.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/input_error.h"
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

TEST(CheckNodesMatch, AcceptsIdenticalNodes) {
  EXPECT_NO_THROW(
      check_nodes_match({node("a", "pack:2 core:8 pu:1"), node("b", "pack:2 core:8 pu:1"),
                         node("c", "pack:2 core:8 pu:1")}));
}

TEST(CheckNodesMatch, NamesTheOddShapeAgainstTheCommonOne) {
  // a: 2x8, b: 2x12, c: 2x8 -> b is the odd node, a holds the common shape.
  const std::string message = input_error([] {
    check_nodes_match({node("a", "pack:2 core:8 pu:1"), node("b", "pack:2 core:12 pu:1"),
                       node("c", "pack:2 core:8 pu:1")});
  });
  EXPECT_EQ(message,
            "allocation: node 'b' has 2x12 cores, node 'a' 2x8 (the job must get the "
            "same cores on every node)");
}

TEST(CheckNodesMatch, TheMajorityWinsEvenAgainstTheFirstNode) {
  const std::string message = input_error([] {
    check_nodes_match({node("x", "pack:2 core:8 pu:1"), node("y", "pack:2 core:12 pu:1"),
                       node("z", "pack:2 core:12 pu:1")});
  });
  EXPECT_NE(message.find("node 'x' has 2x8 cores, node 'y' 2x12"), std::string::npos) << message;
}

TEST(CheckNodesMatch, OnATieTheEarliestNodeIsTheReference) {
  const std::string message = input_error([] {
    check_nodes_match({node("x", "pack:2 core:8 pu:1"), node("y", "core:16 pu:1")});
  });
  EXPECT_NE(message.find("node 'y' has 16 cores, node 'x' 2x8"), std::string::npos) << message;
}

TEST(CheckNodesMatch, NamesNodesWhoseCoresDiffer) {
  const std::string message = input_error([] {
    check_nodes_match({node_from("a", 0), node_from("b", 0), node_from("c", 8)});
  });
  EXPECT_EQ(message,
            "allocation: node 'c' has cores 8-15, node 'a' cores 0-7 (the job must get the same "
            "cores on every node)");
}

TEST(CheckNodesMatch, RejectsTwoNodesWithOneHostName) {
  const std::string message = input_error([] {
    check_nodes_match({node_from("a", 0), node_from("a", 0)});
  });
  EXPECT_NE(message.find("nodes 0 and 1 both report host name 'a'"), std::string::npos) << message;
}

TEST(CheckNodesMatch, RejectsNoNode) {
  EXPECT_THROW(check_nodes_match({}), io::InputError);
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
  EXPECT_TRUE(allocation.allowed_leaves.empty());
  EXPECT_EQ(allocation.nodes, 3);
  EXPECT_EQ(allocation.node.shape(), "2x2");
  EXPECT_EQ(allocation.topology.levels()[0].name, "Node");
  // Node m numbers its PUs m * 4 + its own OS index.
  EXPECT_EQ(allocation.topology.leaf_os_indexes(),
            (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(BuildAllocationTopology, ASingleFlatNodeIsTheNodeItself) {
  const AllocationTopology allocation =
      build_allocation_topology({node("only", "pack:2 core:4 pu:2")}, NetworkShape{});
  EXPECT_EQ(allocation.topology.shape(), "2x4x2");
  EXPECT_EQ(allocation.topology.machine_level(), 0);
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{"only"}));
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
  EXPECT_EQ(allocation.allowed_leaves, (std::vector<Index>{0, 1, 2, 3, 4, 5}));
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

TEST(BuildAllocationTopology, ChecksTheNodesFirst) {
  EXPECT_THROW(build_allocation_topology({node_from("a", 0), node_from("b", 8)}, NetworkShape{}),
               io::InputError);
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

TEST(ThisThreadPu, IsALeafOfThisMachine) {
  EXPECT_GE(describe_this_node().topology.leaf_of_os_index(this_thread_pu()), 0);
}

}  // namespace
}  // namespace treematch::distributed
