// Tests of the Topology model: per-depth tables, distances, arity-1 levels, copies and forms.
#include "src/tree/topology.h"

#include <gtest/gtest.h>

#include <random>

#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace treematch {
namespace {

// The hand-drawn fixture, root first (costs are those of the links up to the parent):
//
//                          root
//              /                       \            level 0: arity 2, link cost 10
//            A0                         A1
//       /    |    \                /    |    \      level 1: arity 3, link cost 5
//     B0     B1    B2            B3     B4    B5
//    /  \   /  \   /  \         /  \   /  \   /  \  level 2: arity 2, link cost 1
//   0    1 2    3 4    5       6    7 8    9 10   11
//
// OS numbering alternates between the two halves: leaf l has OS index 2 * (l % 6) + l / 6.
Topology hand_drawn() {
  std::vector<Index> os;
  for (Index leaf = 0; leaf < 12; ++leaf) os.push_back(2 * (leaf % 6) + leaf / 6);
  return Topology({{2, 10.0, "A"}, {3, 5.0, "B"}, {2, 1.0, "leaf"}}, os);
}

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no std::invalid_argument thrown)";
}

TEST(TopologyTest, LeavesBelowEachDepth) {
  const Topology topology = hand_drawn();

  EXPECT_EQ(topology.depth(), 3);
  EXPECT_EQ(topology.leaf_count(), 12);
  EXPECT_EQ(topology.leaves_below(0), 12);
  EXPECT_EQ(topology.leaves_below(1), 6);
  EXPECT_EQ(topology.leaves_below(2), 2);
  EXPECT_EQ(topology.leaves_below(3), 1);
  EXPECT_EQ(topology.shape(), "2x3x2");
}

TEST(TopologyTest, CommonAncestorHeightOnHandDrawnTree) {
  const Topology topology = hand_drawn();

  EXPECT_EQ(topology.common_ancestor_height(4, 4), 0);
  EXPECT_EQ(topology.common_ancestor_height(0, 1), 1);   // B0
  EXPECT_EQ(topology.common_ancestor_height(7, 6), 1);   // B3
  EXPECT_EQ(topology.common_ancestor_height(1, 2), 2);   // A0, neighbours in numbering
  EXPECT_EQ(topology.common_ancestor_height(0, 5), 2);   // A0
  EXPECT_EQ(topology.common_ancestor_height(5, 6), 3);   // root, neighbours in numbering
  EXPECT_EQ(topology.common_ancestor_height(11, 0), 3);  // root
}

TEST(TopologyTest, HopsAndWeightedDistance) {
  const Topology topology = hand_drawn();

  EXPECT_EQ(topology.hops(3, 3), 0);
  EXPECT_EQ(topology.hops(2, 3), 2);
  EXPECT_EQ(topology.hops(2, 4), 4);
  EXPECT_EQ(topology.hops(2, 9), 6);
  // Up and down the h lowest links: 2 x 1, 2 x (1 + 5), 2 x (1 + 5 + 10).
  EXPECT_DOUBLE_EQ(topology.weighted_distance(3, 3), 0.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(2, 3), 2.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(2, 4), 12.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(9, 2), 32.0);
}

TEST(TopologyTest, OsIndexesAndTheirInverse) {
  const Topology topology = hand_drawn();

  EXPECT_EQ(topology.os_index(0), 0);
  EXPECT_EQ(topology.os_index(1), 2);
  EXPECT_EQ(topology.os_index(6), 1);
  EXPECT_EQ(topology.os_index(11), 11);
  for (Index leaf = 0; leaf < 12; ++leaf) {
    EXPECT_EQ(topology.leaf_of_os_index(topology.os_index(leaf)), leaf);
  }
  EXPECT_EQ(topology.leaf_of_os_index(12), -1);
  EXPECT_EQ(topology.leaf_of_os_index(-1), -1);

  const Topology identity({{4, 1.0, "core"}}, {});
  EXPECT_EQ(identity.leaf_os_indexes(), (std::vector<Index>{0, 1, 2, 3}));
}

TEST(TopologyTest, SparseOsIndexesStillInvert) {
  const Topology topology({{2, 1.0, "core"}}, {2000000000, 3});

  EXPECT_EQ(topology.leaf_of_os_index(2000000000), 0);
  EXPECT_EQ(topology.leaf_of_os_index(3), 1);
  EXPECT_EQ(topology.leaf_of_os_index(4), -1);
  EXPECT_THROW(Topology({{2, 1.0, "core"}}, {2000000000, 2000000000}), std::invalid_argument);
}

