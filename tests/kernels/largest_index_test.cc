// "Largest value last": the search beats the greedy's worst rank when it can, within its budget.
#include "kernels/largest_index.h"

#include <gtest/gtest.h>

namespace treematch::kernels {
namespace {

TEST(MinLargestRank, FindsACoverUsingOnlyTopRankedCandidates) {
  // Ranked candidates over 4 vertices: r0 {0,1}, r1 {1,2}, r2 {0,3}, r3 {2,3}.
  // Greedy takes r0 then needs r3 (largest rank 3); {r1, r2} covers with largest rank 2.
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2, 0, 3, 2, 3};
  const std::vector<Index> order{0, 1, 2, 3};
  EXPECT_EQ(min_largest_rank_set(c, order, 4, 2, 1000), (std::vector<Index>{1, 2}));
}

TEST(MinLargestRank, ZeroBudgetReturnsTheGreedy) {
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2, 0, 3, 2, 3};
  const std::vector<Index> order{0, 1, 2, 3};
  EXPECT_EQ(min_largest_rank_set(c, order, 4, 2, 0), (std::vector<Index>{0, 3}));
}

TEST(MinLargestRank, EmptyWhenTargetCannotBeReached) {
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2};
  const std::vector<Index> order{0, 1};
  EXPECT_TRUE(min_largest_rank_set(c, order, 3, 2, 100).empty());
}

}  // namespace
}  // namespace treematch::kernels
