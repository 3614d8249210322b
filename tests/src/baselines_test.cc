// Tests of the baseline mappings: slots, packed, round-robin, random and MPIPP.
#include "src/report/baselines.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "src/model/cost.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

// "pack:2 core:3 pu:2" with the OS numbering of a machine that numbers hyperthreads last:
//
//                            root
//               /                          \                 <- packages
//            pack0                         pack1
//      /       |       \              /      |       \       <- cores
//    c0       c1       c2           c3      c4       c5
//   /  \     /  \     /  \         /  \    /  \     /  \     <- PUs
//  0    1   2    3   4    5       6    7  8    9   10   11   <- logical leaf
//  0    2   4    6   8   10       1    3  5    7    9   11   <- OS index
Topology hyperthreaded() {
  return Topology({TreeLevel{2, 1.0, "pack"}, TreeLevel{3, 1.0, "core"}, TreeLevel{2, 1.0, "pu"}},
                  {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
}

Topology binary_tree(int levels) {
  return Topology(
      std::vector<TreeLevel>(static_cast<std::size_t>(levels), TreeLevel{2, 1.0, "level"}),
      /*leaf_os_index=*/{});
}

bool is_one_to_one(const Mapping& mapping, Index leaves) {
  std::vector<Index> sorted = mapping.leaf_of_rank;
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() &&
         (sorted.empty() || (sorted.front() >= 0 && sorted.back() < leaves));
}

double hop_bytes(const CommGraph& graph, const Topology& topology, const Mapping& mapping) {
  return evaluate_cost_seq(graph, topology, mapping).hop_bytes;
}

CommGraph random_graph(Index ranks, int edges, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<Index> rank(0, ranks - 1);
  std::uniform_int_distribution<int> weight(1, 100);
  std::vector<Triplet> triplets;
  for (int e = 0; e < edges; ++e) {
    triplets.push_back(
        Triplet{rank(generator), rank(generator), static_cast<Weight>(weight(generator))});
  }
  return CommGraph::from_triplets(ranks, std::move(triplets));
}

TEST(UsableSlots, RepeatsEachLeafConsecutively) {
  const Topology tree = binary_tree(2);

  const std::vector<Index> all = usable_slots(tree, /*allowed=*/{}, /*per_leaf=*/2);
  const std::vector<Index> some = usable_slots(tree, /*allowed=*/{3, 1}, /*per_leaf=*/1);

  EXPECT_EQ(all, (std::vector<Index>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(some, (std::vector<Index>{1, 3}));
}

TEST(UsableSlots, RejectsBadInput) {
  const Topology tree = binary_tree(2);

  EXPECT_THROW(usable_slots(tree, {}, /*per_leaf=*/0), std::invalid_argument);
  EXPECT_THROW(usable_slots(tree, {1, 4}, 1), std::invalid_argument);
  EXPECT_THROW(usable_slots(tree, {2, 2}, 1), std::invalid_argument);
}

TEST(PackedMapping, FollowsLogicalOrder) {
  const Topology tree = hyperthreaded();
  const std::vector<Index> slots = usable_slots(tree, {}, 1);

  const Mapping mapping = packed_mapping(5, slots);

  EXPECT_EQ(mapping.leaf_of_rank, (std::vector<Index>{0, 1, 2, 3, 4}));
  EXPECT_THROW(packed_mapping(13, slots), std::invalid_argument);
}

TEST(RoundRobinMapping, FollowsOsOrder) {
  const Topology tree = hyperthreaded();
  const std::vector<Index> slots = usable_slots(tree, {}, 1);

  const Mapping mapping = round_robin_mapping(12, tree, slots);

  // OS 0, 1, 2, ... live on logical leaves 0, 6, 1, 7, ...
  EXPECT_EQ(mapping.leaf_of_rank, (std::vector<Index>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
  EXPECT_EQ(mapping.leaf_of_rank[1], tree.leaf_of_os_index(1));
}

TEST(RoundRobinMapping, KeepsOversubscribedSlotsTogether) {
  const Topology tree = hyperthreaded();
  const std::vector<Index> slots = usable_slots(tree, {0, 1, 6}, /*per_leaf=*/2);

  const Mapping mapping = round_robin_mapping(5, tree, slots);

  EXPECT_EQ(mapping.leaf_of_rank, (std::vector<Index>{0, 0, 6, 6, 1}));
  EXPECT_THROW(round_robin_mapping(7, tree, slots), std::invalid_argument);
}

TEST(RandomMapping, IsAPermutationStableForASeed) {
  const Topology tree = hyperthreaded();
  const std::vector<Index> slots = usable_slots(tree, {}, 1);

  const Mapping first = random_mapping(12, slots, /*seed=*/7);
  const Mapping again = random_mapping(12, slots, /*seed=*/7);
  const Mapping other = random_mapping(12, slots, /*seed=*/8);

  std::vector<Index> sorted = first.leaf_of_rank;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, slots);
  EXPECT_EQ(first.leaf_of_rank, again.leaf_of_rank);
  EXPECT_NE(first.leaf_of_rank, other.leaf_of_rank);
}

TEST(RandomMapping, ChoosesDistinctSlotsWhenThereAreMoreSlotsThanRanks) {
  const Topology tree = binary_tree(6);
  const std::vector<Index> slots = usable_slots(tree, {}, 1);

  const Mapping mapping = random_mapping(10, slots, /*seed=*/3);

  EXPECT_EQ(mapping.leaf_of_rank.size(), 10U);
  EXPECT_TRUE(is_one_to_one(mapping, tree.leaf_count()));
  EXPECT_THROW(random_mapping(65, slots, 3), std::invalid_argument);
}

TEST(RandomMapping, IsTheSameOnEveryPlatform) {
  // Expected values from an independent re-implementation of the documented algorithm
  // (mt19937_64 from the standard's parameters, rejection sampling, partial Fisher-Yates);
  // a change here changes every published "random" and MPIPP result.
  const std::vector<Index> slots{0, 1, 2, 3, 4, 5, 6, 7};

  const Mapping mapping = random_mapping(8, slots, /*seed=*/42);

  EXPECT_EQ(mapping.leaf_of_rank, (std::vector<Index>{6, 4, 0, 5, 3, 7, 2, 1}));
}

TEST(MpippMapping, IsOneToOneAndBetterThanItsRandomStart) {
  // Arrange: 40 processes on 64 cores, so moves to free cores are candidates too.
  const Topology tree = binary_tree(6);
  const std::vector<Index> slots = usable_slots(tree, {}, 1);
  const CommGraph graph = random_graph(40, 300, /*seed=*/11);

  for (const std::uint64_t seed : {1U, 2U, 3U}) {
    SCOPED_TRACE(seed);
    // Act
    const Mapping mpipp = mpipp_mapping(graph, tree, slots, /*starts=*/1, seed);
    const Mapping start = random_mapping(40, slots, seed);

    // Assert
    EXPECT_TRUE(is_one_to_one(mpipp, tree.leaf_count()));
    EXPECT_EQ(mpipp.leaf_of_rank.size(), 40U);
    EXPECT_LT(hop_bytes(graph, tree, mpipp), hop_bytes(graph, tree, start));
  }
}

/// True if no exchange of two ranks' leaves and no move of a rank to an unused slot lowers
/// hop-bytes (brute force over evaluate_cost).
bool is_swap_local_optimum(const CommGraph& graph, const Topology& topology,
                           const std::vector<Index>& slots, const Mapping& mapping) {
  const double cost = hop_bytes(graph, topology, mapping);
  std::vector<Index> unused = slots;
  for (const Index leaf : mapping.leaf_of_rank)
    unused.erase(std::find(unused.begin(), unused.end(), leaf));
  const std::size_t ranks = mapping.leaf_of_rank.size();
  for (std::size_t i = 0; i < ranks; ++i) {
    for (std::size_t j = i + 1; j < ranks; ++j) {
      Mapping swapped = mapping;
      std::swap(swapped.leaf_of_rank[i], swapped.leaf_of_rank[j]);
      if (hop_bytes(graph, topology, swapped) < cost) return false;
    }
    for (const Index leaf : unused) {
      Mapping moved = mapping;
      moved.leaf_of_rank[i] = leaf;
      if (hop_bytes(graph, topology, moved) < cost) return false;
    }
  }
  return true;
}

TEST(MpippMapping, EndsInALocalOptimumOfSwapsAndMoves) {
  // Arrange: 30 processes on 64 cores; integer weights keep every cost exact.
  const Topology tree = binary_tree(6);
  const std::vector<Index> slots = usable_slots(tree, {}, 1);
  const CommGraph graph = random_graph(30, 150, /*seed=*/17);

  // Act
  const Mapping mapping = mpipp_mapping(graph, tree, slots, /*starts=*/1, /*seed=*/5);

  // Assert
  EXPECT_TRUE(is_one_to_one(mapping, tree.leaf_count()));
  EXPECT_TRUE(is_swap_local_optimum(graph, tree, slots, mapping));
}

TEST(MpippMapping, FiveStartsReachTheOptimumOfAHierarchicalPatternOnATwoLevelTree) {
  // Arrange: 16 processes on a 4x4 tree; processes under one parent talk 10, others 1. Process s
  // of the unpermuted pattern belongs on leaf s, so the packed identity mapping of that pattern
  // gives the optimum; the ranks are then relabelled.
  const Topology tree = testing::tree_of({4, 4});
  const std::vector<Index> slots = usable_slots(tree, {}, 1);
  std::vector<Index> identity(16);
  std::iota(identity.begin(), identity.end(), Index{0});
  const double optimum =
      hop_bytes(testing::hierarchical_pattern(tree, identity), tree, packed_mapping(16, slots));
  const std::vector<Index> rank_of_slot{9, 3, 14, 0, 7, 12, 5, 10, 1, 15, 6, 2, 11, 8, 4, 13};
  const CommGraph graph = testing::hierarchical_pattern(tree, rank_of_slot);
  ASSERT_GT(hop_bytes(graph, tree, packed_mapping(16, slots)), optimum);

  for (const std::uint64_t seed : {1U, 2U, 3U, 4U, 5U}) {
    SCOPED_TRACE(seed);
    // Act
    const Mapping mapping = mpipp_mapping(graph, tree, slots, /*starts=*/5, seed);

    // Assert
    EXPECT_TRUE(is_one_to_one(mapping, tree.leaf_count()));
    EXPECT_EQ(hop_bytes(graph, tree, mapping), optimum);
  }
}

TEST(MpippMapping, FiveStartsOnADeepHierarchicalPatternEndInALocalOptimum) {
  // Arrange: 16 processes on the 2x2x2x2 tree; processes under one parent talk 1000, under one
  // grandparent 100, then 10, then 1. Pairwise exchanges cannot move a well-formed pair as a
  // whole, so the search usually stops in a local optimum above the packed identity optimum
  // (MPIPP's known weakness that TreeMatch avoids): assert what MPIPP guarantees.
  const Topology tree = binary_tree(4);
  const std::vector<Index> slots = usable_slots(tree, {}, 1);
  std::vector<Index> identity(16);
  std::iota(identity.begin(), identity.end(), Index{0});
  const double optimum =
      hop_bytes(testing::hierarchical_pattern(tree, identity), tree, packed_mapping(16, slots));
  const std::vector<Index> rank_of_slot{9, 3, 14, 0, 7, 12, 5, 10, 1, 15, 6, 2, 11, 8, 4, 13};
  const CommGraph graph = testing::hierarchical_pattern(tree, rank_of_slot);

  // Act
  const Mapping five = mpipp_mapping(graph, tree, slots, /*starts=*/5, /*seed=*/1);
  const Mapping one = mpipp_mapping(graph, tree, slots, /*starts=*/1, /*seed=*/1);

  // Assert
  EXPECT_TRUE(is_one_to_one(five, tree.leaf_count()));
  EXPECT_TRUE(is_swap_local_optimum(graph, tree, slots, five));
  EXPECT_GE(hop_bytes(graph, tree, five), optimum);
  EXPECT_LE(hop_bytes(graph, tree, five), hop_bytes(graph, tree, one));
  EXPECT_LT(hop_bytes(graph, tree, five),
            hop_bytes(graph, tree, random_mapping(16, slots, /*seed=*/1)));
}

TEST(MpippMapping, MoreStartsAreNeverWorse) {
  const Topology tree = binary_tree(5);
  const std::vector<Index> slots = usable_slots(tree, {}, 1);
  const CommGraph graph = random_graph(32, 200, /*seed=*/5);

  const Mapping one = mpipp_mapping(graph, tree, slots, /*starts=*/1, /*seed=*/9);
  const Mapping five = mpipp_mapping(graph, tree, slots, /*starts=*/5, /*seed=*/9);

  EXPECT_LE(hop_bytes(graph, tree, five), hop_bytes(graph, tree, one));
}

TEST(MpippMapping, ParallelEqualsSequentialWithAnyThreadCount) {
  // Arrange: 80 processes on 128 cores (free slots), 60 on 40 cores x 2 slots, 40 on a tree
  // oversubscribed twice, and edge cases: no process, one process, no communication.
  const Topology tree = binary_tree(7);
  const std::vector<Index> all = usable_slots(tree, {}, 1);
  std::vector<Index> allowed(40);
  std::iota(allowed.begin(), allowed.end(), Index{50});
  const Topology oversubscribed = binary_tree(6).with_oversubscription(2);
  struct MpippCase {
    CommGraph graph;
    const Topology* topology;
    std::vector<Index> slots;
  };
  const std::vector<MpippCase> cases{
      {random_graph(80, 500, /*seed=*/21), &tree, all},
      {random_graph(60, 300, /*seed=*/22), &tree, usable_slots(tree, allowed, /*per_leaf=*/2)},
      {random_graph(40, 200, /*seed=*/23), &oversubscribed, usable_slots(oversubscribed, {}, 1)},
      {CommGraph::from_triplets(0, {}), &tree, all},
      {CommGraph::from_triplets(1, {}), &tree, all},
      {CommGraph::from_triplets(5, {}), &tree, all},
  };

  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    const MpippCase& input = cases[c];
    const Mapping reference =
        mpipp_mapping_seq(input.graph, *input.topology, input.slots, /*starts=*/2, /*seed=*/4);
    for (const int threads : {1, 2, 4}) {
      SCOPED_TRACE(threads);
      const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(threads));

      // Act
      const Mapping mapping =
          mpipp_mapping(input.graph, *input.topology, input.slots, /*starts=*/2, /*seed=*/4);

      // Assert
      EXPECT_EQ(mapping.leaf_of_rank, reference.leaf_of_rank);
    }
  }
}

TEST(MpippMapping, RejectsBadInput) {
  const Topology tree = binary_tree(2);
  const CommGraph graph = random_graph(5, 10, /*seed=*/1);

  EXPECT_THROW(mpipp_mapping(graph, tree, usable_slots(tree, {}, 1), /*starts=*/1, 0),
               std::invalid_argument);
  EXPECT_THROW(mpipp_mapping(graph, tree, usable_slots(tree, {}, 2), /*starts=*/0, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace treematch
