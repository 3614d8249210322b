// Tests of the link model presets and of link_loads: hand-computed loads, norm, latency, threads.
#include "src/model/link_load.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::random_sparse_graph;
using testing::symmetric_4x4;
using testing::tree_of;

// The 2x2x2 tree; ranks 0, 1, 2, 3 on leaves 0, 1, 2, 7:
//
//                      root
//             +-----------+-----------+
//            P0                      P1
//        +----+----+             +----+----+
//        Q0        Q1            Q2        Q3
//       +-+-+     +-+-+         +-+-+     +-+-+
//      r0   r1   r2   .        .    .    .   r3     <- leaves 0..7
Topology loads_tree() {
  return tree_of({2, 2, 2});
}

Mapping loads_ranks() {
  return Mapping{{0, 1, 2, 7}};
}

LinkModel uniform_links(const Topology& topology) {
  return preset_link_model(topology, LinkPreset::kUniform);
}

TEST(LinkLoads, EachLinkCarriesWhatCrossesIt) {
  // Arrange
  const Topology tree = loads_tree();

  // Act
  const LinkLoads loads = link_loads(symmetric_4x4(), tree, uniform_links(tree), loads_ranks());

  // Assert, per level (root first), one direction:
  //   P links:    P0 sends r0->r3 1 + r2->r3 5 = 6; P1 the same back
  //   Q links:    Q0 = 2 + 1 + 3 = 6, Q1 = 2 + 3 + 5 = 10, Q2 = 0, Q3 = 1 + 5 = 6
  //   leaf links: r0 13, r1 13, r2 10, leaves 3..6 0, r3 6
  ASSERT_EQ(loads.levels.size(), 3U);
  EXPECT_EQ(loads.levels[0].picture_bytes, (std::vector<double>{6, 6}));
  EXPECT_EQ(loads.levels[1].picture_bytes, (std::vector<double>{6, 10, 0, 6}));
  EXPECT_EQ(loads.levels[2].picture_bytes, (std::vector<double>{13, 13, 10, 0, 0, 0, 0, 6}));
  EXPECT_EQ(loads.levels[2].total_bytes, 42.0);
  EXPECT_EQ(loads.levels[1].max_bytes, 10.0);
  EXPECT_EQ(loads.bottleneck_seconds, 13.0);
  EXPECT_EQ(loads.bottleneck_depth, 3);
  // Hot: at 0.9 x 13 = 11.7 or more, the two leaf links of r0 and r1.
  EXPECT_EQ(loads.levels[2].hot_links, 2);
  EXPECT_EQ(loads.levels[1].hot_links, 0);
  // Every link in both directions: 2 x (13^8 + 13^8 + 10^8 + 6^8 + 6^8 + 10^8 + 6^8 + 6^8 + 6^8).
  const double powers =
      2.0 * (2 * std::pow(13.0, 8) + 2 * std::pow(10.0, 8) + 5 * std::pow(6.0, 8));
  EXPECT_NEAR(loads.congestion_norm, std::pow(powers, 1.0 / 8), 1e-12 * loads.congestion_norm);
  EXPECT_EQ(loads.latency_seconds, 0.0);
  EXPECT_EQ(loads.predicted_seconds, 13.0);
}

TEST(LinkLoads, BandwidthTurnsBytesIntoSecondsAndLatencyFollowsTheLongestPath) {
  // Arrange: bandwidths 1, 1, 0.5 bottom-up (the P links are the slow ones) and latencies 1, 2, 3.
  const Topology tree = loads_tree();
  const LinkModel model =
      with_latencies(with_bandwidths(uniform_links(tree), tree, {1, 1, 0.5}), tree, {1, 2, 3});

  // Act
  const LinkLoads loads = link_loads(symmetric_4x4(), tree, model, loads_ranks());

  // Assert: the P links carry 6 bytes at 0.5 B/s = 12 s, below the leaves' 13 s; r3 talks across
  // the root, so the longest path is 2 x (1 + 2 + 3).
  EXPECT_EQ(loads.levels[0].max_seconds, 12.0);
  EXPECT_EQ(loads.bottleneck_seconds, 13.0);
  EXPECT_EQ(loads.levels[0].hot_links, 2);  // 12 >= 11.7
  EXPECT_EQ(loads.latency_seconds, 12.0);
  EXPECT_EQ(loads.predicted_seconds, 25.0);
  EXPECT_EQ(model.name, "custom");
}

