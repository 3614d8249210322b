// Pair remapping: which subtrees it pairs, never costlier, each process kept under its
// grandparent, the same at any thread count, and lower costs from a poor start.
#include "src/strategies/pair_remapping.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

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

double remapped_weighted(const CommGraph& graph, const Topology& tree,
                         const std::vector<Index>& leaves) {
  return evaluate_cost(graph, tree, Mapping{leaves}).weighted;
}

TEST(PairRemapping, PairsTheShallowestSubtreesWithAtLeastTwoSiblings) {
  EXPECT_EQ(pair_depth(tree_of({32, 16, 2, 4})), 1);
  EXPECT_EQ(pair_depth(tree_of({2, 4, 4})), 2);  // the root's two children are the whole tree
  EXPECT_EQ(pair_depth(tree_of({2, 2, 2})), 0);
  EXPECT_EQ(pair_depth(tree_of({2, 8})), 0);  // its 8 leaves: nothing below them to map
  EXPECT_EQ(pair_depth(tree_of({16})), 0);
}

TEST(PairRemapping, NeverCostlierKeepsProcessesUnderTheirParentAndIsTheSameAtAnyThreadCount) {
  // Pairs at depth 2: two of the four children of one of the root's two children.
  const Topology tree = costly_tree({2, 4, 2, 4}, {1000, 100, 10, 1});
  ASSERT_EQ(pair_depth(tree), 2);
  const Index leaves = tree.leaf_count();
  const Index half = leaves / 2;
  Context ctx = preset_context(Preset::kDefault);
  ctx.pair_remap.rounds = 4;
  ctx.pair_remap.runs = 2;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    // A hierarchical pattern (its optimum planted on a random permutation) from another random
    // permutation, and a random graph on fewer processes than leaves.
    std::vector<Index> partial = random_permutation(leaves, seed + 7);
    partial.resize(static_cast<std::size_t>(leaves - 10));
    const std::vector<std::pair<CommGraph, std::vector<Index>>> inputs = {
        {hierarchical_pattern(tree, random_permutation(leaves, seed)),
         random_permutation(leaves, seed + 100)},
        {random_sparse_graph(leaves - 10, 4, seed), partial}};
    for (const auto& [graph, start] : inputs) {
      std::vector<std::vector<Index>> results;
      for (const int threads : {1, 2, 4}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
        std::vector<Index> leaf_of_rank = start;
        const PairRemapStats stats = remap_subtree_pairs(graph, tree, leaf_of_rank, ctx);
        EXPECT_EQ(stats.depth, 2);
        EXPECT_GT(stats.changed, 0);  // from a random start some pair always maps better
        results.push_back(std::move(leaf_of_rank));
      }
      EXPECT_EQ(results[1], results[0]);
      EXPECT_EQ(results[2], results[0]);
      const std::vector<Index>& remapped = results[0];
      EXPECT_LT(remapped_weighted(graph, tree, remapped), remapped_weighted(graph, tree, start));
      EXPECT_EQ(std::set<Index>(remapped.begin(), remapped.end()).size(), remapped.size());
      for (std::size_t v = 0; v < remapped.size(); ++v) {
        ASSERT_GE(remapped[v], 0);
        ASSERT_LT(remapped[v], leaves);
        EXPECT_EQ(remapped[v] / half, start[v] / half) << "process " << v << " left its half";
      }
    }
  }
}

// A mapping at the optimum stays as it is: a new mapping of a pair replaces its mapping only when
// it is cheaper, not when it costs the same.
TEST(PairRemapping, KeepsAMappingAtTheOptimum) {
  const Topology tree = tree_of({4, 4, 2, 4});
  Context ctx = preset_context(Preset::kStrong);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Index> optimum = random_permutation(tree.leaf_count(), seed);
    // rank_of_slot: the planted optimum puts rank optimum[s] on leaf s.
    const CommGraph graph = hierarchical_pattern(tree, optimum);
    std::vector<Index> leaf_of_rank(optimum.size());
    for (std::size_t slot = 0; slot < optimum.size(); ++slot)
      leaf_of_rank[static_cast<std::size_t>(optimum[slot])] = static_cast<Index>(slot);
    const std::vector<Index> start = leaf_of_rank;
    const PairRemapStats stats = remap_subtree_pairs(graph, tree, leaf_of_rank, ctx);
    EXPECT_EQ(stats.rounds, 1);
    EXPECT_GT(stats.pairs, 0);
    EXPECT_EQ(stats.changed, 0);
    EXPECT_EQ(leaf_of_rank, start);
  }
}

