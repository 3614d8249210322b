// Tests of the k-way FM and its local search on a tree node's split: sizes kept, the cut never
// higher, a scrambled planted split repaired, the result fixed by the seed.
#include "src/partition/kway_refinement.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/utility.h"
#include "src/model/comm_graph.h"
#include "src/partition/multilevel_partition.h"
#include "src/partition/part_pair_refinement.h"
#include "tests/src/part_sizes.h"
#include "tests/src/random_graph.h"

namespace treematch {
namespace {

using kernels::Index;
using testing::part_sizes;
using testing::random_graph;

/// `groups` groups of `size` vertices, each a ring with chords (edges of weight 10 to the next two
/// members), the groups joined in a ring by one edge of weight 1: the planted split has cut
/// `groups`.
CommGraph planted_groups(Index groups, Index size) {
  std::vector<Triplet> triplets;
  const auto edge = [&](Index u, Index v, Weight w) {
    triplets.push_back({u, v, w});
    triplets.push_back({v, u, w});
  };
  for (Index g = 0; g < groups; ++g) {
    for (Index i = 0; i < size; ++i) {
      edge(g * size + i, g * size + (i + 1) % size, 10.0);
      edge(g * size + i, g * size + (i + 2) % size, 10.0);
    }
    edge(g * size, ((g + 1) % groups) * size + 1, 1.0);
  }
  return CommGraph::from_triplets(groups * size, std::move(triplets));
}

/// The planted split with `exchanges` pseudo-random exchanges of two vertices between parts.
std::vector<Index> scrambled(Index groups, Index size, int exchanges, std::uint64_t seed) {
  std::vector<Index> part(static_cast<std::size_t>(groups * size));
  for (Index v = 0; v < groups * size; ++v) part[static_cast<std::size_t>(v)] = v / size;
  std::uint64_t state = seed;
  for (int i = 0; i < exchanges; ++i) {
    state = kernels::splitmix64(state);
    const auto a = static_cast<std::size_t>(state % part.size());
    state = kernels::splitmix64(state);
    const auto b = static_cast<std::size_t>(state % part.size());
    std::swap(part[a], part[b]);
  }
  return part;
}

//   Three parts, each two core vertices (joined by weight 10) and one vertex v_i tied to its own
//   core by weight 3 and to the next part's core by 5. Exchanging any two vertices of two parts
//   costs more than it gains (v_i +2, v_j -3), so the refinement of two parts at a time leaves the
//   split; one pass of k-way FM moves v_0 -> part 1, v_1 -> part 2, v_2 -> part 0: 6 less cut.
TEST(KwayRefinement, MakesAnExchangeAroundThreeParts) {
  std::vector<Triplet> triplets;
  const auto edge = [&](Index u, Index v, Weight w) {
    triplets.push_back({u, v, w});
    triplets.push_back({v, u, w});
  };
  for (Index p = 0; p < 3; ++p) {  // part p: cores 3p, 3p + 1, then v_p = 3p + 2
    edge(3 * p, 3 * p + 1, 10.0);
    edge(3 * p + 2, 3 * p, 3.0);
    edge(3 * p + 2, 3 * ((p + 1) % 3), 5.0);
  }
  const CommGraph graph = CommGraph::from_triplets(9, std::move(triplets));
  const std::vector<Index> start = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  ASSERT_EQ(edge_cut(graph.view(), start), 15.0);
  std::vector<Index> pairwise = start;
  refine_part_pairs(graph.view(), 3, pairwise, PartitionContext{});
  EXPECT_EQ(edge_cut(graph.view(), pairwise), 15.0);
  std::vector<Index> part = start;
  ASSERT_TRUE(refine_kway(graph.view(), 3, part, {1, 0.0}, 1, PartitionContext{}));
  EXPECT_EQ(part, (std::vector<Index>{0, 0, 1, 1, 1, 2, 2, 2, 0}));
  EXPECT_EQ(edge_cut(graph.view(), part), 9.0);
}

//   Six groups of 12 vertices (a ring with chords, weight 10 inside), joined in a ring of weight 1,
//   their split scrambled by 20 random exchanges: the k-way FM puts every group back in one part,
//   only the 6 ring edges cut, each part at its size.
TEST(KwayRefinement, RepairsAScrambledPlantedSplit) {
  const CommGraph graph = planted_groups(6, 12);
  std::vector<Index> part = scrambled(6, 12, 20, 7);
  const std::vector<Index> before = part;
  ASSERT_GT(edge_cut(graph.view(), part), 6.0);
  ASSERT_TRUE(refine_kway(graph.view(), 6, part, {4, 0.0}, 1, PartitionContext{}));
  EXPECT_EQ(edge_cut(graph.view(), part), 6.0);
  EXPECT_EQ(part_sizes(part, 6), part_sizes(before, 6));
}

//   On random graphs split at random into 3 to 9 parts of uneven sizes: the cut after the passes
//   is never above the start's, the cut after the local search never above the passes' alone
//   and below it on most graphs (18 of the 20 when written), every part keeps its size, and the
//   same seed gives the same split.
TEST(KwayRefinement, NeverRaisesTheCutAndKeepsSizes) {
  int searched_lower = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Index n = 60 + static_cast<Index>(seed * 7 % 50);
    const Index parts = 3 + static_cast<Index>(seed % 7);
    std::uint64_t state = seed;
    const CommGraph graph = random_graph(n, 3, state);
    std::vector<Index> start(static_cast<std::size_t>(n));
    for (Index v = 0; v < n; ++v) {
      state = kernels::splitmix64(state);
      // uneven sizes: part q takes vertices with probability growing with q
      start[static_cast<std::size_t>(v)] = static_cast<Index>(
          (state % 1000) * (state % 1000) * static_cast<std::uint64_t>(parts) / 1000000);
    }
    std::vector<Index> passes_only = start;
    refine_kway(graph.view(), parts, passes_only, {4, 0.0}, seed, PartitionContext{});
    std::vector<Index> searched = start;
    refine_kway(graph.view(), parts, searched, {4, 50.0}, seed, PartitionContext{});
    std::vector<Index> again = start;
    refine_kway(graph.view(), parts, again, {4, 50.0}, seed, PartitionContext{});
    const Weight start_cut = edge_cut(graph.view(), start);
    const Weight passes_cut = edge_cut(graph.view(), passes_only);
    EXPECT_LE(passes_cut, start_cut) << "seed " << seed;
    EXPECT_LE(edge_cut(graph.view(), searched), passes_cut) << "seed " << seed;
    if (edge_cut(graph.view(), searched) < passes_cut) ++searched_lower;
    const auto k = static_cast<std::size_t>(parts);
    EXPECT_EQ(part_sizes(passes_only, k), part_sizes(start, k)) << "seed " << seed;
    EXPECT_EQ(part_sizes(searched, k), part_sizes(start, k)) << "seed " << seed;
    EXPECT_EQ(searched, again) << "seed " << seed;
  }
  EXPECT_GE(searched_lower, 15);
}

}  // namespace
}  // namespace treematch