TEST(LinkLoads, LatencyStopsAtTheHighestAncestorUsed) {
  // Arrange: only ranks 0 and 1 talk; they meet at Q0, one level above the leaves.
  const Topology tree = loads_tree();
  const LinkModel model = with_latencies(uniform_links(tree), tree, {1, 2, 3});
  const CommGraph pair = CommGraph::from_triplets(4, {{0, 1, 4}, {1, 0, 4}});

  // Act
  const LinkLoads loads = link_loads(pair, tree, model, loads_ranks());

  // Assert
  EXPECT_EQ(loads.latency_seconds, 2.0);
  EXPECT_EQ(loads.levels[1].total_bytes, 0.0);
}

TEST(LinkLoads, DirectedInputIsChargedAsTheMeanOfItsDirections) {
  // Arrange: rank 0 sends 10 to rank 1 and nothing back; stored as C + C^T, cost_scale 1/2.
  const Topology tree = loads_tree();
  const CommGraph directed = CommGraph::from_triplets(2, {{0, 1, 10}});
  ASSERT_TRUE(directed.was_symmetrised());

  // Act
  const LinkLoads loads = link_loads(directed, tree, uniform_links(tree), Mapping{{0, 4}});

  // Assert: 5 bytes each way on every link of the path.
  EXPECT_EQ(loads.levels[0].picture_bytes, (std::vector<double>{5, 5}));
  EXPECT_EQ(loads.bottleneck_seconds, 5.0);
}

