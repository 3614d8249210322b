// Partition swap refinement: repairs a bad grouping, never lowers the weight kept inside groups.
#include "kernels/partition_refinement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <set>

#include "kernels/group_values.h"
#include "tests/kernels/kernel_fixtures.h"
#include "tests/seed_example.h"

namespace treematch::kernels {
namespace {

double inside(CsrView graph, const Groups& groups) {
  const std::vector<Weight> rowsum = row_sums_seq(graph);
  const std::vector<Weight> values = group_values_seq(graph, rowsum, groups);
  return std::accumulate(rowsum.begin(), rowsum.end(), 0.0) -
         std::accumulate(values.begin(), values.end(), 0.0);
}

TEST(RefinePartition, RepairsAScrambledPairingOfTheSeedMatrix) {
  // Pairs {0,2} {1,3} {4,6} {5,7} cut every 1000-edge; the seed's pairs (0,1) (2,3) ... keep them.
  const Csr seed = treematch::testing::seed_csr();
  Groups groups;
  groups.k = 2;
  groups.members = {0, 2, 1, 3, 4, 6, 5, 7};
  EXPECT_GT(refine_partition(seed.view(), groups, 4), 0);
  EXPECT_EQ(groups.members, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RefinePartition, LeavesAnOptimalPartitionAlone) {
  const Csr seed = treematch::testing::seed_csr();
  Groups groups;
  groups.k = 2;
  groups.members = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(refine_partition(seed.view(), groups, 4), 0);
  EXPECT_EQ(groups.members, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RefinePartition, GainsFromTheOwnGroupsRowsMatchGainsFromEachPartnersRow) {
  // refine_partition sums the rows of the proposer's group, refine_partition_seq each partner's
  // row: the same swaps, in groups of 2, 3 and 5, on graphs dense enough for many swaps.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Index k = std::array<Index, 3>{2, 3, 5}[seed % 3];
    const Csr graph = testing::random_graph(150, 8, 1000, seed);
    std::vector<Index> perm(150);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
    Groups groups;
    groups.k = k;
    for (std::size_t g = 0; g < perm.size(); g += at(k)) {
      std::vector<Index> members(perm.begin() + static_cast<std::ptrdiff_t>(g),
                                 perm.begin() + static_cast<std::ptrdiff_t>(g + at(k)));
      std::sort(members.begin(), members.end());
      groups.members.insert(groups.members.end(), members.begin(), members.end());
    }
    Groups reference = groups;
    const long long swaps = refine_partition(graph.view(), groups, 4);
    EXPECT_GT(swaps, 10);
    EXPECT_EQ(refine_partition_seq(graph.view(), reference, 4), swaps);
    EXPECT_EQ(groups.members, reference.members);
  }
}

TEST(RefinePartition, NeverLosesInternalWeightAndKeepsAPartitionWithArtificialProcesses) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Csr graph = testing::random_graph(97, 4, 100, seed);
    CsrView view = graph.view();
    view.n = 100;  // three artificial processes
    std::vector<Index> perm(100);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
    Groups groups;
    groups.k = 4;
    for (std::size_t g = 0; g < 100; g += 4) {
      std::vector<Index> members(perm.begin() + static_cast<std::ptrdiff_t>(g),
                                 perm.begin() + static_cast<std::ptrdiff_t>(g + 4));
      std::sort(members.begin(), members.end());
      groups.members.insert(groups.members.end(), members.begin(), members.end());
    }
    const double before = inside(view, groups);
    Groups twin = groups;
    refine_partition_seq(view, twin, 3);
    for (const Groups& parallel : testing::under_thread_counts([&] {
           Groups copy = groups;
           refine_partition(view, copy, 3);
           return copy;
         })) {
      EXPECT_EQ(parallel.members, twin.members);
    }
    groups = twin;
    EXPECT_GE(inside(view, groups), before);
    EXPECT_EQ(std::set<Index>(groups.members.begin(), groups.members.end()).size(), 100u);
    for (Index g = 0; g < groups.count(); ++g) {
      EXPECT_TRUE(std::is_sorted(groups.group(g).begin(), groups.group(g).end()));
      if (g > 0) {
        EXPECT_LT(groups.group(g - 1)[0], groups.group(g)[0]);
      }
    }
  }
}

}  // namespace
}  // namespace treematch::kernels
