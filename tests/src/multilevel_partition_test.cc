// Tests of the multilevel partitioner (exact sizes, known optimal cuts, determinism) and of the
// multilevel top-down mapping candidate built on it.
#include "src/partition/multilevel_partition.h"

#include "src/walk/bottom_up.h"
#include "src/walk/mapping_input.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "src/patterns/stencil_pattern.h"
#include "src/strategies/greedy_top_down.h"
#include "src/strategies/multilevel_top_down.h"
#include "src/top_down/top_down_mapping.h"
#include "tests/src/hierarchical_pattern.h"
#include "tests/src/part_sizes.h"

namespace treematch {
namespace {

using testing::hierarchical_pattern;
using testing::part_sizes;
using testing::random_permutation;
using testing::random_sparse_graph;
using testing::tree_of;

/// Undirected unit-weight edges, relabelled by `label` (vertex v becomes label[v]).
CommGraph graph_of(Index n, const std::vector<std::pair<Index, Index>>& edges,
                   const std::vector<Index>& label) {
  std::vector<Triplet> triplets;
  for (const auto& [a, b] : edges) {
    triplets.push_back(
        Triplet{label[static_cast<std::size_t>(a)], label[static_cast<std::size_t>(b)], 1.0});
  }
  return CommGraph::from_triplets(n, std::move(triplets));
}

/// The edges of a wide x high grid, 4 neighbours; vertex (x, y) is x * high + y.
std::vector<std::pair<Index, Index>> grid_edges(Index wide, Index high) {
  std::vector<std::pair<Index, Index>> edges;
  for (Index x = 0; x < wide; ++x) {
    for (Index y = 0; y < high; ++y) {
      if (x + 1 < wide) edges.emplace_back(x * high + y, (x + 1) * high + y);
      if (y + 1 < high) edges.emplace_back(x * high + y, x * high + y + 1);
    }
  }
  return edges;
}

TEST(MultilevelPartition, PartsHaveExactlyTheGivenSizes) {
  const std::vector<std::vector<Index>> cases = {
      {150, 150}, {1, 299}, {100, 100, 100}, {7, 50, 93, 150}, {43, 43, 43, 43, 43, 43, 42},
      {299, 1},   {300}};
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const CommGraph graph = random_sparse_graph(300, /*degree=*/4, seed);
    for (const std::vector<Index>& sizes : cases) {
      const std::vector<Index> part = multilevel_partition(graph.view(), sizes);
      ASSERT_EQ(part.size(), 300u);
      EXPECT_EQ(part_sizes(part, sizes.size()), sizes) << "seed " << seed;
    }
  }
}

TEST(MultilevelPartition, LargeGraphCoarsensAndKeepsExactSizes) {
  const CommGraph graph = random_sparse_graph(5000, /*degree=*/6, 3);
  const std::vector<Index> sizes = {1250, 1250, 1250, 1249, 1};
  EXPECT_EQ(part_sizes(multilevel_partition(graph.view(), sizes), sizes.size()), sizes);
}

//   k cliques of s vertices, no edge between cliques, labels shuffled: the cut is 0.
TEST(MultilevelPartition, DisconnectedCliquesAreSeparatedWithoutCut) {
  for (const auto& [k, s] : {std::pair{4, 8}, std::pair{8, 16}, std::pair{16, 32}}) {
    std::vector<std::pair<Index, Index>> edges;
    for (Index c = 0; c < k; ++c) {
      for (Index a = 0; a < s; ++a) {
        for (Index b = a + 1; b < s; ++b) edges.emplace_back(c * s + a, c * s + b);
      }
    }
    const CommGraph graph = graph_of(k * s, edges, random_permutation(k * s, 11));
    const std::vector<Index> sizes(static_cast<std::size_t>(k), s);

    const std::vector<Index> part = multilevel_partition(graph.view(), sizes);

    EXPECT_EQ(edge_cut(graph.view(), part), 0.0) << k << " cliques of " << s;
    EXPECT_EQ(part_sizes(part, sizes.size()), sizes);
  }
}

//   A 16 x 8 grid (4 neighbours, unit weights), labels shuffled: split in two halves of 64, the
//   best cut is the 8 edges across the middle of the long side.
TEST(MultilevelPartition, GridBisectionFindsTheOptimalCut) {
  constexpr Index kWide = 16;
  constexpr Index kHigh = 8;
  const std::vector<std::pair<Index, Index>> edges = grid_edges(kWide, kHigh);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const CommGraph graph = graph_of(kWide * kHigh, edges, random_permutation(kWide * kHigh, seed));
    const std::vector<Index> part = multilevel_partition(graph.view(), {64, 64});
    EXPECT_EQ(edge_cut(graph.view(), part), 8.0) << "seed " << seed;
  }
}

