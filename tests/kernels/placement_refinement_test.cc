// Placement swap refinement: never raises the cost, keeps a placement, same result at any thread
// count and in the sequential twin.
#include "kernels/placement_refinement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

LeafTree tree_of(std::vector<Index> arities, std::vector<double> link_costs) {
  // link_costs root first, like the arities; distance[h] = 2 x the h lowest link costs.
  LeafTree tree;
  tree.arities = std::move(arities);
  tree.distance.assign(tree.arities.size() + 1, 0.0);
  for (std::size_t h = 1; h < tree.distance.size(); ++h)
    tree.distance[h] = tree.distance[h - 1] + 2.0 * link_costs[link_costs.size() - h];
  return tree;
}

Index leaves_of(const LeafTree& tree) {
  return std::accumulate(tree.arities.begin(), tree.arities.end(), Index{1},
                         [](Index a, Index b) { return a * b; });
}

/// Independent checker: the common ancestor found by dividing leaf indexes, level by level.
double cost_of(CsrView graph, const LeafTree& tree, const std::vector<Index>& position) {
  double total = 0.0;
  for (Index v = 0; v < graph.n; ++v) {
    for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      Index a = position[static_cast<std::size_t>(v)];
      Index b = position[static_cast<std::size_t>(graph.targets[static_cast<std::size_t>(e)])];
      std::size_t h = 0;
      for (std::size_t level = tree.arities.size(); a != b; --level) {
        a /= tree.arities[level - 1];
        b /= tree.arities[level - 1];
        ++h;
      }
      total += graph.weights[static_cast<std::size_t>(e)] * tree.distance[h];
    }
  }
  return total;
}

std::vector<Index> random_placement(Index items, Index leaves, std::uint64_t seed) {
  std::vector<Index> perm(static_cast<std::size_t>(leaves));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  perm.resize(static_cast<std::size_t>(items));
  return perm;
}

TEST(RefinePlacement, RepairsTwoExchangedItems) {
  // Tree 2x2x2; items 2i and 2i+1 talk (100), items of one half talk a little (1):
  //            root
  //        /          \            item 1 sits on leaf 7 and item 7 on leaf 1:
  //     n0              n1         one exchange puts the pairs back together.
  //    /  \            /   \       (leaves, left to right: the item on each)
  //  (0 7) (2 3)     (4 5) (6 1)
  const LeafTree tree = tree_of({2, 2, 2}, {1, 1, 1});
  Csr graph;
  graph.n = 8;
  for (Index v = 0; v < 8; ++v) {
    std::vector<std::pair<Index, Weight>> row;
    for (Index t = 0; t < 8; ++t) {
      if (t == v) continue;
      if (t / 2 == v / 2) {
        row.emplace_back(t, 100.0);
      } else if (t / 4 == v / 4) {
        row.emplace_back(t, 1.0);
      }
    }
    for (const auto& [t, w] : row) {
      graph.targets.push_back(t);
      graph.weights.push_back(w);
    }
    graph.offsets.push_back(static_cast<Offset>(graph.targets.size()));
  }
  std::vector<Index> position{0, 7, 2, 3, 4, 5, 6, 1};
  const PlacementSwapStats stats = refine_placement(graph.view(), tree, position, {});
  EXPECT_GE(stats.moves, 1);
  std::vector<Index> optimal(8);
  std::iota(optimal.begin(), optimal.end(), 0);
  EXPECT_DOUBLE_EQ(cost_of(graph.view(), tree, position), cost_of(graph.view(), tree, optimal));
}

