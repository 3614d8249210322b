// Tests of level_traffic: where traffic meets in the tree, under the identity and another mapping.
#include "src/report/mapping_report.h"

#include <vector>

#include <gtest/gtest.h>

namespace treematch {
namespace {

// Two packages of two cores, link costs 10 (package) and 1 (core):
//
//            root
//        10 /    \ 10
//         P0      P1
//      1 / \ 1  1 / \ 1
//       0   1    2   3     <- leaves
//
// Ranks 0-1 talk 5, ranks 0-2 talk 7 (both ways).
TEST(LevelTraffic, SplitsTheVolumeByCommonAncestor) {
  const Topology tree({TreeLevel{2, 10.0, "Package"}, TreeLevel{2, 1.0, "Core"}},
                      /*leaf_os_index=*/{});
  const CommGraph graph = CommGraph::from_triplets(
      4, {Triplet{0, 1, 5}, Triplet{1, 0, 5}, Triplet{0, 2, 7}, Triplet{2, 0, 7}});
  const Mapping identity{{0, 1, 2, 3}};
  const Mapping swapped{{0, 2, 1, 3}};  // ranks 0 and 2 now share package 0

  const std::vector<LevelTraffic> rows = level_traffic(graph, tree, identity, swapped);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].meets_in, "Core");
  EXPECT_EQ(rows[0].nodes, 4);
  EXPECT_EQ(rows[0].hops, 0);
  EXPECT_EQ(rows[0].reference + rows[0].mapped, 0);

  EXPECT_EQ(rows[1].meets_in, "Package");
  EXPECT_EQ(rows[1].nodes, 2);
  EXPECT_EQ(rows[1].hops, 2);
  EXPECT_EQ(rows[1].weighted_distance, 2.0);
  EXPECT_EQ(rows[1].reference, 10);  // 0-1 inside P0
  EXPECT_EQ(rows[1].mapped, 14);     // 0-2 inside P0

  EXPECT_EQ(rows[2].meets_in, "root");
  EXPECT_EQ(rows[2].nodes, 1);
  EXPECT_EQ(rows[2].hops, 4);
  EXPECT_EQ(rows[2].weighted_distance, 22.0);
  EXPECT_EQ(rows[2].reference, 14);
  EXPECT_EQ(rows[2].mapped, 10);
}

TEST(LevelTraffic, UnnamedLevelsAreCalledByDepth) {
  const Topology tree({TreeLevel{2, 1.0, ""}, TreeLevel{3, 1.0, ""}}, /*leaf_os_index=*/{});
  const CommGraph graph = CommGraph::from_triplets(6, {Triplet{0, 5, 1}});
  const Mapping identity{{0, 1, 2, 3, 4, 5}};
  const std::vector<LevelTraffic> rows = level_traffic(graph, tree, identity, identity);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].meets_in, "depth 2");
  EXPECT_EQ(rows[1].meets_in, "depth 1");
  EXPECT_EQ(rows[1].nodes, 2);
  EXPECT_EQ(rows[2].meets_in, "root");
  EXPECT_EQ(rows[2].reference, 1);
}

}  // namespace
}  // namespace treematch
