// Mapping refinement: never raises the cost, keeps a permutation, is deterministic, and moves whole
// subtrees where single exchanges are stuck.
#include "src/refine/refinement.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include <tbb/global_control.h>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::costly_tree;
using testing::hierarchical_pattern;
using testing::random_permutation;
using testing::random_sparse_graph;
using testing::tree_of;

double refined_weighted(const CommGraph& graph, const Topology& tree,
                        const std::vector<Index>& leaves) {
  return evaluate_cost(graph, tree, Mapping{leaves}).weighted;
}

RefinementContext refining() {
  RefinementContext ctx;
  ctx.swaps = true;
  return ctx;
}

TEST(RefineMapping, NeverRaisesTheCostKeepsAPermutationAndIsTheSameAtAnyThreadCount) {
  const std::vector<Topology> trees = {tree_of({4, 4, 2, 4}),
                                       costly_tree({4, 4, 2, 4}, {1000, 100, 10, 1}),
                                       costly_tree({3, 2, 5, 3}, {50, 20, 5, 1})};
  for (const Topology& tree : trees) {
    const Index leaves = tree.leaf_count();
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      // A random graph on fewer processes than leaves, and a hierarchical pattern (its optimum
      // planted on a random permutation) started from another random permutation.
      const Index p = leaves - 10;
      const std::vector<std::pair<CommGraph, std::vector<Index>>> inputs = {
          {random_sparse_graph(p, 4, seed),
           [&] {
             std::vector<Index> start = random_permutation(leaves, seed + 7);
             start.resize(static_cast<std::size_t>(p));
             return start;
           }()},
          {hierarchical_pattern(tree, random_permutation(leaves, seed)),
           random_permutation(leaves, seed + 100)}};
      for (const auto& [graph, start] : inputs) {
        const double before = refined_weighted(graph, tree, start);
        std::vector<std::vector<Index>> results;
        for (const int threads : {1, 2, 4}) {
          tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
          std::vector<Index> leaves_of_rank = start;
          const RefinementStats stats = refine_mapping(graph, tree, leaves_of_rank, refining());
          EXPECT_DOUBLE_EQ(stats.cost_before, before);
          EXPECT_DOUBLE_EQ(stats.cost_after, refined_weighted(graph, tree, leaves_of_rank));
          results.push_back(std::move(leaves_of_rank));
        }
        EXPECT_EQ(results[1], results[0]);
        EXPECT_EQ(results[2], results[0]);
        const std::vector<Index>& refined = results[0];
        EXPECT_LT(refined_weighted(graph, tree, refined), before);
        EXPECT_EQ(std::set<Index>(refined.begin(), refined.end()).size(), refined.size());
        for (const Index leaf : refined) {
          EXPECT_GE(leaf, 0);
          EXPECT_LT(leaf, leaves);
        }
      }
    }
  }
}

TEST(RefineMapping, ExchangesTwoCrossedSubtreesThatSingleSwapsCannotRepair) {
  // Four pairs A = {0,1}, B = {2,3}, C = {4,5}, D = {6,7}: 100 inside a pair; every process of A
  // sends 10 to every process of B, and C to D likewise. The pairs sit on the right nodes but B and
  // C are crossed:
  //                 root
  //           /              \            .
  //         n0                n1          optimal: A B | C D
  //       /    \            /    \        .
  //     A        C        B        D      (leaves 0-1, 2-3, 4-5, 6-7)
  //   (0 1)    (4 5)    (2 3)    (6 7)
  // Moving one process of B next to A breaks a 100-pair to gain 10s: every single exchange costs
  // more. Exchanging the contents of the subtrees holding B and C repairs it.
  const Topology tree = tree_of({2, 2, 2});
  std::vector<Triplet> triplets;
  for (Index pair = 0; pair < 4; ++pair) triplets.push_back({2 * pair, 2 * pair + 1, 100.0});
  for (const auto& [x, y] : {std::pair<Index, Index>{0, 2}, {4, 6}}) {
    for (Index i = x; i < x + 2; ++i) {
      for (Index j = y; j < y + 2; ++j) triplets.push_back({i, j, 10.0});
    }
  }
  const CommGraph graph = CommGraph::from_triplets(8, triplets);
  const std::vector<Index> crossed{0, 1, 4, 5, 2, 3, 6, 7};
  std::vector<Index> optimal(8);
  std::iota(optimal.begin(), optimal.end(), 0);
  ASSERT_GT(refined_weighted(graph, tree, crossed), refined_weighted(graph, tree, optimal));

  RefinementContext singles = refining();
  singles.subtrees = false;
  std::vector<Index> stuck = crossed;
  EXPECT_EQ(refine_mapping(graph, tree, stuck, singles).swaps, 0);
  EXPECT_EQ(stuck, crossed);

  std::vector<Index> repaired = crossed;
  const RefinementStats stats = refine_mapping(graph, tree, repaired, refining());
  EXPECT_EQ(stats.subtree_swaps, 1);
  EXPECT_DOUBLE_EQ(refined_weighted(graph, tree, repaired), refined_weighted(graph, tree, optimal));
}

TEST(RefineMapping, CutTreeDistancesAreThoseOfTheFullTree) {
  const Topology tree = costly_tree({4, 3, 2, 5}, {1000, 100, 10, 1});
  const kernels::LeafTree cut = leaf_tree(tree, 2);  // nodes under the 3-way level
  EXPECT_EQ(cut.arities, (std::vector<Index>{4, 3}));
  ASSERT_EQ(cut.distance.size(), 3u);
  EXPECT_EQ(cut.distance[0], 0.0);
  // Two nodes under one parent: processes meet 3 levels up (2 x (1 + 10 + 100)).
  EXPECT_EQ(cut.distance[1], 222.0);
  EXPECT_EQ(cut.distance[2], 2222.0);
  const kernels::LeafTree full = leaf_tree(tree, tree.depth());
  EXPECT_EQ(full.distance, (std::vector<double>{0, 2, 22, 222, 2222}));
}

TEST(TreeMatchRefinement, RefinedMappingIsNoWorseAndNeverWorseThanTheIdentity) {
  const Topology tree = tree_of({4, 2, 4, 4});
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const CommGraph graph = random_sparse_graph(128, 3, seed);
    Context plain = default_context();
    plain.refinement.swaps = false;
    Context refined = default_context();
    refined.refinement.swaps = true;
    const Mapping a = treematch_map(graph, tree, plain).mapping;
    const Mapping b = treematch_map(graph, tree, refined).mapping;
    Mapping identity;
    identity.leaf_of_rank.resize(128);
    std::iota(identity.leaf_of_rank.begin(), identity.leaf_of_rank.end(), 0);
    const double identity_cost = evaluate_cost(graph, tree, identity).weighted;
    EXPECT_LE(evaluate_cost(graph, tree, b).weighted, evaluate_cost(graph, tree, a).weighted);
    EXPECT_LE(evaluate_cost(graph, tree, a).weighted, identity_cost);
    EXPECT_LE(evaluate_cost(graph, tree, b).weighted, identity_cost);
    EXPECT_EQ(std::set<Index>(b.leaf_of_rank.begin(), b.leaf_of_rank.end()).size(), 128u);
    EXPECT_EQ(treematch_map(graph, tree, refined).mapping.leaf_of_rank,
              b.leaf_of_rank);  // deterministic
  }
}

}  // namespace
}  // namespace treematch
