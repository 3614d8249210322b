// Group values and row sums: the seed's numbers, and parallel against sequential.
#include "kernels/group_values.h"

#include <gtest/gtest.h>

#include "kernels/candidate_groups.h"
#include "tests/kernels/kernel_fixtures.h"
#include "tests/seed_example.h"

namespace treematch::kernels {
namespace {

Csr seed_matrix() {
  return treematch::testing::seed_csr();
}

TEST(GroupValues, SeedGroupZeroOneIs1218) {
  const Csr m = seed_matrix();
  const std::vector<Weight> rowsum = row_sums_seq(m.view());
  EXPECT_EQ(rowsum[0], 1114);
  EXPECT_EQ(rowsum[1], 2104);
  Groups g;
  g.k = 2;
  g.members = {0, 1, 0, 5};
  const std::vector<Weight> values = group_values_seq(m.view(), rowsum, g);
  EXPECT_EQ(values[0], 1218);             // 1114 + 2104 - 2 x 1000
  EXPECT_EQ(values[1], 1114 + 2104 - 2);  // {0,5}: m[0][5] = 1
}

TEST(GroupValues, ArtificialVerticesCountZero) {
  const Csr m = seed_matrix();
  kernels::CsrView extended = m.view();
  extended.n = 10;  // two artificial processes
  const std::vector<Weight> rowsum = row_sums(extended);
  ASSERT_EQ(rowsum.size(), 10u);
  EXPECT_EQ(rowsum[9], 0);
  Groups g;
  g.k = 3;
  g.members = {0, 8, 9};
  EXPECT_EQ(group_values(extended, rowsum, g)[0], 1114);
}

TEST(GroupValues, ParallelEqualsSequentialAtAnyThreadCount) {
  const Csr graph = testing::random_graph(2000, 6, 1000, 11);
  const std::vector<Weight> rowsum = row_sums_seq(graph.view());
  const std::vector<std::uint8_t> free(2000, 1);
  const Groups candidates =
      neighbourhood_candidates_seq(graph.view(), rowsum, free, filler_order(rowsum, free), 4, 3);
  const std::vector<Weight> reference = group_values_seq(graph.view(), rowsum, candidates);
  for (const auto& values : testing::under_thread_counts(
           [&] { return group_values(graph.view(), rowsum, candidates); })) {
    EXPECT_EQ(values, reference);
  }
  for (const auto& sums : testing::under_thread_counts([&] { return row_sums(graph.view()); })) {
    EXPECT_EQ(sums, rowsum);
  }
}

TEST(PriorityByValue, TiesBrokenByIndex) {
  const std::vector<Weight> values{5, 1, 5, 0, 1};
  EXPECT_EQ(priority_by_value(values), (std::vector<Index>{3, 1, 4, 0, 2}));
}

}  // namespace
}  // namespace treematch::kernels

namespace treematch::kernels {
namespace {

TEST(GroupValues, LongRowsByLookupEqualANaiveSum) {
  // Dense rows (degree ~ 1000) take the pairwise-lookup path; small groups of a sparse graph the
  // scan.
  const Csr dense = testing::random_graph(1100, 1600, 100, 17);
  const std::vector<Weight> rowsum = row_sums_seq(dense.view());
  Groups g;
  g.k = 3;
  g.members = {0, 5, 9, 1, 2, 699, 3, 400, 401};
  const std::vector<Weight> values = group_values(dense.view(), rowsum, g);
  ASSERT_EQ(values, group_values_seq(dense.view(), rowsum, g));
  for (Index c = 0; c < g.count(); ++c) {
    const auto members = g.group(c);
    Weight expected = 0;
    for (Index i : members) {
      expected += rowsum[static_cast<std::size_t>(i)];
      for (Offset e = dense.offsets[static_cast<std::size_t>(i)];
           e < dense.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
        if (std::find(members.begin(), members.end(), dense.targets[static_cast<std::size_t>(e)]) !=
            members.end()) {
          expected -= dense.weights[static_cast<std::size_t>(e)];
        }
      }
    }
    EXPECT_EQ(values[static_cast<std::size_t>(c)], expected) << c;
  }
}

}  // namespace
}  // namespace treematch::kernels
