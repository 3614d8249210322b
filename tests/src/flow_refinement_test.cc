// Tests of max-flow refinement: the cut it finds is the lowest through its corridor (checked
// against every assignment of the corridor's vertices), it moves nothing outside the corridor and
// stays within its reach of the target.
#include "src/partition/flow_refinement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using kernels::Index;

std::size_t at(Index v) {
  return static_cast<std::size_t>(v);
}

Load side0_load(const std::vector<Index>& side, const std::vector<Load>& weight) {
  Load load = 0;
  for (std::size_t v = 0; v < side.size(); ++v) load += side[v] == 0 ? weight[v] : 0;
  return load;
}

//   A path 0 - 1 - ... - 9 with edges of weight 10 but 5 - 6 (weight 1), cut between 3 and 4:
//   with a reach of 2 the corridor is 2, 3 | 4, 5, and the lowest cut through it is the light
//   edge, side 0 two vertices above its target of 4.
TEST(FlowRefinement, FindsTheLightEdgeThatFmWouldClimbTo) {
  std::vector<Triplet> triplets;
  for (Index v = 0; v + 1 < 10; ++v) {
    const Weight w = v == 5 ? 1.0 : 10.0;
    triplets.push_back({v, v + 1, w});
    triplets.push_back({v + 1, v, w});
  }
  const CommGraph graph = CommGraph::from_triplets(10, std::move(triplets));
  const std::vector<Load> weight(10, 1);
  Bisection b;
  b.side = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  b.load0 = 4;
  b.cut = cut_of(graph.view(), b.side);
  ASSERT_TRUE(refine_by_flow(graph.view(), weight, /*target0=*/4, /*reach=*/2, b));
  EXPECT_EQ(b.side, (std::vector<Index>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(b.load0, 6);
  EXPECT_EQ(b.cut, 1.0);
  // Nothing lower through the corridor: a second round finds the same cut.
  EXPECT_FALSE(refine_by_flow(graph.view(), weight, 4, 2, b));
}

/// The lowest cut over every assignment of the corridor's vertices (the rest as in `side`).
double lowest_cut_through(kernels::CsrView g, std::vector<Index> side,
                          const std::vector<Index>& corridor) {
  double lowest = cut_of(g, side);
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << corridor.size()); ++mask) {
    for (std::size_t i = 0; i < corridor.size(); ++i)
      side[at(corridor[i])] = static_cast<Index>((mask >> i) & 1);
    lowest = std::min(lowest, cut_of(g, side));
  }
  return lowest;
}

//   Random graphs (weights 1-100) and random bisections, vertex weights 1 or 1-3: the cut found
//   is the lowest over all 2^m assignments of the m corridor vertices; vertices outside the
//   corridor keep their side; side 0 stays within the reach of its target; the cut is exact.
TEST(FlowRefinement, CutIsTheLowestThroughTheCorridor) {
  int improved = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Index n = 24 + static_cast<Index>(seed % 5) * 4;
    const CommGraph graph = testing::random_sparse_graph(n, 2, seed);
    const kernels::CsrView g = graph.view();
    std::mt19937_64 rng(seed);
    std::vector<Load> weight(at(n), 1);
    if (seed % 2 == 0) {
      for (Load& w : weight) w = 1 + static_cast<Load>(rng() % 3);
    }
    const Load total = std::accumulate(weight.begin(), weight.end(), Load{0});
    const Load target0 = total / 2;
    Bisection b;
    b.side.assign(at(n), 1);
    std::vector<Index> order(at(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (Index v : order) {
      if (b.load0 + weight[at(v)] > target0) continue;
      b.side[at(v)] = 0;
      b.load0 += weight[at(v)];
    }
    b.cut = cut_of(g, b.side);
    const Load reach = 3 + static_cast<Load>(seed % 3);
    std::vector<Index> corridor =
        flow_corridor(g, weight, b.side, 0, total - target0 + reach - (total - b.load0));
    const std::vector<Index> side1 = flow_corridor(g, weight, b.side, 1, target0 + reach - b.load0);
    corridor.insert(corridor.end(), side1.begin(), side1.end());
    ASSERT_LE(corridor.size(), 20U) << "seed " << seed;
    const double lowest = lowest_cut_through(g, b.side, corridor);
    const Bisection before = b;
    if (!refine_by_flow(g, weight, target0, reach, b)) {
      EXPECT_EQ(b.side, before.side) << "seed " << seed;
      EXPECT_NEAR(before.cut, lowest, 1e-9 * lowest) << "seed " << seed;
      continue;
    }
    ++improved;
    EXPECT_NEAR(b.cut, lowest, 1e-9 * lowest) << "seed " << seed;
    EXPECT_NEAR(b.cut, cut_of(g, b.side), 1e-9 * b.cut) << "seed " << seed;
    EXPECT_EQ(b.load0, side0_load(b.side, weight)) << "seed " << seed;
    EXPECT_LE(std::abs(b.load0 - target0), reach) << "seed " << seed;
    for (Index v = 0; v < n; ++v) {
      if (std::find(corridor.begin(), corridor.end(), v) == corridor.end()) {
        EXPECT_EQ(b.side[at(v)], before.side[at(v)]) << "seed " << seed << " vertex " << v;
      }
    }
  }
  // Random bisections are far from their best: most of them must improve, or nothing was tested.
  EXPECT_GT(improved, 20);
}

}  // namespace
}  // namespace treematch