TEST(TopologyTest, RejectsBadOsIndexes) {
  const std::vector<TreeLevel> levels{{2, 1.0, "pack"}, {2, 1.0, "core"}};

  EXPECT_NE(message_of([&] {
              (void)Topology(levels, {0, 1, 2});
            }).find("3 leaf OS indexes"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)Topology(levels, {0, 1, 1, 3});
            }).find("share OS index 1"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)Topology(levels, {0, -2, 2, 3});
            }).find("negative"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)Topology(levels, {-1, -1, -1, -1});
            }).find("every position is a hole"),
            std::string::npos);
}

// A tree with holes: 2 packages x 3 cores, the job may use 3 cores of package 0 and 1 of 1.
//
//            root
//        /          \        .
//     pack0        pack1
//    /  |  \      /  |  \    .
//   0   1   2    3   4   5      <- position
//   7   5   6    4   -   -      <- OS index (- = hole)
//   0   1   2    3              <- logical index
TEST(TopologyTest, HolesAreSkippedByTheLogicalNumbering) {
  const Topology topology({{2, 1.0, "pack"}, {3, 1.0, "core"}}, {7, 5, 6, 4, -1, -1});
  EXPECT_TRUE(topology.has_holes());
  EXPECT_EQ(topology.leaf_count(), 6);
  EXPECT_EQ(topology.present_leaf_count(), 4);
  EXPECT_EQ(topology.present_leaves(), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_FALSE(topology.is_present(4));
  EXPECT_EQ(topology.logical_index(3), 3);
  EXPECT_EQ(topology.logical_index(5), -1);
  EXPECT_EQ(topology.leaf_of_logical(3), 3);
  EXPECT_EQ(topology.leaf_of_logical(4), -1);
  EXPECT_EQ(topology.leaf_of_os_index(4), 3);
  EXPECT_TRUE(topology.cpus(5).empty());
  EXPECT_EQ(topology.common_ancestor_height(0, 3), 2);
  // Oversubscribed, each hole makes holes; copies keep them.
  const Topology doubled = topology.with_oversubscription(2);
  EXPECT_EQ(doubled.present_leaf_count(), 8);
  EXPECT_FALSE(doubled.is_present(8));
  EXPECT_EQ(topology.with_link_costs({1, 10}).present_leaves(), topology.present_leaves());
}

TEST(TopologyTest, LeavesStandForTheirCpus) {
  // Two cores of two hardware threads each: PUs {0, 2} and {1, 3}.
  const Topology cores =
      Topology({{2, 1.0, "core"}}, {0, 1}).with_leaf_cpus({0, 2, 4}, {0, 2, 1, 3});
  EXPECT_TRUE(cores.has_multi_cpu_leaves());
  EXPECT_EQ(std::vector<Index>(cores.cpus(1).begin(), cores.cpus(1).end()),
            (std::vector<Index>{1, 3}));
  const Topology doubled = cores.with_oversubscription(2);
  EXPECT_EQ(std::vector<Index>(doubled.cpus(3).begin(), doubled.cpus(3).end()),
            (std::vector<Index>{1, 3}));
  // One cpu per leaf equal to its OS index needs no table.
  EXPECT_FALSE(Topology({{2, 1.0, "core"}}, {0, 1})
                   .with_leaf_cpus({0, 1, 2}, {0, 1})
                   .has_multi_cpu_leaves());
  EXPECT_THROW((void)cores.with_leaf_cpus({0, 2, 2}, {0, 2}), std::invalid_argument);
  EXPECT_THROW((void)cores.with_leaf_cpus({0, 2, 4}, {2, 0, 1, 3}), std::invalid_argument);
}

TEST(TopologyTest, RejectsBadLevels) {
  EXPECT_NE(message_of([] {
              (void)Topology({{2, 1.0, "pack"}, {0, 1.0, "core"}}, {});
            }).find("arity 0"),
            std::string::npos);
  EXPECT_THROW(Topology({{2, -1.0, "pack"}}, {}), std::invalid_argument);
  EXPECT_THROW(Topology({{65536, 1.0, "a"}, {65536, 1.0, "b"}}, {}), std::invalid_argument);
  EXPECT_THROW(Topology({{2, 1.0, "a"}}, {}, /*machine_level=*/2), std::invalid_argument);
  EXPECT_THROW(Topology({{2, 1.0, "a"}}, {}, /*machine_level=*/-1), std::invalid_argument);
}

TEST(TopologyTest, DropsArityOneLevelsAndAdjustsMachineLevel) {
  // group:4 group:1 | pack:2 core:1 pu:2 with the machine boundary below the two groups.
  const Topology topology({{4, 100.0, "Group0"},
                           {1, 50.0, "Group1"},
                           {2, 10.0, "Package"},
                           {1, 5.0, "Core"},
                           {2, 1.0, "PU"}},
                          {}, /*machine_level=*/2);

  ASSERT_EQ(topology.depth(), 3);
  EXPECT_EQ(topology.shape(), "4x2x2");
  EXPECT_EQ(topology.levels()[0].name, "Group0");
  EXPECT_EQ(topology.levels()[1].name, "Package");
  EXPECT_EQ(topology.levels()[2].name, "PU");
  EXPECT_EQ(topology.machine_level(), 1);  // Group1 was above the boundary, Core below it
  EXPECT_EQ(topology.leaves_per_machine(), 4);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 2), 22.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 4), 222.0);
}

