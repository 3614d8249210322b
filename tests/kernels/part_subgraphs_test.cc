// part_subgraphs against the subgraphs built edge by edge, on graphs small enough for one loop and
// large enough for a task per part, at 1, 2 and 4 threads.
#include "kernels/part_subgraphs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

/// Part p's subgraph from the edge list: vertex v of part p is its rank among p's vertices.
Csr induced(CsrView g, const std::vector<Index>& part_of, Index p) {
  std::vector<Index> local(static_cast<std::size_t>(g.n), -1);
  Csr out;
  for (Index v = 0; v < g.n; ++v) {
    if (part_of[static_cast<std::size_t>(v)] == p) local[static_cast<std::size_t>(v)] = out.n++;
  }
  for (Index v = 0; v < g.n; ++v) {
    if (part_of[static_cast<std::size_t>(v)] != p) continue;
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[static_cast<std::size_t>(e)];
      if (part_of[static_cast<std::size_t>(u)] != p) continue;
      out.targets.push_back(local[static_cast<std::size_t>(u)]);
      out.weights.push_back(g.weights[static_cast<std::size_t>(e)]);
    }
    out.offsets.push_back(static_cast<Offset>(out.targets.size()));
  }
  return out;
}

TEST(PartSubgraphs, AreTheInducedSubgraphsForAnyThreadCount) {
  for (const Index n : {Index{300}, Index{6000}}) {
    const Csr graph = testing::random_graph(n, 6, 50, 7);
    std::mt19937_64 rng(3);
    constexpr Index kParts = 7;
    std::vector<Index> part_of(static_cast<std::size_t>(n));
    for (Index& p : part_of) p = static_cast<Index>(rng() % (kParts + 1)) - 1;  // -1: in none
    for (const std::vector<Csr>& subs : testing::under_thread_counts(
             [&] { return part_subgraphs(graph.view(), part_of, kParts); })) {
      ASSERT_EQ(subs.size(), static_cast<std::size_t>(kParts));
      for (Index p = 0; p < kParts; ++p) {
        const Csr expected = induced(graph.view(), part_of, p);
        const Csr& sub = subs[static_cast<std::size_t>(p)];
        EXPECT_EQ(sub.n, expected.n) << n << " vertices, part " << p;
        EXPECT_EQ(sub.offsets, expected.offsets) << n << " vertices, part " << p;
        EXPECT_EQ(sub.targets, expected.targets) << n << " vertices, part " << p;
        EXPECT_EQ(sub.weights, expected.weights) << n << " vertices, part " << p;
      }
    }
  }
}

}  // namespace
}  // namespace treematch::kernels