//   One bisection made with several attempts keeps the lowest cut, so it never cuts more than
//   the first attempt alone (the same seed as attempts = 1).
TEST(MultilevelPartition, MoreAttemptsNeverCutMoreInABisection) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const CommGraph graph = random_sparse_graph(3000, /*degree=*/5, seed);
    PartitionContext one;
    one.attempts = 1;
    PartitionContext four = one;
    four.attempts = 4;
    const double first =
        edge_cut(graph.view(), multilevel_partition(graph.view(), {1500, 1500}, one));
    const double best =
        edge_cut(graph.view(), multilevel_partition(graph.view(), {1500, 1500}, four));
    EXPECT_LE(best, first) << "seed " << seed;
  }
}

/// On random graphs of 96 and 600 vertices cut into 8 parts, `many` and `one` give different
/// parts, and `limited` (`many` limited on graphs too small to coarsen) gives `one`'s parts on the
/// first (every bisection is of at most 128 vertices, the coarsest) and `many`'s on the second
/// (none is: the smallest splits 150 vertices).
void expect_limit_only_below_coarsening(const PartitionContext& one, const PartitionContext& many,
                                        const PartitionContext& limited) {
  for (const Index n : {Index{96}, Index{600}}) {
    const CommGraph graph = random_sparse_graph(n, /*degree=*/4, 3);
    const std::vector<Index> sizes(8, n / 8);
    const std::vector<Index> by_many = multilevel_partition(graph.view(), sizes, many);
    ASSERT_NE(multilevel_partition(graph.view(), sizes, one), by_many) << n;
    EXPECT_EQ(multilevel_partition(graph.view(), sizes, limited),
              n <= limited.coarsest ? multilevel_partition(graph.view(), sizes, one) : by_many)
        << n;
  }
}

//   A bisection of a graph too small to coarsen is made at most uncoarsened_attempts times, one of
//   a larger graph as often as asked.
TEST(MultilevelPartition, UncoarsenedAttemptsLimitOnlyGraphsTooSmallToCoarsen) {
  PartitionContext one;
  one.attempts = 1;
  one.grow_attempts = false;
  PartitionContext five = one;
  five.attempts = 5;
  five.uncoarsened_attempts = 0;
  PartitionContext limited = five;
  limited.uncoarsened_attempts = 1;
  expect_limit_only_below_coarsening(one, five, limited);
}

//   The same for the growing starts: uncoarsened_tries on graphs too small to coarsen,
//   initial_tries on the coarsest graph of larger ones.
TEST(MultilevelPartition, UncoarsenedTriesLimitOnlyGraphsTooSmallToCoarsen) {
  PartitionContext one;
  one.attempts = 1;
  one.grow_attempts = false;
  one.initial_tries = 1;
  PartitionContext four = one;
  four.initial_tries = 4;
  PartitionContext limited = four;
  limited.uncoarsened_tries = 1;
  expect_limit_only_below_coarsening(one, four, limited);
}

