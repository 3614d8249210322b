// Tests of the coarsening: a partition's parts never merge, weights add up, the cap holds, the
// hierarchy is fixed by the seed.
#include "src/partition/coarsening.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernels/utility.h"
#include "src/model/comm_graph.h"
#include "tests/src/random_graph.h"

namespace treematch {
namespace {

using kernels::Index;

//   A 600-vertex graph labelled into 5 parts at random, coarsened with the labels down to 40
//   vertices: every level's vertices each carry one label (no coarse vertex holds two parts),
//   weigh at most the cap, and sum to 600; the levels shrink; the coarsest labels are those
//   project_to_coarsest gives; the same seed gives the same hierarchy.
TEST(Coarsening, KeepsPartsApartAndWeightsExact) {
  constexpr Index kN = 600;
  constexpr Load kCap = 12;
  std::uint64_t state = 3;
  const CommGraph graph = testing::random_graph(kN, 4, state, /*reach=*/8);
  std::vector<Index> part(static_cast<std::size_t>(kN));
  for (Index& p : part) {
    state = kernels::splitmix64(state);
    p = static_cast<Index>(state % 5);
  }
  PartitionContext ctx;
  ctx.coarsest = 40;
  ctx.seed = 17;
  const std::vector<CoarseLevel> levels = coarsen(graph.view(), kCap, ctx, &part);
  ASSERT_GE(levels.size(), 3u);
  std::vector<Index> label = part;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const CoarseLevel& level = levels[l];
    EXPECT_EQ(std::accumulate(level.weight.begin(), level.weight.end(), Load{0}), kN);
    EXPECT_EQ(level.max_weight, *std::max_element(level.weight.begin(), level.weight.end()));
    EXPECT_LE(level.max_weight, kCap);
    if (l + 1 == levels.size()) break;
    EXPECT_LT(levels[l + 1].g.n, level.g.n);
    std::vector<Index> coarse(static_cast<std::size_t>(levels[l + 1].g.n), -1);
    for (Index v = 0; v < level.g.n; ++v) {
      Index& c = coarse[static_cast<std::size_t>(level.coarse_of[static_cast<std::size_t>(v)])];
      if (c == -1) c = label[static_cast<std::size_t>(v)];
      EXPECT_EQ(c, label[static_cast<std::size_t>(v)]) << "level " << l << " vertex " << v;
    }
    label = std::move(coarse);
  }
  EXPECT_EQ(project_to_coarsest(levels, part), label);
  const std::vector<CoarseLevel> again = coarsen(graph.view(), kCap, ctx, &part);
  ASSERT_EQ(again.size(), levels.size());
  for (std::size_t l = 0; l + 1 < levels.size(); ++l)
    EXPECT_EQ(again[l].coarse_of, levels[l].coarse_of) << "level " << l;
}

}  // namespace
}  // namespace treematch
