// AggregateComMatrix: the seed's r[0][1] = 1012, and parallel against sequential.
#include "kernels/aggregation.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "tests/kernels/kernel_fixtures.h"
#include "tests/seed_example.h"

namespace treematch::kernels {
namespace {

Weight entry(const Csr& m, Index i, Index j) {
  for (Offset e = m.offsets[static_cast<std::size_t>(i)];
       e < m.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
    if (m.targets[static_cast<std::size_t>(e)] == j) return m.weights[static_cast<std::size_t>(e)];
  }
  return 0;
}

/// Vertices 0..n-1 shuffled (seed) and cut into groups of k, members sorted (k divides n).
Groups shuffled_groups(Index n, Index k, std::uint64_t seed) {
  std::vector<Index> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  Groups groups;
  groups.k = k;
  for (auto first = perm.begin(); first != perm.end(); first += k) {
    std::sort(first, first + k);
    groups.members.insert(groups.members.end(), first, first + k);
  }
  return groups;
}

TEST(Aggregate, SeedPairsGive1012BetweenFirstTwoGroups) {
  const Csr graph = treematch::testing::seed_csr();
  Groups pairs;
  pairs.k = 2;
  pairs.members = {0, 1, 2, 3, 4, 5, 6, 7};
  const Csr r = aggregate(graph.view(), pairs);
  ASSERT_EQ(r.n, 4);
  EXPECT_EQ(entry(r, 0, 1), 1012);  // 10 + 1 + 1000 + 1
  EXPECT_EQ(entry(r, 1, 0), 1012);
  EXPECT_EQ(entry(r, 0, 0), 0);  // no diagonal
  EXPECT_EQ(entry(r, 0, 2), 100 + 1 + 1 + 100);
}

TEST(Aggregate, ParallelEqualsSequentialWithArtificialVertices) {
  const Csr graph = testing::random_graph(3000, 6, 1000, 5);
  CsrView extended = graph.view();
  extended.n = 3003;  // three artificial processes
  const Groups groups = shuffled_groups(3003, 3, 3);
  const Csr reference = aggregate_seq(extended, groups);
  EXPECT_EQ(reference.n, 1001);
  for (const Csr& r : testing::under_thread_counts([&] { return aggregate(extended, groups); })) {
    EXPECT_EQ(r.offsets, reference.offsets);
    EXPECT_EQ(r.targets, reference.targets);
    EXPECT_EQ(r.weights, reference.weights);
  }
}

TEST(Aggregate, BothRowsOfAPairHoldTheUpperRowsSum) {
  // Groups {0, 1} and {2, 3}. Row 0 sums (w02 + w03) + (w12 + w13) = (0.1 + 0.1) + (0.2 + 0.3),
  // row 1 sums (w20 + w21) + (w30 + w31) = (0.1 + 0.2) + (0.1 + 0.3): 0.7 and 0.7000000000000001
  // in floating point. Both rows must hold row 0's value.
  Csr graph;
  graph.n = 4;
  graph.offsets = {0, 2, 4, 6, 8};
  graph.targets = {2, 3, 2, 3, 0, 1, 0, 1};
  graph.weights = {0.1, 0.1, 0.2, 0.3, 0.1, 0.2, 0.1, 0.3};
  Groups halves;
  halves.k = 2;
  halves.members = {0, 1, 2, 3};
  const Weight upper = (0.1 + 0.1) + (0.2 + 0.3);
  ASSERT_NE(upper, (0.1 + 0.2) + (0.1 + 0.3));  // the sums this test is about differ
  for (const Csr& r : {aggregate(graph.view(), halves), aggregate_seq(graph.view(), halves)}) {
    EXPECT_EQ(entry(r, 0, 1), upper);
    EXPECT_EQ(entry(r, 1, 0), upper);
  }
}

TEST(Aggregate, RealWeightsGiveABitwiseSymmetricMatrix) {
  Csr graph = testing::random_graph(3000, 6, 1000, 7);
  for (Weight& w : graph.weights) w /= 3.0;
  // random_graph is symmetric; w / 3 keeps it so (the same division of the same value).
  const Groups groups = shuffled_groups(3000, 4, 11);
  const Csr r = aggregate(graph.view(), groups);
  Offset checked = 0;
  for (Index g = 0; g < r.n; ++g) {
    for (Offset e = r.offsets[static_cast<std::size_t>(g)];
         e < r.offsets[static_cast<std::size_t>(g) + 1]; ++e) {
      const Index h = r.targets[static_cast<std::size_t>(e)];
      ASSERT_EQ(r.weights[static_cast<std::size_t>(e)], entry(r, h, g)) << g << " " << h;
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(Aggregate, EmptyGraph) {
  Csr graph;
  Groups none;
  none.k = 2;
  const Csr r = aggregate(graph.view(), none);
  EXPECT_EQ(r.n, 0);
  EXPECT_EQ(r.offsets, (std::vector<Offset>{0}));
}

}  // namespace
}  // namespace treematch::kernels
