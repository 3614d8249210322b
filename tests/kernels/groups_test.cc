// Groups reordered by their first member and inverted into owners, at 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/types.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

/// n vertices shuffled into groups of k, members sorted inside each group.
Groups shuffled_partition(Index n, Index k, unsigned seed) {
  Groups groups;
  groups.k = k;
  groups.members.resize(static_cast<std::size_t>(n));
  std::iota(groups.members.begin(), groups.members.end(), 0);
  std::shuffle(groups.members.begin(), groups.members.end(), std::mt19937(seed));
  for (auto g = groups.members.begin(); g != groups.members.end(); g += k) std::sort(g, g + k);
  return groups;
}

TEST(Groups, OrderedByFirstMemberListsTheSameGroupsByTheirSmallestMember) {
  const Groups groups = shuffled_partition(40000, 4, 3);
  // The expected order by a plain sort of (first member, group).
  std::vector<std::vector<Index>> expected;
  for (Index g = 0; g < groups.count(); ++g)
    expected.emplace_back(groups.group(g).begin(), groups.group(g).end());
  std::sort(expected.begin(), expected.end());
  for (const Groups& ordered :
       testing::under_thread_counts([&] { return ordered_by_first_member(groups); })) {
    ASSERT_EQ(ordered.k, 4);
    ASSERT_EQ(ordered.count(), groups.count());
    for (Index g = 0; g < ordered.count(); ++g) {
      ASSERT_TRUE(std::equal(ordered.group(g).begin(), ordered.group(g).end(),
                             expected[static_cast<std::size_t>(g)].begin()))
          << "group " << g;
    }
  }
}

TEST(Groups, OwnerNamesTheGroupOfEachMemberAndMinusOneElsewhere) {
  const Groups groups = shuffled_partition(30000, 3, 5);
  const Index n = 30005;  // five vertices in no group
  for (const std::vector<Index>& owner :
       testing::under_thread_counts([&] { return group_owner(groups, n); })) {
    ASSERT_EQ(owner.size(), static_cast<std::size_t>(n));
    for (Index g = 0; g < groups.count(); ++g) {
      for (Index v : groups.group(g)) ASSERT_EQ(owner[static_cast<std::size_t>(v)], g);
    }
    for (Index v = 30000; v < n; ++v) EXPECT_EQ(owner[static_cast<std::size_t>(v)], -1);
  }
}

}  // namespace
}  // namespace treematch::kernels
