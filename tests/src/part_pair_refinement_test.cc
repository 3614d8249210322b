// Tests of the pairwise refinement of a k-way split: sizes kept, the cut never higher and lower
// where a pair of parts is badly cut, the parts it does not touch left alone.
#include "src/partition/part_pair_refinement.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include <tbb/global_control.h>

#include "src/partition/multilevel_partition.h"
#include "tests/src/hierarchical_pattern.h"
#include "tests/src/part_sizes.h"

namespace treematch {
namespace {

using kernels::Index;
using testing::part_sizes;

constexpr Index kClique = 8;

/// Four cliques of kClique vertices, clique c's edges of weight clique_weight[c], and `links`
/// between them; every edge both ways.
CommGraph four_cliques(const std::array<Weight, 4>& clique_weight,
                       const std::vector<Triplet>& links) {
  std::vector<Triplet> triplets;
  const auto edge = [&](Index u, Index v, Weight w) {
    triplets.push_back({u, v, w});
    triplets.push_back({v, u, w});
  };
  for (Index c = 0; c < 4; ++c) {
    for (Index i = 0; i < kClique; ++i) {
      for (Index j = i + 1; j < kClique; ++j)
        edge(c * kClique + i, c * kClique + j, clique_weight[static_cast<std::size_t>(c)]);
    }
  }
  for (const Triplet& link : links) edge(link.row, link.col, link.weight);
  return CommGraph::from_triplets(4 * kClique, std::move(triplets));
}

/// Parts 0 and 1 each hold half of cliques 0 and 1; parts 2 and 3 are cliques 2 and 3.
std::vector<Index> two_mixed_cliques() {
  std::vector<Index> part(4 * kClique);
  for (Index v = 0; v < 4 * kClique; ++v) {
    const Index clique = v / kClique;
    part[static_cast<std::size_t>(v)] = clique >= 2 ? clique : (v % kClique < 4 ? 0 : 1);
  }
  return part;
}

//   Four cliques A, B, C, D of 8 vertices (edges of weight 10), joined in a ring by one edge of
//   weight 1; parts 0 and 1 each hold half of A and half of B, parts 2 and 3 are C and D. Refined
//   as a bisection of their own, parts 0 and 1 become A and B: only the ring's edges are cut.
TEST(PartPairRefinement, SeparatesTwoMixedCliques) {
  std::vector<Triplet> ring;
  for (Index c = 0; c < 4; ++c) ring.push_back({c * kClique, ((c + 1) % 4) * kClique + 1, 1.0});
  const CommGraph graph = four_cliques({10.0, 10.0, 10.0, 10.0}, ring);
  std::vector<Index> part = two_mixed_cliques();
  const std::vector<Index> before = part;
  PartitionContext ctx;
  ASSERT_TRUE(refine_part_pairs(graph.view(), 4, part, ctx));
  EXPECT_EQ(edge_cut(graph.view(), part), 4.0);
  EXPECT_EQ(part_sizes(part, 4), part_sizes(before, 4));
  for (Index v = 0; v < 4 * kClique; ++v) {
    const auto i = static_cast<std::size_t>(v);
    if (before[i] >= 2) {
      EXPECT_EQ(part[i], before[i]) << v;
    } else {
      EXPECT_EQ(part[i], part[static_cast<std::size_t>(v / kClique * kClique)]) << v;
    }
  }
}

//   Cliques A and B (8 vertices, edges of weight 1) mixed in parts 0 and 1, half of each in each:
//   the pair (0, 1) weighs 32, and separating A from B would cut nothing between them. Part 2
//   (clique C) and part 3 (clique D, edges of weight 10) each hang on one of them by an edge of
//   50 that no exchange of equal sizes can uncut more cheaply than C's or D's own edges. Each
//   part's heaviest pair is then (0, 2) or (1, 3): with pair_neighbours 1 the mixed pair is
//   skipped, with 2 it is refined.
TEST(PartPairRefinement, OnlyEachPartsHeaviestPairsWithPairNeighbours) {
  // A's first vertex (part 0) and C, A's last vertex (part 1) and D.
  const CommGraph graph = four_cliques({1.0, 1.0, 10.0, 10.0},
                                       {{0, 2 * kClique, 50.0}, {kClique - 1, 3 * kClique, 50.0}});
  const std::vector<Index> start = two_mixed_cliques();
  const double before = edge_cut(graph.view(), start);
  PartitionContext ctx;
  ctx.pair_neighbours = 1;
  std::vector<Index> part = start;
  EXPECT_FALSE(refine_part_pairs(graph.view(), 4, part, ctx));
  EXPECT_EQ(part, start);
  ctx.pair_neighbours = 2;
  EXPECT_TRUE(refine_part_pairs(graph.view(), 4, part, ctx));
  EXPECT_EQ(edge_cut(graph.view(), part), before - 32.0);
  EXPECT_EQ(part_sizes(part, 4), part_sizes(start, 4));
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
    EXPECT_EQ(part_sizes(part, 8), sizes) << "seed " << seed;
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
