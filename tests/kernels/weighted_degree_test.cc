// Weighted-degree ordering: hand-checked averages and parallel against sequential.
#include "kernels/weighted_degree.h"

#include <gtest/gtest.h>

#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

TEST(WeightedDegree, RanksByAverageConflictValueDescending) {
  // {0,1} conflicts with {1,2} (value 10); {1,2} with both others (avg (1+7)/2 = 4);
  // {2,3} with {1,2} (10). Averages: 10, 4, 10 -> ties broken by value: {0,1}=1 before {2,3}=7.
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2, 2, 3};
  const std::vector<Weight> values{1, 10, 7};
  const Incidence inc = incidence(c, 4);
  EXPECT_EQ(priority_by_weighted_degree_seq(c, inc, values), (std::vector<Index>{0, 2, 1}));
  EXPECT_EQ(priority_by_weighted_degree(c, inc, values), (std::vector<Index>{0, 2, 1}));
  EXPECT_EQ(weighted_degree_work(inc), 1.0 + 4.0 + 4.0 + 1.0);
}

TEST(WeightedDegree, ParallelEqualsSequential) {
  const Csr graph = testing::random_graph(1200, 5, 50, 9);
  const std::vector<Weight> rowsum = row_sums_seq(graph.view());
  const std::vector<std::uint8_t> free(1200, 1);
  const Groups candidates =
      neighbourhood_candidates_seq(graph.view(), rowsum, free, filler_order(rowsum, free), 3, 4);
  const std::vector<Weight> values = group_values_seq(graph.view(), rowsum, candidates);
  const Incidence inc = incidence(candidates, 1200);
  const std::vector<Index> reference = priority_by_weighted_degree_seq(candidates, inc, values);
  for (const auto& priority : testing::under_thread_counts(
           [&] { return priority_by_weighted_degree(candidates, inc, values); })) {
    EXPECT_EQ(priority, reference);
  }
}

}  // namespace
}  // namespace treematch::kernels