//   Attempts stop early only when two or three of the first three reach their lowest cut on a
//   graph of 1024 vertices or more: then the earliest of those is what all attempts give. On
//   32 x 32 grids the attempts agree on the best cut (32 edges across the middle); on a random
//   graph they disagree and all attempts run (stopping at one of three fails here).
TEST(MultilevelPartition, AgreeingAttemptsGiveWhatAllAttemptsGive) {
  constexpr Index kSide = 32;
  const std::vector<std::pair<Index, Index>> edges = grid_edges(kSide, kSide);
  std::vector<CommGraph> graphs;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    graphs.push_back(graph_of(kSide * kSide, edges, random_permutation(kSide * kSide, seed)));
  graphs.push_back(random_sparse_graph(3000, /*degree=*/5, 7));
  PartitionContext all;
  all.attempts = 6;
  all.agreeing_attempts = 0;
  PartitionContext agreeing = all;
  agreeing.agreeing_attempts = 3;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const CommGraph& graph = graphs[g];
    const Index half = graph.size() / 2;
    const std::vector<Index> sizes = {half, graph.size() - half};
    const std::vector<Index> early = multilevel_partition(graph.view(), sizes, agreeing);
    EXPECT_EQ(early, multilevel_partition(graph.view(), sizes, all)) << "graph " << g;
    if (g + 1 < graphs.size()) {
      EXPECT_EQ(edge_cut(graph.view(), early), 32.0) << "grid " << g;
    }
  }
}

//   With disagreement_attempts = 6, a bisection whose 3 attempts reach their lowest cut once makes
//   3 more: it gives what 6 attempts give (the same seeds); else what 3 give. On random graphs the
//   attempts disagree, so 6 are made at least once, and the cut is never above 3 attempts' cut.
TEST(MultilevelPartition, DisagreeingAttemptsGoOnUpToTheirLimit) {
  PartitionContext three;
  three.agreeing_attempts = 0;
  PartitionContext six = three;
  six.attempts = 6;
  PartitionContext disagreeing = three;
  disagreeing.disagreement_attempts = 6;
  int made_six = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const CommGraph graph = random_sparse_graph(3000, /*degree=*/5, seed);
    const std::vector<Index> sizes = {1500, 1500};
    const std::vector<Index> by_three = multilevel_partition(graph.view(), sizes, three);
    const std::vector<Index> by_six = multilevel_partition(graph.view(), sizes, six);
    const std::vector<Index> part = multilevel_partition(graph.view(), sizes, disagreeing);
    EXPECT_TRUE(part == by_three || part == by_six) << "seed " << seed;
    EXPECT_LE(edge_cut(graph.view(), part), edge_cut(graph.view(), by_three)) << "seed " << seed;
    if (part == by_six && by_six != by_three) ++made_six;
  }
  EXPECT_GE(made_six, 1) << "no bisection made more attempts";
}

//   A 32 x 16 x 16 stencil, ranks shuffled, on 64 switches x 16 nodes x 2 packages x 4 cores:
//   the cheapest mapping nests blocks, 4 x 4 x 8 cells per switch, 2 x 2 x 2 per node, 2 x 2 x 1
//   per package (nested_block_mapping: every level's cut is then the least a box of that size
//   can have). TreeMatch finds a mapping of exactly that cost, never below it; one bisection per
//   split (attempts = 1) misses it on all three of these shuffles.
TEST(MultilevelTopDown, ShuffledStencilMapsAtTheNestedBlocksCost) {
  const Topology tree = tree_of({64, 16, 2, 4});
  const std::vector<CellBox> boxes = {{4, 4, 8}, {2, 2, 2}, {2, 2, 1}, {1, 1, 1}};
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const StencilSpec spec{.nx = 32, .ny = 16, .nz = 16, .seed = seed};
    const CommGraph graph = make_stencil_27(spec);
    ASSERT_EQ(nested_block_arities(spec, boxes), (std::vector<Index>{64, 16, 2, 4}));
    const double optimum = evaluate_cost(graph, tree, nested_block_mapping(spec, boxes)).weighted;
    const double ours = treematch_map(graph, tree, default_context()).cost.weighted;
    EXPECT_LE(ours, optimum * (1.0 + 1e-12)) << "seed " << seed;
    EXPECT_GE(ours, optimum * (1.0 - 1e-12))
        << "seed " << seed << ": below the nested blocks, which the benchmark takes as optimal";
  }
}

