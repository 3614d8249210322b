// Tests of boundary FM: it never loses what it was given, and with side-blind ties it treats a
// bisection and its mirror alike (what lets the partitioner skip starts that grow mirrors).
#include "src/partition/fm_refinement.h"

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

/// A random bisection of n vertices with side 0 weighing `target` (vertex weights `weight`).
Bisection random_bisection(kernels::CsrView g, const std::vector<Load>& weight, Load target,
                           std::uint64_t seed) {
  std::vector<Index> order(static_cast<std::size_t>(g.n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  Bisection b;
  b.side.assign(order.size(), 1);
  for (Index v : order) {
    if (b.load0 + weight[static_cast<std::size_t>(v)] > target) continue;
    b.side[static_cast<std::size_t>(v)] = 0;
    b.load0 += weight[static_cast<std::size_t>(v)];
  }
  b.cut = cut_of(g, b.side);
  return b;
}

Bisection mirror(const Bisection& b, Load total) {
  Bisection m = b;
  for (Index& side : m.side) side = 1 - side;
  m.load0 = total - b.load0;
  return m;
}

struct Case {
  CommGraph graph;
  std::vector<Load> weight;
  Load total = 0;
};

/// Graphs with unit weights (many equal gains) and with weights 1-3 (a coarse level's).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Case c{testing::random_sparse_graph(40 + 8 * static_cast<Index>(seed), 3, seed), {}, 0};
    std::mt19937_64 rng(seed);
    c.weight.assign(static_cast<std::size_t>(c.graph.size()), 1);
    if (seed % 2 == 0) {
      for (Load& w : c.weight) w = 1 + static_cast<Load>(rng() % 3);
    }
    c.total = std::accumulate(c.weight.begin(), c.weight.end(), Load{0});
    if (c.total % 2 != 0) {  // two equal targets
      ++c.weight.front();
      ++c.total;
    }
    out.push_back(std::move(c));
  }
  return out;
}

TEST(FmRefinement, NeverRaisesTheCutAndKeepsItExact) {
  PartitionContext ctx;
  for (const Case& c : cases()) {
    const Load target = c.total / 2;
    Bisection b = random_bisection(c.graph.view(), c.weight, target, 5);
    const double before = b.cut;
    FmRefiner fm(c.graph.view(), c.weight, target, Balance{2, 0}, ctx);
    const Load excess_before = fm.excess(b.load0);
    fm.refine(b, 4);
    EXPECT_LE(fm.excess(b.load0), excess_before);
    if (fm.excess(b.load0) == excess_before) {
      EXPECT_LE(b.cut, before);
    }
    EXPECT_NEAR(b.cut, cut_of(c.graph.view(), b.side), 1e-9 * std::max(1.0, b.cut));
    Load load0 = 0;
    for (std::size_t v = 0; v < b.side.size(); ++v) load0 += b.side[v] == 0 ? c.weight[v] : 0;
    EXPECT_EQ(b.load0, load0);
  }
}

/// How many of the cases' random bisections FM takes elsewhere than the mirror of where it takes
/// their mirror (4 per case); where it does end at the mirror, the cuts must be equal too.
int mirrors_ending_elsewhere(bool side_blind_ties) {
  PartitionContext ctx;
  ctx.side_blind_ties = side_blind_ties;
  int elsewhere = 0;
  for (const Case& c : cases()) {
    const Load target = c.total / 2;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      Bisection b = random_bisection(c.graph.view(), c.weight, target, seed);
      Bisection m = mirror(b, c.total);
      FmRefiner fm(c.graph.view(), c.weight, target, Balance{2, 0}, ctx);
      fm.refine(b, 4);
      fm.refine(m, 4);
      if (mirror(b, c.total).side != m.side) {
        ++elsewhere;
      } else {
        EXPECT_EQ(b.cut, m.cut) << c.graph.size() << " vertices, seed " << seed;
      }
    }
  }
  return elsewhere;
}

TEST(FmRefinement, SideBlindTiesEndAtTheMirrorOfTheMirror) {
  EXPECT_EQ(mirrors_ending_elsewhere(/*side_blind_ties=*/true), 0);
}

TEST(FmRefinement, SideOneWinningTiesIsNotBlindToSides) {
  // What the test above would catch: without side-blind ties some mirrors end elsewhere.
  EXPECT_GT(mirrors_ending_elsewhere(/*side_blind_ties=*/false), 0);
}

}  // namespace
}  // namespace treematch