// A pair whose mapping found nothing cheaper is mapped again, while its subtrees stay as they
// are, only as often as the retries allow: fewer pairs mapped over the same rounds with fewer
// retries, never costlier than the start, the same mapping at any thread count, and rounds - 1
// retries the same as unlimited (a pair is tried once per round at most).
TEST(PairRemapping, PairsThatFoundNothingAreRetriedOnlyAsOftenAsAllowed) {
  const Topology tree = tree_of({8, 4, 4});
  ASSERT_EQ(pair_depth(tree), 1);
  Context ctx = preset_context(Preset::kStrong);
  ctx.pair_remap.runs = 1;
  ctx.pair_remap.rounds = 6;
  // Remaps whose retries keep finding something: with the pairs of parts in each remap's split,
  // one retry already settled one of the three graphs (as many pairs tried as without a limit).
  ctx.partition.pair_passes = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const CommGraph graph = random_sparse_graph(tree.leaf_count(), 4, seed);
    const std::vector<Index> start = random_permutation(tree.leaf_count(), seed + 50);
    std::vector<long long> pairs;  // per retries allowed: 0, 1, 5 (rounds - 1), 1000
    std::vector<std::vector<Index>> mappings;
    for (const int retries : {0, 1, 5, 1000}) {
      ctx.pair_remap.retries = retries;
      std::vector<std::vector<Index>> results;
      std::vector<long long> tried;
      for (const int threads : {1, 2, 4}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
        std::vector<Index> leaf_of_rank = start;
        const PairRemapStats stats = remap_subtree_pairs(graph, tree, leaf_of_rank, ctx);
        if (retries == 1000) {
          ASSERT_GE(stats.rounds, 3);  // rounds where retries are made
        }
        tried.push_back(stats.pairs);
        results.push_back(std::move(leaf_of_rank));
      }
      EXPECT_EQ(results[1], results[0]);
      EXPECT_EQ(results[2], results[0]);
      EXPECT_EQ(tried[1], tried[0]);
      EXPECT_LT(remapped_weighted(graph, tree, results[0]), remapped_weighted(graph, tree, start));
      pairs.push_back(tried[0]);
      mappings.push_back(std::move(results[0]));
    }
    EXPECT_LT(pairs[0], pairs[1]);
    EXPECT_LT(pairs[1], pairs[3]);
    EXPECT_EQ(pairs[2], pairs[3]);
    EXPECT_EQ(mappings[2], mappings[3]);
  }
  EXPECT_NE(describe(ctx).find("pair_remap.retries = 1000\n"), std::string::npos);
}

TEST(PairRemapping, DoesNothingWhenSwitchedOffOrAboveItsSizeLimit) {
  const Topology tree = tree_of({4, 4, 4});
  const CommGraph graph = random_sparse_graph(64, 4, 1);
  const std::vector<Index> start = random_permutation(64, 2);
  Context ctx = preset_context(Preset::kStrong);
  ASSERT_GT(ctx.pair_remap.rounds, 0);
  ctx.pair_remap.max_processes = 63;
  std::vector<Index> leaf_of_rank = start;
  EXPECT_EQ(remap_subtree_pairs(graph, tree, leaf_of_rank, ctx).depth, 0);
  EXPECT_EQ(leaf_of_rank, start);
  ctx.pair_remap.max_processes = 64;
  ctx.pair_remap.rounds = 0;
  EXPECT_EQ(remap_subtree_pairs(graph, tree, leaf_of_rank, ctx).depth, 0);
  EXPECT_EQ(leaf_of_rank, start);
  ctx.pair_remap.rounds = 1;
  EXPECT_EQ(remap_subtree_pairs(graph, tree, leaf_of_rank, ctx).rounds, 1);
  EXPECT_LT(remapped_weighted(graph, tree, leaf_of_rank), remapped_weighted(graph, tree, start));
}

// The driver remaps the kept mapping's pairs where the preset asks for it, says so in its traces
// and reports the cost of the mapping it returns.
TEST(PairRemapping, TheDriverRemapsTheKeptMappingWhereThePresetSaysSo) {
  const Topology tree = tree_of({4, 4, 4});
  const CommGraph graph = random_sparse_graph(64, 4, 3);
  const auto traced = [](const TreeMatchResult& result) {
    for (const StrategyTrace& trace : result.strategies) {
      if (trace.strategy == "pair remapping") return true;
    }
    return false;
  };
  EXPECT_FALSE(traced(treematch_map(graph, tree, preset_context(Preset::kDefault))));
  Context strong = preset_context(Preset::kStrong);
  const TreeMatchResult result = treematch_map(graph, tree, strong);
  EXPECT_TRUE(traced(result));
  EXPECT_DOUBLE_EQ(result.cost.weighted, evaluate_cost(graph, tree, result.mapping).weighted);
  set_option(strong, "pair_remap.rounds", "0");
  EXPECT_FALSE(traced(treematch_map(graph, tree, strong)));
  EXPECT_NE(describe(strong).find("pair_remap.rounds = 0\n"), std::string::npos);
  EXPECT_THROW(set_option(strong, "pair_remap.runs", "0"), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
