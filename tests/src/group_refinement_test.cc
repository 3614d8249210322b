// Partition swap refinement: repairs a bad grouping, never lowers the weight kept inside groups.
#include "src/group_refinement.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "kernels/group_values.h"
#include "tests/seed_example.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

double inside(kernels::CsrView graph, const kernels::Groups& groups) {
  const std::vector<kernels::Weight> rowsum = kernels::row_sums_seq(graph);
  const std::vector<kernels::Weight> values = kernels::group_values_seq(graph, rowsum, groups);
  return std::accumulate(rowsum.begin(), rowsum.end(), 0.0) -
         std::accumulate(values.begin(), values.end(), 0.0);
}

TEST(RefinePartition, RepairsAScrambledPairingOfTheSeedMatrix) {
  // Pairs {0,2} {1,3} {4,6} {5,7} cut every 1000-edge; the seed's pairs (0,1) (2,3) ... keep them.
  const kernels::Csr seed = testing::seed_csr();
  kernels::Groups groups;
  groups.k = 2;
  groups.members = {0, 2, 1, 3, 4, 6, 5, 7};
  EXPECT_GT(refine_partition(seed.view(), groups, 4), 0);
  EXPECT_EQ(groups.members, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RefinePartition, LeavesAnOptimalPartitionAlone) {
  const kernels::Csr seed = testing::seed_csr();
  kernels::Groups groups;
  groups.k = 2;
  groups.members = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(refine_partition(seed.view(), groups, 4), 0);
  EXPECT_EQ(groups.members, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RefinePartition, NeverLosesInternalWeightAndKeepsAPartitionWithArtificialProcesses) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const CommGraph graph = testing::random_sparse_graph(97, 4, seed);
    kernels::CsrView view = graph.view();
    view.n = 100;  // three artificial processes
    const std::vector<Index> perm = testing::random_permutation(100, seed);
    kernels::Groups groups;
    groups.k = 4;
    for (std::size_t g = 0; g < 100; g += 4) {
      std::vector<Index> members(perm.begin() + static_cast<std::ptrdiff_t>(g),
                                 perm.begin() + static_cast<std::ptrdiff_t>(g + 4));
      std::sort(members.begin(), members.end());
      groups.members.insert(groups.members.end(), members.begin(), members.end());
    }
    const double before = inside(view, groups);
    refine_partition(view, groups, 3);
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
}  // namespace treematch
