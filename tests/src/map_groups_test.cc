// MapGroups: positions follow the group hierarchy, artificial members leave empty subtrees.
#include "src/walk/map_groups.h"

#include <gtest/gtest.h>

namespace treematch {
namespace {

TEST(MapGroups, SeedHierarchyGivesThePaperLeaves) {
  // Level 0 (k=2): {0,1} {2,3} {4,5} {6,7}; level 1 (k=3, 2 artificial: 4 and 5):
  // {0,1,4} {2,3,5}; level 2 (k=2): {0,1}. Tree 2 x 3 x 2 = 12 leaves.
  std::vector<GroupLevel> levels(3);
  levels[0].groups.k = 2;
  levels[0].groups.members = {0, 1, 2, 3, 4, 5, 6, 7};
  levels[0].real = 8;
  levels[1].groups.k = 3;
  levels[1].groups.members = {0, 1, 4, 2, 3, 5};
  levels[1].real = 4;
  levels[2].groups.k = 2;
  levels[2].groups.members = {0, 1};
  levels[2].real = 2;
  EXPECT_EQ(map_groups(levels), (std::vector<Index>{0, 1, 2, 3, 6, 7, 8, 9}));
}

TEST(MapGroups, TopLevelMustBeOneGroup) {
  std::vector<GroupLevel> levels(1);
  levels[0].groups.k = 2;
  levels[0].groups.members = {0, 1, 2, 3};
  levels[0].real = 4;
  EXPECT_THROW(map_groups(levels), std::logic_error);
}

}  // namespace
}  // namespace treematch