TEST(LinkLoads, RanksSharingALeafUseNoLink) {
  // Arrange: ranks 0 and 1 on leaf 0 (oversubscribed), rank 2 on leaf 1.
  const Topology tree = loads_tree();
  const CommGraph graph = CommGraph::from_triplets(3, {{0, 1, 7}, {1, 0, 7}, {0, 2, 1}, {2, 0, 1}});

  // Act
  const LinkLoads loads = link_loads(graph, tree, uniform_links(tree), Mapping{{0, 0, 1}});

  // Assert: only the 0-2 pair crosses the leaf links of leaves 0 and 1.
  EXPECT_EQ(loads.levels[2].picture_bytes, (std::vector<double>{1, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(loads.levels[1].total_bytes, 0.0);
}

TEST(LinkLoads, SilentPatternLoadsNothing) {
  const Topology tree = loads_tree();
  const LinkLoads loads =
      link_loads(CommGraph::from_triplets(3, {}), tree, uniform_links(tree), Mapping{{0, 4, 7}});
  EXPECT_EQ(loads.bottleneck_seconds, 0.0);
  EXPECT_EQ(loads.bottleneck_depth, 0);
  EXPECT_EQ(loads.congestion_norm, 0.0);
  EXPECT_EQ(loads.predicted_seconds, 0.0);
}

TEST(LinkLoads, RefusesAModelOfAnotherTree) {
  const Topology tree = loads_tree();
  const LinkModel other = uniform_links(tree_of({2, 2}));
  EXPECT_THROW(static_cast<void>(link_loads(symmetric_4x4(), tree, other, loads_ranks())),
               std::invalid_argument);
  EXPECT_THROW(
      static_cast<void>(link_loads(symmetric_4x4(), tree, uniform_links(tree), Mapping{{0}})),
      std::invalid_argument);
}

std::uint64_t load_bits(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

TEST(LinkLoads, SameBitsForAnyThreadCountAndTheSequentialTwin) {
  // Arrange: 3000 ranks spread at random over a 4x4x4x64 tree (several links per TBB chunk).
  const Topology tree = tree_of({4, 4, 4, 64});
  const CommGraph graph = random_sparse_graph(3000, 8, /*seed=*/7);
  std::vector<Index> leaves(static_cast<std::size_t>(tree.leaf_count()));
  std::iota(leaves.begin(), leaves.end(), 0);
  std::shuffle(leaves.begin(), leaves.end(), std::mt19937_64(3));
  leaves.resize(3000);
  const Mapping mapping{leaves};
  const LinkModel model = preset_link_model(tree.with_machine_size(64), LinkPreset::kFatTree);
  const LinkLoads reference = link_loads_seq(graph, tree, model, mapping);
  ASSERT_GT(reference.bottleneck_seconds, 0.0);

  for (const int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));

    // Act
    const LinkLoads loads = link_loads(graph, tree, model, mapping);

    // Assert
    EXPECT_EQ(load_bits(loads.congestion_norm), load_bits(reference.congestion_norm));
    EXPECT_EQ(load_bits(loads.predicted_seconds), load_bits(reference.predicted_seconds));
    for (std::size_t l = 0; l < loads.levels.size(); ++l) {
      EXPECT_EQ(loads.levels[l].picture_bytes, reference.levels[l].picture_bytes);
      EXPECT_EQ(load_bits(loads.levels[l].total_bytes), load_bits(reference.levels[l].total_bytes));
      EXPECT_EQ(loads.levels[l].hot_links, reference.levels[l].hot_links);
    }
  }
}

// A cluster of 2 switches x 4 nodes x 2 packages x 8 cores, 2 levels above a machine.
Topology loads_cluster() {
  return Topology({TreeLevel{2, 1.0, "switch"}, TreeLevel{4, 1.0, "node"},
                   TreeLevel{2, 1.0, "pack"}, TreeLevel{8, 1.0, "core"}},
                  /*leaf_os_index=*/{}, /*machine_level=*/2);
}

TEST(LinkPresets, FatTreeUplinksCarryTheirChildrenOverTheOversubscription) {
  // Act
  const LinkModel fat = preset_link_model(loads_cluster(), LinkPreset::kFatTree);
  const LinkModel full = preset_link_model(loads_cluster(), LinkPreset::kFatTreeFull);
  const LinkModel dragonfly = preset_link_model(loads_cluster(), LinkPreset::kDragonfly);

  // Assert: core 10 GB/s, package 20 GB/s, node card 12.5 GB/s; a switch's uplink carries its
  // 4 cards' 50 GB/s over 2 (fat tree), 1 (non-blocking) or 4 (dragonfly's global links).
  ASSERT_EQ(fat.links.size(), 4U);
  EXPECT_EQ(fat.links[3].bandwidth, kLeafBandwidth);
  EXPECT_EQ(fat.links[2].bandwidth, kInsideBandwidth);
  EXPECT_EQ(fat.links[1].bandwidth, kCardBandwidth);
  EXPECT_EQ(fat.links[1].latency, kCardLatency);
  EXPECT_EQ(fat.links[0].bandwidth, 25e9);
  EXPECT_EQ(fat.links[0].latency, kSwitchLatency);
  EXPECT_EQ(full.links[0].bandwidth, 50e9);
  EXPECT_EQ(dragonfly.links[0].bandwidth, 12.5e9);
  EXPECT_EQ(fat.name, "fat-tree");
}

TEST(LinkPresets, OneMachineHasNoCardAndNoSwitch) {
  const LinkModel model = preset_link_model(tree_of({2, 8}), LinkPreset::kFatTree);
  EXPECT_EQ(model.links[0].bandwidth, kInsideBandwidth);
  EXPECT_EQ(model.links[1].bandwidth, kLeafBandwidth);
}

TEST(LinkPresets, NamesReadBackAndValuesAreChecked) {
  for (const LinkPreset preset : {LinkPreset::kFatTree, LinkPreset::kFatTreeFull,
                                  LinkPreset::kDragonfly, LinkPreset::kUniform}) {
    EXPECT_EQ(parse_link_preset(link_preset_name(preset)), preset);
  }
  EXPECT_FALSE(parse_link_preset("torus").has_value());
  const Topology tree = loads_tree();
  EXPECT_THROW(static_cast<void>(with_bandwidths(uniform_links(tree), tree, {1, 1})),
               std::invalid_argument);
  EXPECT_THROW(static_cast<void>(with_bandwidths(uniform_links(tree), tree, {1, 0, 1})),
               std::invalid_argument);
  EXPECT_THROW(static_cast<void>(with_latencies(uniform_links(tree), tree, {1, -1, 1})),
               std::invalid_argument);
}

}  // namespace
}  // namespace treematch