TEST(RefinePlacement, NeverRaisesTheCostKeepsAPlacementAndAgreesWithItsTwinAtAnyThreadCount) {
  const std::vector<std::pair<LeafTree, Index>> cases = {
      {tree_of({4, 4, 2, 4}, {1, 1, 1, 1}), 128},        // full
      {tree_of({4, 4, 2, 4}, {1000, 100, 10, 1}), 100},  // empty leaves, steep costs
      {tree_of({3, 5, 3}, {7, 3, 1}), 45},               // odd arities
      {tree_of({8, 12}, {5, 1}), 90},                    // two levels
      {tree_of({8, 8, 4, 8}, {100, 10, 3, 1}), 1500},    // many blocks of work
      {tree_of({2, 3, 2, 2}, {1, 0, 2, 0}), 20},         // zero-cost levels
  };
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    for (const auto& [tree, items] : cases) {
      const Index leaves = leaves_of(tree);
      // Few weights: many ties. The last items have no edges.
      const Csr graph = testing::random_graph(items, 5, seed % 2 == 0 ? 3 : 1000, seed, items - 3);
      const std::vector<Index> start = random_placement(items, leaves, seed);
      const double before = cost_of(graph.view(), tree, start);
      std::vector<Index> twin = start;
      const PlacementSwapStats twin_stats = refine_placement_seq(graph.view(), tree, twin, {});
      for (const auto& [position, moves] : testing::under_thread_counts([&] {
             std::vector<Index> copy = start;
             const PlacementSwapStats stats = refine_placement(graph.view(), tree, copy, {});
             return std::make_pair(copy, stats.moves);
           })) {
        EXPECT_EQ(position, twin);
        EXPECT_EQ(moves, twin_stats.moves);
      }
      EXPECT_LE(cost_of(graph.view(), tree, twin), before);
      if (twin_stats.moves > 0) {
        EXPECT_LT(cost_of(graph.view(), tree, twin), before);
      }
      EXPECT_EQ(std::set<Index>(twin.begin(), twin.end()).size(), twin.size());
      for (const Index leaf : twin) {
        EXPECT_GE(leaf, 0);
        EXPECT_LT(leaf, leaves);
      }
    }
  }
}

TEST(RefinePlacement, StartingFromTheMovedItemsAgreesWithItsTwinAndNeverRaisesTheCost) {
  const LeafTree tree = tree_of({8, 8, 4, 8}, {100, 10, 3, 1});
  const Csr graph = testing::random_graph(1800, 6, 50, 9);
  std::vector<Index> start = random_placement(1800, 2048, 9);
  refine_placement_seq(graph.view(), tree, start, {});  // settled, then a few items move
  std::mt19937_64 rng(5);
  PlacementSwapOptions options;
  options.moved.assign(1800, 0);
  for (int k = 0; k < 40; ++k) {
    const auto a = static_cast<std::size_t>(rng() % 1800);
    const auto b = static_cast<std::size_t>(rng() % 1800);
    std::swap(start[a], start[b]);
    options.moved[a] = options.moved[b] = 1;
  }
  const double before = cost_of(graph.view(), tree, start);
  std::vector<Index> twin = start;
  const PlacementSwapStats twin_stats = refine_placement_seq(graph.view(), tree, twin, options);
  for (const auto& position : testing::under_thread_counts([&] {
         std::vector<Index> copy = start;
         refine_placement(graph.view(), tree, copy, options);
         return copy;
       })) {
    EXPECT_EQ(position, twin);
  }
  EXPECT_GT(twin_stats.moves + twin_stats.pair_moves, 0);
  EXPECT_LT(cost_of(graph.view(), tree, twin), before);
  options.moved.resize(3);
  EXPECT_THROW(refine_placement(graph.view(), tree, twin, options), std::invalid_argument);
}

TEST(RefinePlacement, ImprovesARandomPlacementOfAHierarchicalPattern) {
  // Items exchange 10^(3 - h) with every item h levels away in their planted placement.
  const LeafTree tree = tree_of({4, 4, 4}, {1, 1, 1});
  const std::vector<Index> planted = random_placement(64, 64, 3);
  Csr graph;
  graph.n = 64;
  for (Index v = 0; v < 64; ++v) {
    for (Index t = 0; t < 64; ++t) {
      const Index a = planted[static_cast<std::size_t>(v)];
      const Index b = planted[static_cast<std::size_t>(t)];
      if (t == v || a / 16 != b / 16) continue;
      graph.targets.push_back(t);
      graph.weights.push_back(a / 4 == b / 4 ? 100.0 : 10.0);
    }
    graph.offsets.push_back(static_cast<Offset>(graph.targets.size()));
  }
  std::vector<Index> position = random_placement(64, 64, 11);
  const double before = cost_of(graph.view(), tree, position);
  refine_placement(graph.view(), tree, position, {});
  EXPECT_LT(cost_of(graph.view(), tree, position), 0.8 * before);
}