TEST(MultilevelPartition, SameResultForAnyThreadCount) {
  // Large enough for the halves of the first bisections to run as parallel tasks, and for the
  // first contraction to build its rows in blocks as tasks (more than 4096 coarse vertices).
  // Also with the fast preset's side-blind ties and its fewer starts on small graphs, and with
  // attempts made where they disagree (they do here: other parts than without), and with flow
  // refinement in the V-cycles (other parts as well, still of exact sizes).
  const CommGraph graph = random_sparse_graph(12000, /*degree=*/5, 9);
  const std::vector<Index> sizes = {3000, 3000, 2000, 2000, 2000};
  PartitionContext fast = preset_context(Preset::kFast).partition;
  PartitionContext disagreeing;
  disagreeing.disagreement_attempts = 6;
  PartitionContext flows;
  flows.flow_rounds = 2;
  std::vector<std::vector<Index>> references;
  for (const PartitionContext& ctx : {PartitionContext{}, fast, disagreeing, flows}) {
    std::vector<Index>& reference = references.emplace_back();
    for (int threads : {1, 2, 4}) {
      const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(threads));
      const std::vector<Index> part = multilevel_partition(graph.view(), sizes, ctx);
      if (reference.empty()) {
        reference = part;
      } else {
        EXPECT_EQ(part, reference) << threads << " threads";
      }
    }
  }
  EXPECT_NE(references[2], references[0]) << "no bisection made more attempts";
  EXPECT_NE(references[3], references[0]) << "no V-cycle kept a flow's cut";
  EXPECT_EQ(part_sizes(references[3], sizes.size()), sizes);
}

//   A star of 9 vertices coarsened down to 2: once the centre weighs the cap no pair can merge,
//   and coarsening must stop there (it used to add the same level again for good: a graph of
//   fewer than 10 vertices never shrank "by less than 10%").
TEST(MultilevelPartition, CoarseningStopsWhereTinyGraphsCannotMatch) {
  std::vector<Triplet> triplets;
  for (Index leaf = 1; leaf < 9; ++leaf) {
    triplets.push_back({0, leaf, 1.0});
    triplets.push_back({leaf, 0, 1.0});
  }
  const CommGraph star = CommGraph::from_triplets(9, std::move(triplets));
  PartitionContext ctx;
  ctx.coarsest = 2;
  EXPECT_EQ(part_sizes(multilevel_partition(star.view(), {4, 5}, ctx), 2),
            (std::vector<Index>{4, 5}));
}

TEST(MultilevelPartition, EdgeCases) {
  const CommGraph empty = CommGraph::from_triplets(0, {});
  EXPECT_TRUE(multilevel_partition(empty.view(), {}).empty());
  const CommGraph edgeless = CommGraph::from_triplets(10, {});
  EXPECT_EQ(part_sizes(multilevel_partition(edgeless.view(), {3, 7}), 2),
            (std::vector<Index>{3, 7}));
  const CommGraph one = CommGraph::from_triplets(1, {});
  EXPECT_EQ(multilevel_partition(one.view(), {1}), (std::vector<Index>{0}));
}

TEST(MultilevelPartition, BadSizesThrow) {
  const CommGraph graph = random_sparse_graph(5, 2, 1);
  EXPECT_THROW((void)multilevel_partition(graph.view(), {2, 2}), std::invalid_argument);
  EXPECT_THROW((void)multilevel_partition(graph.view(), {5, 0}), std::invalid_argument);
  EXPECT_THROW((void)multilevel_partition(graph.view(), {6, -1}), std::invalid_argument);
}

/// TreeMatch's walk with the default options, for the subtrees below the split depth.
SubtreeMapping walk_subtrees() {
  return [](const CommGraph& graph, const Topology& subtree) {
    return bottom_up_mapping(LocalMappingInput(graph), subtree, GroupingContext{}, WalkContext{});
  };
}

