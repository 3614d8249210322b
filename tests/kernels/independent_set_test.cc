// Independent-set selection: the parallel rounds return exactly the sequential greedy.
#include "kernels/independent_set.h"

#include <gtest/gtest.h>

#include <random>

#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

TEST(GreedyIndependentSet, KeepsBestThenSkipsConflicts) {
  // Candidates {0,1} {1,2} {2,3} {0,3} ranked 1, 0, 2, 3: {1,2} first, then only {0,3} fits.
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2, 2, 3, 0, 3};
  const std::vector<Index> priority{1, 0, 2, 3};
  EXPECT_EQ(greedy_independent_set_seq(c, priority, 4), (std::vector<Index>{1, 3}));
  EXPECT_EQ(greedy_independent_set(c, priority, 4), (std::vector<Index>{1, 3}));
  EXPECT_EQ(greedy_independent_set_rounds(c, priority, 4), (std::vector<Index>{1, 3}));
}

TEST(GreedyIndependentSet, EmptyAndSingleCandidate) {
  Groups none;
  none.k = 2;
  EXPECT_TRUE(greedy_independent_set(none, {}, 0).empty());
  EXPECT_TRUE(greedy_independent_set_rounds(none, {}, 0).empty());
  Groups one;
  one.k = 1;
  one.members = {0};
  EXPECT_EQ(greedy_independent_set(one, std::vector<Index>{0}, 1), (std::vector<Index>{0}));
  EXPECT_EQ(greedy_independent_set_rounds(one, std::vector<Index>{0}, 1), (std::vector<Index>{0}));
}

TEST(GreedyIndependentSet, ParallelEqualsSequentialOnRandomCandidates) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    // Many ties in the weights (max weight 2) so the index tie-break matters.
    const Csr graph = testing::random_graph(1500, 4, 2, seed);
    const std::vector<Weight> rowsum = row_sums_seq(graph.view());
    const std::vector<std::uint8_t> free(1500, 1);
    const Groups candidates =
        neighbourhood_candidates_seq(graph.view(), rowsum, free, filler_order(rowsum, free), 3, 4);
    const std::vector<Index> priority =
        priority_by_value(group_values_seq(graph.view(), rowsum, candidates));
    const std::vector<Index> reference = greedy_independent_set_seq(candidates, priority, 1500);
    ASSERT_FALSE(reference.empty());
    for (const auto& kept : testing::under_thread_counts(
             [&] { return greedy_independent_set(candidates, priority, 1500); })) {
      EXPECT_EQ(kept, reference) << "seed " << seed;
    }
    for (const auto& kept : testing::under_thread_counts(
             [&] { return greedy_independent_set_rounds(candidates, priority, 1500); })) {
      EXPECT_EQ(kept, reference) << "seed " << seed;
    }
  }
}

TEST(GreedyIndependentSet, ParallelEqualsSequentialOnLongConflictChains) {
  // A path of overlapping pairs ranked so that every candidate waits for its left neighbour (a
  // ring of equal volumes ranked by index): one candidate a round would take n rounds of O(n)
  // each, hours at this n, so the test also fails by its time-out if the rounds do that.
  Groups c;
  c.k = 2;
  const Index n = 200000;
  for (Index v = 0; v + 1 < n; ++v) c.members.insert(c.members.end(), {v, v + 1});
  std::vector<Index> priority(static_cast<std::size_t>(c.count()));
  for (Index i = 0; i < c.count(); ++i) priority[static_cast<std::size_t>(i)] = i;
  const std::vector<Index> reference = greedy_independent_set_seq(c, priority, n);
  EXPECT_EQ(reference.size(), static_cast<std::size_t>(n / 2));
  EXPECT_EQ(greedy_independent_set(c, priority, n), reference);
  EXPECT_EQ(greedy_independent_set_rounds(c, priority, n), reference);
}

TEST(Incidence, ListsCandidatesOfEachVertex) {
  Groups c;
  c.k = 2;
  c.members = {0, 1, 1, 2};
  const Incidence inc = incidence(c, 3);
  EXPECT_EQ(inc.offsets, (std::vector<Offset>{0, 1, 3, 4}));
  EXPECT_EQ(inc.candidates, (std::vector<Index>{0, 0, 1, 1}));
}

}  // namespace
}  // namespace treematch::kernels