TEST(RefinePlacement, EdgeCasesChangeNothing) {
  const LeafTree tree = tree_of({2, 4}, {1, 1});
  Csr empty;
  std::vector<Index> none;
  EXPECT_EQ(refine_placement(empty.view(), tree, none, {}).moves, 0);
  Csr one;
  one.n = 1;
  one.offsets = {0, 0};
  std::vector<Index> single{5};
  EXPECT_EQ(refine_placement(one.view(), tree, single, {}).moves, 0);
  EXPECT_EQ(single, std::vector<Index>{5});
  // One level: every leaf is a sibling of every other, no exchange changes the cost.
  const Csr graph = testing::random_graph(6, 3, 10, 1);
  std::vector<Index> flat{5, 4, 3, 2, 1, 0};
  EXPECT_EQ(refine_placement(graph.view(), tree_of({8}, {1}), flat, {}).moves, 0);
  // Zero weights everywhere but the structure: nothing to gain.
  Csr zero = testing::random_graph(8, 3, 10, 2);
  std::fill(zero.weights.begin(), zero.weights.end(), 0.0);
  std::vector<Index> position = random_placement(8, 8, 4);
  const std::vector<Index> before = position;
  EXPECT_EQ(refine_placement(zero.view(), tree, position, {}).moves, 0);
  EXPECT_EQ(position, before);
}

TEST(RefinePlacement, NeverMovesOntoAClosedLeafNorMovesAPinnedItem) {
  // Arrange: 90 items of a random pattern on 128 leaves, the last of every 4 closed (a machine
  // whose jobs may not use one core of each package), items 0-9 pinned.
  const LeafTree tree = tree_of({4, 4, 2, 4}, {1000, 100, 10, 1});
  const Index leaves = leaves_of(tree);
  const Csr graph = testing::random_graph(90, 5, 1000, 7);
  PlacementSwapOptions options;
  options.closed.assign(static_cast<std::size_t>(leaves), 0);
  std::vector<Index> open;
  for (Index leaf = 0; leaf < leaves; ++leaf) {
    if (leaf % 4 == 3) {
      options.closed[static_cast<std::size_t>(leaf)] = 1;
    } else {
      open.push_back(leaf);
    }
  }
  options.pinned.assign(90, 0);
  for (std::size_t v = 0; v < 10; ++v) options.pinned[v] = 1;
  std::vector<Index> start = random_placement(90, static_cast<Index>(open.size()), 3);
  for (Index& leaf : start) leaf = open[static_cast<std::size_t>(leaf)];
  std::vector<Index> twin = start;
  const PlacementSwapStats twin_stats = refine_placement_seq(graph.view(), tree, twin, options);

  // Act
  std::vector<Index> position = start;
  const PlacementSwapStats stats = refine_placement(graph.view(), tree, position, options);

  // Assert: the cost falls, no item lands on a closed leaf, the pinned stay; as the twin.
  EXPECT_GT(stats.moves, 0);
  EXPECT_LT(cost_of(graph.view(), tree, position), cost_of(graph.view(), tree, start));
  for (std::size_t v = 0; v < position.size(); ++v) {
    EXPECT_NE(position[v] % 4, 3) << "item " << v;
    if (v < 10) {
      EXPECT_EQ(position[v], start[v]) << "item " << v;
    }
  }
  EXPECT_EQ(position, twin);
  EXPECT_EQ(stats.moves, twin_stats.moves);
  // Without them, the same start moves items onto closed leaves and the pinned ones.
  std::vector<Index> free = start;
  refine_placement(graph.view(), tree, free, {});
  EXPECT_TRUE(std::any_of(free.begin(), free.end(), [](Index leaf) { return leaf % 4 == 3; }));
  EXPECT_FALSE(std::equal(free.begin(), free.begin() + 10, start.begin()));
}

TEST(RefinePlacement, RejectsABadPlacement) {
  const LeafTree tree = tree_of({2, 2}, {1, 1});
  const Csr graph = testing::random_graph(3, 2, 10, 1);
  std::vector<Index> taken{0, 0, 1};
  EXPECT_THROW(refine_placement(graph.view(), tree, taken, {}), std::invalid_argument);
  std::vector<Index> outside{0, 1, 4};
  EXPECT_THROW(refine_placement(graph.view(), tree, outside, {}), std::invalid_argument);
  std::vector<Index> fine{0, 1, 2};
  PlacementSwapOptions short_closed;
  short_closed.closed.assign(3, 0);  // 4 leaves
  EXPECT_THROW(refine_placement(graph.view(), tree, fine, short_closed), std::invalid_argument);
  PlacementSwapOptions short_pinned;
  short_pinned.pinned.assign(2, 0);  // 3 items
  EXPECT_THROW(refine_placement(graph.view(), tree, fine, short_pinned), std::invalid_argument);
}

}  // namespace
}  // namespace treematch::kernels