TEST(MultilevelTopDown, GivesAPermutationNeverCostlierThanTheIdentity) {
  const Topology tree = tree_of({4, 4, 2, 4});
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const std::vector<Index> rank_of_slot = random_permutation(tree.leaf_count(), seed);
    const CommGraph graph = hierarchical_pattern(tree, rank_of_slot);
    for (int depth = 1; depth <= tree.depth(); ++depth) {
      const Mapping mapping = top_down_treematch_map(graph, tree, depth, NodeSplit::kMultilevel,
                                                     PartitionContext{}, walk_subtrees())
                                  .mapping;
      const auto& leaves = mapping.leaf_of_rank;
      EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 128u);
      Mapping identity;
      for (Index r = 0; r < tree.leaf_count(); ++r) identity.leaf_of_rank.push_back(r);
      Mapping natural;  // slot s's process on leaf s: the optimum of the pattern
      natural.leaf_of_rank.resize(rank_of_slot.size());
      for (std::size_t s = 0; s < rank_of_slot.size(); ++s)
        natural.leaf_of_rank[static_cast<std::size_t>(rank_of_slot[s])] = static_cast<Index>(s);
      const double ours = evaluate_cost(graph, tree, mapping).hop_bytes;
      EXPECT_LE(ours, evaluate_cost(graph, tree, identity).hop_bytes);
      // The pattern's groups are cliques of decreasing weight: every split finds them.
      EXPECT_EQ(ours, evaluate_cost(graph, tree, natural).hop_bytes)
          << "seed " << seed << " depth " << depth;
    }
  }
}

TEST(MultilevelTopDown, FewerProcessesThanLeavesAndAnyThreadCount) {
  const Topology tree = tree_of({4, 4, 2, 4});
  const CommGraph graph = random_sparse_graph(100, 4, 5);
  std::vector<Index> reference;
  for (int threads : {1, 2}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    const std::vector<Index> leaves = top_down_treematch_map(graph, tree, 2, NodeSplit::kMultilevel,
                                                             PartitionContext{}, walk_subtrees())
                                          .mapping.leaf_of_rank;
    EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 100u);
    for (Index leaf : leaves) {
      EXPECT_GE(leaf, 0);
      EXPECT_LT(leaf, 128);
    }
    if (reference.empty()) reference = leaves;
    EXPECT_EQ(leaves, reference) << threads << " threads";
  }
}

TEST(MultilevelTopDown, TheAttemptBudgetIsSharedByTheSeeds) {
  PartitionContext partition;
  partition.attempts = 3;
  MultilevelTopDownContext ctx;
  ctx.attempt_budget = 16;
  EXPECT_EQ(multilevel_disagreement_attempts(1, partition, ctx), 16);
  EXPECT_EQ(multilevel_disagreement_attempts(2, partition, ctx), 8);
  EXPECT_EQ(multilevel_disagreement_attempts(3, partition, ctx), 6);  // ceil(16 / 3)
  EXPECT_EQ(multilevel_disagreement_attempts(5, partition, ctx), 4);
  // Never fewer than partition.attempts.
  EXPECT_EQ(multilevel_disagreement_attempts(16, partition, ctx), 3);
  ctx.attempt_budget = 0;
  EXPECT_EQ(multilevel_disagreement_attempts(1, partition, ctx), 3);
}

TEST(MultilevelTopDown, SmallInputsMakeMoreKwayVcyclesUpToTheirLimit) {
  PartitionContext partition;
  partition.kway_vcycles = 16;
  MultilevelTopDownContext ctx;
  ctx.vcycle_budget = 131072;
  ctx.max_vcycles = 64;
  EXPECT_EQ(multilevel_more_kway_vcycles(1348, partition, ctx), 48);   // 97 by the budget: 64
  EXPECT_EQ(multilevel_more_kway_vcycles(4584, partition, ctx), 12);   // 131072 / 4584 = 28
  EXPECT_EQ(multilevel_more_kway_vcycles(8192, partition, ctx), 0);    // the budget's 16
  EXPECT_EQ(multilevel_more_kway_vcycles(390072, partition, ctx), 0);  // never fewer
  ctx.vcycle_budget = 0;
  EXPECT_EQ(multilevel_more_kway_vcycles(1348, partition, ctx), 0);
  // None where the preset makes none (fast, strong's pair mappings), whatever the budget.
  ctx.vcycle_budget = 131072;
  partition.kway_vcycles = 0;
  EXPECT_EQ(multilevel_more_kway_vcycles(1348, partition, ctx), 0);
}