TEST(TopologyTest, SingleLeafTopology) {
  const Topology empty({}, {});
  const Topology only_arity_one({{1, 3.0, "Machine"}, {1, 1.0, "PU"}}, {7}, /*machine_level=*/1);
  const Topology default_constructed;

  for (const Topology* topology : {&empty, &only_arity_one, &default_constructed}) {
    EXPECT_EQ(topology->depth(), 0);
    EXPECT_EQ(topology->leaf_count(), 1);
    EXPECT_EQ(topology->leaves_below(0), 1);
    EXPECT_EQ(topology->common_ancestor_height(0, 0), 0);
    EXPECT_DOUBLE_EQ(topology->weighted_distance(0, 0), 0.0);
    EXPECT_EQ(topology->machine_level(), 0);
    EXPECT_EQ(topology->leaves_per_machine(), 1);
    EXPECT_EQ(topology->shape(), "1");
    EXPECT_EQ(topology->to_tleaf(), "tleaf 0");
  }
  EXPECT_EQ(only_arity_one.os_index(0), 7);
  EXPECT_EQ(only_arity_one.leaf_of_os_index(7), 0);
  EXPECT_EQ(default_constructed.leaf_of_os_index(0), 0);
  EXPECT_EQ(empty.with_oversubscription(2).leaf_count(), 2);
}

TEST(TopologyTest, WithMachineSizePicksTheMatchingLevel) {
  const Topology topology = hand_drawn();

  EXPECT_EQ(topology.with_machine_size(12).machine_level(), 0);
  EXPECT_EQ(topology.with_machine_size(6).machine_level(), 1);
  EXPECT_EQ(topology.with_machine_size(2).machine_level(), 2);
  EXPECT_EQ(topology.with_machine_size(1).machine_level(), 3);
  EXPECT_EQ(topology.with_machine_size(6).leaves_per_machine(), 6);
  EXPECT_EQ(topology.with_machine_size(6).leaf_os_indexes(), topology.leaf_os_indexes());
  const std::string message = message_of([&] { (void)topology.with_machine_size(4); });
  EXPECT_NE(message.find("4 leaves"), std::string::npos) << message;
  EXPECT_NE(message.find("1, 2, 6, 12"), std::string::npos) << message;
}

TEST(TopologyTest, OversubscriptionAddsAFreeBottomLevel) {
  const Topology topology = hand_drawn().with_machine_size(6);

  const Topology over = topology.with_oversubscription(3);

  EXPECT_EQ(over.leaf_count(), 36);
  EXPECT_EQ(over.shape(), "2x3x2x3");
  EXPECT_DOUBLE_EQ(over.levels().back().link_cost, 0.0);
  EXPECT_EQ(over.machine_level(), 1);
  EXPECT_EQ(over.leaves_per_machine(), 18);
  // Virtual leaves 0..2 share real leaf 0, 3..5 real leaf 1.
  EXPECT_EQ(over.common_ancestor_height(0, 2), 1);
  EXPECT_DOUBLE_EQ(over.weighted_distance(0, 2), 0.0);
  EXPECT_EQ(over.hops(0, 2), 2);
  EXPECT_DOUBLE_EQ(over.weighted_distance(0, 3), topology.weighted_distance(0, 1));
  EXPECT_DOUBLE_EQ(over.weighted_distance(35, 0), topology.weighted_distance(11, 0));
  std::set<Index> distinct;
  for (Index v = 0; v < 36; ++v) {
    EXPECT_EQ(over.os_index(v), topology.os_index(v / 3) * 3 + v % 3);
    EXPECT_EQ(over.os_index(v) / 3, topology.os_index(v / 3));
    distinct.insert(over.os_index(v));
  }
  EXPECT_EQ(distinct.size(), 36U);

  const Topology same = topology.with_oversubscription(1);
  EXPECT_EQ(same.to_tleaf(), topology.to_tleaf());
  EXPECT_EQ(same.leaf_os_indexes(), topology.leaf_os_indexes());
  EXPECT_THROW((void)topology.with_oversubscription(0), std::invalid_argument);
}

