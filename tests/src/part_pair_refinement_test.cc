// Tests of the pairwise refinement of a k-way split: sizes kept, the cut never higher and lower
// where a pair of parts is badly cut, the parts it does not touch left alone.
#include "src/partition/part_pair_refinement.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <tbb/global_control.h>

#include "src/partition/multilevel_partition.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using kernels::Index;

std::vector<Index> sizes_of(const std::vector<Index>& part, Index parts) {
  std::vector<Index> count(static_cast<std::size_t>(parts), 0);
  for (Index p : part) ++count[static_cast<std::size_t>(p)];
  return count;
}

//   Four cliques A, B, C, D of 8 vertices (edges of weight 10), joined in a ring by one edge of
//   weight 1; parts 0 and 1 each hold half of A and half of B, parts 2 and 3 are C and D. Refined
//   as a bisection of their own, parts 0 and 1 become A and B: only the ring's edges are cut.
TEST(PartPairRefinement, SeparatesTwoMixedCliques) {
  constexpr Index kClique = 8;
  std::vector<Triplet> triplets;
  const auto edge = [&](Index u, Index v, Weight w) {
    triplets.push_back({u, v, w});
    triplets.push_back({v, u, w});
  };
  for (Index c = 0; c < 4; ++c) {
    for (Index i = 0; i < kClique; ++i) {
      for (Index j = i + 1; j < kClique; ++j) edge(c * kClique + i, c * kClique + j, 10.0);
    }
    edge(c * kClique, ((c + 1) % 4) * kClique + 1, 1.0);
  }
  const CommGraph graph = CommGraph::from_triplets(4 * kClique, std::move(triplets));
  std::vector<Index> part(4 * kClique);
  for (Index v = 0; v < 4 * kClique; ++v) {
    const Index clique = v / kClique;
    part[static_cast<std::size_t>(v)] = clique >= 2 ? clique : (v % kClique < 4 ? 0 : 1);
  }
  const std::vector<Index> before = part;
  PartitionContext ctx;
  ASSERT_TRUE(refine_part_pairs(graph.view(), 4, part, ctx));
  EXPECT_EQ(edge_cut(graph.view(), part), 4.0);
  EXPECT_EQ(sizes_of(part, 4), sizes_of(before, 4));
  for (Index v = 0; v < 4 * kClique; ++v) {
    const auto i = static_cast<std::size_t>(v);
    if (before[i] >= 2) {
      EXPECT_EQ(part[i], before[i]) << v;
    } else {
      EXPECT_EQ(part[i], part[static_cast<std::size_t>(v / kClique * kClique)]) << v;
    }
  }
}

//   Random graphs split into 8 parts by the multilevel partitioner: the sizes stay, the cut never
//   rises, and on some of them it drops (else the test would show nothing).
TEST(PartPairRefinement, KeepsSizesAndNeverRaisesTheCut) {
  int lowered = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const CommGraph graph = testing::random_sparse_graph(400, /*degree=*/3, seed);
    const std::vector<Index> sizes = {60, 50, 50, 50, 50, 50, 50, 40};
    std::vector<Index> part = multilevel_partition(graph.view(), sizes);
    const double before = edge_cut(graph.view(), part);
    PartitionContext ctx;
    ctx.flow_rounds = seed % 2 == 0 ? 2 : 0;
    const bool changed = refine_part_pairs(graph.view(), 8, part, ctx);
    EXPECT_EQ(sizes_of(part, 8), sizes) << "seed " << seed;
    const double after = edge_cut(graph.view(), part);
    EXPECT_LE(after, before) << "seed " << seed;
    EXPECT_EQ(changed, after < before) << "seed " << seed;
    lowered += after < before ? 1 : 0;
  }
  EXPECT_GT(lowered, 0);
}

//   16 parts of a 4000-vertex graph: a round holds up to 8 pairs, run as parallel tasks; the parts
//   are the same at 1, 2 and 4 threads, and differ from the start (the test exercises changes).
TEST(PartPairRefinement, SameResultForAnyThreadCount) {
  const CommGraph graph = testing::random_sparse_graph(4000, /*degree=*/3, 11);
  const std::vector<Index> start = multilevel_partition(graph.view(), std::vector<Index>(16, 250));
  std::vector<Index> reference;
  for (int threads : {1, 2, 4}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    std::vector<Index> part = start;
    refine_part_pairs(graph.view(), 16, part, PartitionContext{});
    if (reference.empty()) {
      reference = part;
    } else {
      EXPECT_EQ(part, reference) << threads << " threads";
    }
  }
  EXPECT_NE(reference, start);
}

}  // namespace
}  // namespace treematch