TEST(MultilevelTopDown, SeedsAgreeWhereEnoughMapAtTheCheapestCost) {
  EXPECT_TRUE(seeds_agree(std::vector<double>{5, 7, 5, 9}, 2));
  EXPECT_FALSE(seeds_agree(std::vector<double>{5, 7, 7, 9}, 2));  // they agree on a dearer cost
  EXPECT_FALSE(seeds_agree(std::vector<double>{5, 7, 5, 9}, 3));
  EXPECT_FALSE(seeds_agree(std::vector<double>{5, 5}, 0));  // 0: every seed is made
  MultilevelTopDownContext ctx;
  ctx.seed_step = 4;
  ctx.agreeing_seeds = 2;
  // Asked after each step, on the seeds made by then: the first 4 disagree, the first 8 agree.
  const std::vector<double> costs{5, 7, 6, 9, 8, 5, 9, 9, 1, 1, 1, 1};
  EXPECT_EQ(agreed_seeds(costs, ctx), 8u);
  EXPECT_EQ(agreed_seeds(std::span(costs).first(7), ctx), 7u);  // no whole second step
  ctx.seed_step = 2;
  EXPECT_EQ(agreed_seeds(costs, ctx), 6u);
  ctx.agreeing_seeds = 3;
  EXPECT_EQ(agreed_seeds(costs, ctx), costs.size());  // three 1s only among all 12
  ctx.agreeing_seeds = 0;
  EXPECT_EQ(agreed_seeds(costs, ctx), costs.size());
}

// The first 4 of 16 seeds of a shuffled stencil map at one cost: only they are made, the same
// mappings as the first 4 of all 16 and as cheap as their best, at 1 thread and in an arena of 8
// (where 8 seeds start at once and 4 are kept). A random graph's seeds never agree: all 16.
TEST(MultilevelTopDown, OnlyTheFirstSeedsAreMadeWhereTheyAgree) {
  const Topology tree = tree_of({2, 8, 2, 8});
  const CommGraph stencil = make_stencil_27(StencilSpec{.nx = 8, .ny = 8, .nz = 4, .seed = 1});
  const Context preset = default_context();
  const auto mappings_of = [&](const CommGraph& graph, int agreeing, int threads) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 16);
    tbb::task_arena arena(threads);
    MultilevelTopDownContext ctx = preset.multilevel;
    ctx.budget = std::numeric_limits<std::int64_t>::max();
    ctx.max_runs = 16;
    ctx.seed_step = 4;
    ctx.agreeing_seeds = agreeing;
    return arena.execute([&] {
      return multilevel_top_down_mappings(graph, tree, preset.grouping, preset.partition, ctx);
    });
  };
  const auto cheapest = [&](const std::vector<TreeMatchResult>& mappings) {
    double best = std::numeric_limits<double>::infinity();
    for (const TreeMatchResult& m : mappings)
      best = std::min(best, evaluate_cost(stencil, tree, m.mapping).weighted);
    return best;
  };
  const std::vector<TreeMatchResult> all = mappings_of(stencil, 0, 2);
  ASSERT_EQ(all.size(), 16u);
  for (int threads : {1, 8}) {
    const std::vector<TreeMatchResult> first = mappings_of(stencil, 2, threads);
    ASSERT_EQ(first.size(), 4u) << threads << " threads";
    for (std::size_t s = 0; s < first.size(); ++s)
      EXPECT_EQ(first[s].mapping.leaf_of_rank, all[s].mapping.leaf_of_rank) << "seed " << s;
    EXPECT_EQ(cheapest(first), cheapest(all));
  }
  EXPECT_EQ(mappings_of(random_sparse_graph(256, 6, 11), 2, 2).size(), 16u);
}

