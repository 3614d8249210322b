// Candidate generation: exhaustive subsets, neighbourhood growth against its sequential twin,
// packing.
#include "kernels/candidate_groups.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "kernels/group_values.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

using testing::random_graph;
using testing::under_thread_counts;

TEST(AllKSubsets, CountsAndOrderOverFreeVertices) {
  const std::vector<std::uint8_t> free{1, 0, 1, 1, 1};
  const Groups subsets = all_k_subsets(free, 2);
  ASSERT_EQ(subsets.count(), 6);  // C(4, 2) over {0, 2, 3, 4}
  EXPECT_EQ(std::vector<Index>(subsets.group(0).begin(), subsets.group(0).end()),
            (std::vector<Index>{0, 2}));
  EXPECT_EQ(std::vector<Index>(subsets.group(5).begin(), subsets.group(5).end()),
            (std::vector<Index>{3, 4}));
}

TEST(AllKSubsets, EmptyWhenKExceedsFree) {
  const std::vector<std::uint8_t> free{1, 1};
  EXPECT_EQ(all_k_subsets(free, 3).count(), 0);
}

TEST(NeighbourhoodCandidates, ParallelEqualsSequentialAtAnyThreadCount) {
  for (const Index k : {2, 3, 4, 8}) {
    const Csr graph = random_graph(600, 5, 3, 42u + static_cast<unsigned>(k), /*active=*/560);
    const std::vector<Weight> rowsum = row_sums_seq(graph.view());
    std::vector<std::uint8_t> free(600, 1);
    for (Index v = 0; v < 600; v += 7) free[static_cast<std::size_t>(v)] = 0;
    const std::vector<Index> fillers = filler_order(rowsum, free);
    const Groups reference =
        neighbourhood_candidates_seq(graph.view(), rowsum, free, fillers, k, 4);
    ASSERT_GT(reference.count(), 0);
    for (const Groups& parallel : under_thread_counts(
             [&] { return neighbourhood_candidates(graph.view(), rowsum, free, fillers, k, 4); })) {
      EXPECT_EQ(parallel.members, reference.members) << "k=" << k;
    }
  }
}

TEST(NeighbourhoodCandidates, GroupsAreSortedDistinctAndUseOnlyFreeVertices) {
  const Csr graph = random_graph(300, 4, 10, 7);
  const std::vector<Weight> rowsum = row_sums_seq(graph.view());
  std::vector<std::uint8_t> free(300, 1);
  for (Index v = 0; v < 300; v += 3) free[static_cast<std::size_t>(v)] = 0;
  const Groups candidates =
      neighbourhood_candidates(graph.view(), rowsum, free, filler_order(rowsum, free), 4, 3);
  std::set<std::vector<Index>> seen;
  for (Index c = 0; c < candidates.count(); ++c) {
    const std::vector<Index> group(candidates.group(c).begin(), candidates.group(c).end());
    EXPECT_TRUE(std::is_sorted(group.begin(), group.end()));
    EXPECT_EQ(std::set<Index>(group.begin(), group.end()).size(), group.size());
    for (Index v : group) EXPECT_TRUE(free[static_cast<std::size_t>(v)]) << v;
    EXPECT_TRUE(seen.insert(group).second) << "duplicate candidate";
  }
}

TEST(NeighbourhoodCandidates, GrowsAlongTheHeaviestEdges) {
  // 0 =9= 1 -1- 2 =9= 3 : the best pair of 0 is {0,1}, of 2 is {2,3}.
  Csr graph;
  graph.n = 4;
  graph.offsets = {0, 1, 3, 5, 6};
  graph.targets = {1, 0, 2, 1, 3, 2};
  graph.weights = {9, 9, 1, 1, 9, 9};
  const std::vector<Weight> rowsum = row_sums_seq(graph.view());
  const std::vector<std::uint8_t> free(4, 1);
  const Groups candidates =
      neighbourhood_candidates_seq(graph.view(), rowsum, free, filler_order(rowsum, free), 2, 1);
  // Every seed grows along its 9-edge, so only two distinct groups remain.
  ASSERT_EQ(candidates.count(), 2);
  EXPECT_EQ(candidates.members, (std::vector<Index>{0, 1, 2, 3}));
}

TEST(PackRemaining, CoversEveryFreeVertexOnceIncludingIsolatedOnes) {
  const Csr graph = random_graph(120, 2, 5, 3, /*active=*/80);  // 40 isolated vertices
  const std::vector<Weight> rowsum = row_sums_seq(graph.view());
  std::vector<std::uint8_t> free(120, 1);
  for (Index v = 0; v < 24; ++v) free[static_cast<std::size_t>(v)] = 0;  // 96 left, k = 4
  const Groups packed = pack_remaining(graph.view(), rowsum, free, 4);
  EXPECT_EQ(packed.count(), 24);
  std::vector<Index> all(packed.members);
  std::sort(all.begin(), all.end());
  std::vector<Index> expected(96);
  std::iota(expected.begin(), expected.end(), 24);
  EXPECT_EQ(all, expected);
  EXPECT_TRUE(std::none_of(free.begin(), free.end(), [](std::uint8_t f) { return f != 0; }));
}

TEST(PackRemaining, EmptyInputGivesNoGroups) {
  Csr graph;
  std::vector<std::uint8_t> free;
  EXPECT_EQ(pack_remaining(graph.view(), {}, free, 2).count(), 0);
}

}  // namespace
}  // namespace treematch::kernels

namespace treematch::kernels {
namespace {

TEST(StrongestNeighbours, KeepsTheHeaviestEntriesSortedByTarget) {
  // Row 0: to 1 (5), 2 (9), 3 (5), 4 (1); limit 2 keeps 2 (9) and the tie 5 at the smaller
  // target 1.
  Csr graph;
  graph.n = 5;
  graph.offsets = {0, 4, 5, 6, 7, 8};
  graph.targets = {1, 2, 3, 4, 0, 0, 0, 0};
  graph.weights = {5, 9, 5, 1, 5, 9, 5, 1};
  const Csr strong = strongest_neighbours_seq(graph.view(), 2);
  EXPECT_EQ(strong.offsets, (std::vector<Offset>{0, 2, 3, 4, 5, 6}));
  EXPECT_EQ(std::vector<Index>(strong.targets.begin(), strong.targets.begin() + 2),
            (std::vector<Index>{1, 2}));
  EXPECT_EQ(std::vector<Weight>(strong.weights.begin(), strong.weights.begin() + 2),
            (std::vector<Weight>{5, 9}));
}

TEST(StrongestNeighbours, ParallelEqualsSequential) {
  const Csr graph = testing::random_graph(800, 40, 7, 21);
  const Csr reference = strongest_neighbours_seq(graph.view(), 16);
  for (const Csr& strong :
       testing::under_thread_counts([&] { return strongest_neighbours(graph.view(), 16); })) {
    EXPECT_EQ(strong.offsets, reference.offsets);
    EXPECT_EQ(strong.targets, reference.targets);
    EXPECT_EQ(strong.weights, reference.weights);
  }
}

}  // namespace
}  // namespace treematch::kernels