// Rebuilds a topology from its tleaf text with a reader written here (core tests cannot use io/).
Topology from_tleaf(const std::string& text) {
  std::istringstream in(text);
  std::string keyword;
  int n = 0;
  in >> keyword >> n;
  EXPECT_EQ(keyword, "tleaf");
  std::vector<TreeLevel> levels;
  for (int i = 0; i < n; ++i) {
    TreeLevel level;
    in >> level.arity >> level.link_cost;
    levels.push_back(level);
  }
  EXPECT_FALSE(in.fail()) << text;
  return Topology(levels, {});
}

TEST(TopologyTest, ToTleafRoundTrip) {
  const Topology topology({{4, 180.0, "a"}, {3, 0.5, "b"}, {2, 1e-3, "c"}, {1, 7.0, "d"}}, {});

  const std::string text = topology.to_tleaf();
  const Topology again = from_tleaf(text);

  EXPECT_EQ(text, "tleaf 3 4 180 3 0.5 2 0.001");
  EXPECT_EQ(again.to_tleaf(), text);
  ASSERT_EQ(again.depth(), topology.depth());
  for (int d = 0; d < topology.depth(); ++d) {
    const auto i = static_cast<std::size_t>(d);
    EXPECT_EQ(again.levels()[i].arity, topology.levels()[i].arity);
    EXPECT_EQ(again.levels()[i].link_cost, topology.levels()[i].link_cost);
  }
  EXPECT_EQ(hand_drawn().to_tleaf(), "tleaf 3 2 10 3 5 2 1");
}

}  // namespace
}  // namespace treematch

namespace treematch {
namespace {

/// Common-ancestor height from first principles: the levels climbed until both leaves fall in the
/// same block of leaves.
int height_by_blocks(const Topology& t, Index a, Index b) {
  int h = 0;
  while (t.leaves_below(t.depth() - h) > 0 &&
         a / t.leaves_below(t.depth() - h) != b / t.leaves_below(t.depth() - h))
    ++h;
  return h;
}

TEST(TopologyTest, PackedLeafCodesGiveTheSameHeightsAsBlocks) {
  // Mixed arities (odd, even, prime), and the 16384-leaf cluster of the benchmarks.
  const std::vector<std::vector<Index>> shapes{{3, 5, 6}, {2, 7, 4, 3}, {128, 16, 2, 4}, {5}};
  for (const auto& arities : shapes) {
    std::vector<TreeLevel> levels;
    for (Index a : arities) levels.push_back(TreeLevel{a, 1.0, "l"});
    const Topology t(levels, {});
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 2000; ++trial) {
      const auto a = static_cast<Index>(rng() % static_cast<std::uint64_t>(t.leaf_count()));
      const auto b = trial % 5 == 0
                         ? a
                         : static_cast<Index>(rng() % static_cast<std::uint64_t>(t.leaf_count()));
      ASSERT_EQ(t.common_ancestor_height(a, b), height_by_blocks(t, a, b))
          << t.shape() << " " << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace treematch

namespace treematch {
namespace {

TEST(PrefixLevels, KeepsTheSmallestLeftmostPartHoldingTheLeaves) {
  const std::vector<TreeLevel> cluster{{4, 100.0, "switch"}, {16, 10.0, "node"}, {8, 1.0, "core"}};
  const auto arities = [](const std::vector<TreeLevel>& levels) {
    std::vector<Index> out;
    for (const TreeLevel& level : levels) out.push_back(level.arity);
    return out;
  };
  EXPECT_EQ(arities(prefix_levels(cluster, 6)), (std::vector<Index>{1, 1, 6}));
  EXPECT_EQ(arities(prefix_levels(cluster, 20)), (std::vector<Index>{1, 3, 8}));
  EXPECT_EQ(arities(prefix_levels(cluster, 200)), (std::vector<Index>{2, 16, 8}));
  EXPECT_EQ(arities(prefix_levels(cluster, 600)), (std::vector<Index>{4, 16, 8}));
  // Whole machines of 8 cores: 6 leaves keep one node whole.
  EXPECT_EQ(arities(prefix_levels(cluster, 6, /*unit=*/8)), (std::vector<Index>{1, 1, 8}));
  // Kept leaves are the first positions, at the distances of the full tree.
  const Topology full(cluster, {});
  const Topology part(prefix_levels(cluster, 20), {});
  for (Index a = 0; a < part.leaf_count(); ++a) {
    for (Index b = 0; b < part.leaf_count(); ++b)
      EXPECT_EQ(part.weighted_distance(a, b), full.weighted_distance(a, b)) << a << " " << b;
  }
}

}  // namespace
}  // namespace treematch