// One seed spends an attempt budget of 12 where the attempts of a random graph's bisections
// disagree: another mapping than without it, the same at any thread count; a budget below the
// attempts changes nothing.
TEST(MultilevelTopDown, OneSeedSpendsTheBudgetWhereAttemptsDisagree) {
  const Topology tree = tree_of({8, 8, 2, 8});
  const CommGraph graph = random_sparse_graph(1024, 6, 11);
  const auto leaves_of = [&](int budget, int threads) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    MultilevelTopDownContext ctx;
    ctx.max_runs = 1;
    ctx.attempt_budget = budget;
    const auto mappings =
        multilevel_top_down_mappings(graph, tree, GroupingContext{}, PartitionContext{}, ctx);
    EXPECT_EQ(mappings.size(), 1u);
    return mappings.front().mapping.leaf_of_rank;
  };
  const std::vector<Index> none = leaves_of(0, 1);
  const std::vector<Index> twelve = leaves_of(12, 1);
  EXPECT_NE(none, twelve) << "the budget made no attempt that changed the mapping";
  EXPECT_EQ(leaves_of(12, 2), twelve);
  EXPECT_EQ(leaves_of(2, 1), none);
}

// multilevel.walk_levels (the even seeds) and odd_seed_walk_levels: the partitioner splits the
// nodes above depth max(1, depth - levels), the walk maps the levels below, as
// top_down_treematch_map does with that split depth; on a random graph the split depths give
// different mappings, so the knobs are seen to act.
TEST(MultilevelTopDown, TheWalkMapsTheLowestWalkLevels) {
  const Topology tree = tree_of({8, 8, 2, 8});
  const CommGraph graph = random_sparse_graph(1024, 6, 11);
  PartitionContext partition;
  partition.disagreement_attempts = partition.attempts;  // what attempt_budget 0 gives
  // The mappings of seeds 0 and 1 with `even` walk levels for seed 0 and `odd` for seed 1.
  const auto seed_mappings = [&](int even, int odd) {
    MultilevelTopDownContext ctx;
    ctx.budget = std::numeric_limits<std::int64_t>::max();
    ctx.max_runs = 2;
    ctx.attempt_budget = 0;
    ctx.walk_levels = even;
    ctx.odd_seed_walk_levels = odd;
    std::vector<std::vector<Index>> leaves;
    for (const TreeMatchResult& result :
         multilevel_top_down_mappings(graph, tree, GroupingContext{}, partition, ctx))
      leaves.push_back(result.mapping.leaf_of_rank);
    return leaves;
  };
  const auto split_above = [&](int depth, std::uint64_t seed_offset) {
    PartitionContext seeded = partition;
    seeded.seed += seed_offset;
    return top_down_treematch_map(graph, tree, depth, NodeSplit::kMultilevel, seeded,
                                  subtree_walk(GroupingContext{}))
        .mapping.leaf_of_rank;
  };
  for (const auto& [levels, split_depth] :
       std::vector<std::pair<int, int>>{{0, 4}, {1, 3}, {2, 2}, {3, 1}, {9, 1}}) {
    const std::vector<std::vector<Index>> both = seed_mappings(levels, levels);
    ASSERT_EQ(both.size(), 2u);
    for (std::size_t run : {0u, 1u})
      EXPECT_EQ(both[run], split_above(split_depth, run))
          << "levels " << levels << ", seed " << run;
  }
  EXPECT_NE(split_above(3, 0), split_above(2, 0));
  // The default preset's pair: the first seed splits the sockets, the second leaves them to the
  // walk.
  const std::vector<std::vector<Index>> presets = seed_mappings(1, 2);
  ASSERT_EQ(presets.size(), 2u);
  EXPECT_EQ(presets[0], split_above(3, 0));
  EXPECT_EQ(presets[1], split_above(2, 1));
}

}  // namespace
}  // namespace treematch
