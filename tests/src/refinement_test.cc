// Swap refinement: never raises the cost, repairs a bad placement, and is deterministic.
#include "src/refinement.h"

#include <gtest/gtest.h>

#include <set>

#include "src/cost.h"
#include "src/treematch.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::hierarchical_pattern;
using testing::random_permutation;
using testing::random_sparse_graph;
using testing::tree_of;

TEST(RefineBySwaps, NeverRaisesTheCostAndKeepsAPermutation) {
  const Topology tree = tree_of({4, 4, 2, 4});
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const CommGraph graph =
        random_sparse_graph(100, 4, seed);  // 100 ranks on 128 leaves: some empty
    std::vector<Index> leaves = random_permutation(128, seed);
    leaves.resize(100);
    const double before = evaluate_cost(graph, tree, Mapping{leaves}).weighted;
    RefinementContext ctx;
    ctx.swaps = true;
    const RefinementStats stats = refine_by_swaps(graph, tree, leaves, ctx);
    const double after = evaluate_cost(graph, tree, Mapping{leaves}).weighted;
    EXPECT_LE(after, before);
    EXPECT_GT(stats.swaps, 0);
    EXPECT_DOUBLE_EQ(stats.cost_after * graph.cost_scale(), after);
    EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), leaves.size());
  }
}

TEST(RefineBySwaps, RepairsTwoExchangedRanksOfAnOptimalPlacement) {
  // Hierarchical pattern on 2x2x2: the natural placement is optimal; exchange ranks 0 and 7.
  const Topology tree = tree_of({2, 2, 2});
  std::vector<Index> slots(8);
  std::iota(slots.begin(), slots.end(), 0);
  const CommGraph graph = hierarchical_pattern(tree, slots);
  std::vector<Index> leaves = slots;
  std::swap(leaves[0], leaves[7]);
  RefinementContext ctx;
  ctx.swaps = true;
  refine_by_swaps(graph, tree, leaves, ctx);
  EXPECT_EQ(evaluate_cost(graph, tree, Mapping{leaves}).hop_bytes,
            evaluate_cost(graph, tree, Mapping{slots}).hop_bytes);
}

TEST(TreeMatchRefinement, RefinedMappingIsNoWorseAndNeverWorseThanTheIdentity) {
  const Topology tree = tree_of({4, 2, 4, 4});
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const CommGraph graph = random_sparse_graph(128, 3, seed);
    Context plain = default_context();
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
    EXPECT_EQ(treematch_map(graph, tree, refined).mapping.leaf_of_rank,
              b.leaf_of_rank);  // deterministic
  }
}

}  // namespace
}  // namespace treematch
