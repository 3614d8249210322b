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
  std::vector<Index> perm(3003);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(3));
  Groups groups;
  groups.k = 3;
  for (std::size_t g = 0; g < perm.size(); g += 3) {
    std::vector<Index> members(perm.begin() + static_cast<std::ptrdiff_t>(g),
                               perm.begin() + static_cast<std::ptrdiff_t>(g + 3));
    std::sort(members.begin(), members.end());
    groups.members.insert(groups.members.end(), members.begin(), members.end());
  }
  const Csr reference = aggregate_seq(extended, groups);
  EXPECT_EQ(reference.n, 1001);
  for (const Csr& r : testing::under_thread_counts([&] { return aggregate(extended, groups); })) {
    EXPECT_EQ(r.offsets, reference.offsets);
    EXPECT_EQ(r.targets, reference.targets);
    EXPECT_EQ(r.weights, reference.weights);
  }
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
