// Tests of constrained TreeMatch (--cores) and of the k-way split it uses.
#include "src/top_down/top_down_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "src/report/baselines.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::hierarchical_pattern;
using testing::random_permutation;
using testing::random_sparse_graph;
using testing::tree_of;

/// `count` distinct leaves of [0, leaves), sorted.
std::vector<Index> random_leaves(Index leaves, Index count, std::uint64_t seed) {
  std::vector<Index> perm = random_permutation(leaves, seed);
  perm.resize(static_cast<std::size_t>(count));
  std::sort(perm.begin(), perm.end());
  return perm;
}

Context constrained(std::vector<Index> allowed, Index per_leaf) {
  Context ctx = default_context();
  ctx.placement.allowed_leaves = std::move(allowed);
  ctx.placement.oversubscribe = per_leaf;
  return ctx;
}

/// Empty when the mapping respects the placement, else what is wrong.
std::string placement_error(const Mapping& mapping, Index processes, const Topology& tree,
                            const PlacementContext& placement) {
  if (mapping.leaf_of_rank.size() != static_cast<std::size_t>(processes)) return "wrong size";
  std::vector<Index> load(static_cast<std::size_t>(tree.leaf_count()), 0);
  for (Index leaf : mapping.leaf_of_rank) {
    if (leaf < 0 || leaf >= tree.leaf_count())
      return "leaf " + std::to_string(leaf) + " out of range";
    if (!std::binary_search(placement.allowed_leaves.begin(), placement.allowed_leaves.end(), leaf))
      return "leaf " + std::to_string(leaf) + " not allowed";
    if (++load[static_cast<std::size_t>(leaf)] > placement.oversubscribe)
      return "leaf " + std::to_string(leaf) + " over capacity";
  }
  return "";
}

double cut_weight(kernels::CsrView g, const std::vector<Index>& part) {
  double cut = 0.0;
  for (Index v = 0; v < g.n; ++v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      if (part[static_cast<std::size_t>(v)] !=
          part[static_cast<std::size_t>(g.targets[static_cast<std::size_t>(e)])])
        cut += g.weights[static_cast<std::size_t>(e)];
    }
  }
  return cut / 2.0;
}

struct PlacementCase {
  std::vector<Index> arities;  // root first
  Index allowed;               // how many leaves are allowed
  Index per_leaf;              // oversubscribe
};

class ConstrainedPlacement : public ::testing::TestWithParam<PlacementCase> {};

TEST_P(ConstrainedPlacement, EveryProcessOnAnAllowedLeafWithinCapacity) {
  const Topology tree = tree_of(GetParam().arities);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Context ctx = constrained(random_leaves(tree.leaf_count(), GetParam().allowed, seed),
                                    GetParam().per_leaf);
    const Index slots = GetParam().allowed * GetParam().per_leaf;
    for (Index p : {Index{1}, slots / 2 + 1, slots - 1, slots}) {
      if (p < 1) continue;
      const CommGraph graph =
          random_sparse_graph(p, /*degree=*/3, seed * 31 + static_cast<std::uint64_t>(p));

      const Mapping mapping = constrained_treematch_map(graph, tree, ctx).mapping;

      EXPECT_EQ(placement_error(mapping, p, tree, ctx.placement), "")
          << tree.shape() << " seed " << seed << " p " << p;
      if (GetParam().per_leaf == 1) {
        EXPECT_EQ(std::set<Index>(mapping.leaf_of_rank.begin(), mapping.leaf_of_rank.end()).size(),
                  static_cast<std::size_t>(p));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Trees, ConstrainedPlacement,
    ::testing::Values(PlacementCase{{4, 2, 2}, 9, 1}, PlacementCase{{4, 2, 2}, 5, 3},
                      PlacementCase{{2, 3, 4}, 17, 1}, PlacementCase{{2, 3, 4}, 7, 2},
                      PlacementCase{{4, 4, 2, 2}, 33, 1}, PlacementCase{{8}, 3, 1},
                      PlacementCase{{3, 5, 2}, 1, 2}));

TEST(ConstrainedMapping, AllLeavesAllowedGivesTheUnconstrainedMapping) {
  const Topology tree = tree_of({2, 4, 2, 2});
  for (Index per_leaf : {Index{1}, Index{2}}) {
    const CommGraph graph = random_sparse_graph(tree.leaf_count() * per_leaf - 3, /*degree=*/4, 7);
    std::vector<Index> all(static_cast<std::size_t>(tree.leaf_count()));
    for (Index l = 0; l < tree.leaf_count(); ++l) all[static_cast<std::size_t>(l)] = l;
    Context plain = default_context();
    plain.placement.oversubscribe = per_leaf;

    const TreeMatchResult ours = treematch_map(graph, tree, constrained(all, per_leaf));
    const TreeMatchResult reference = treematch_map(graph, tree, plain);

    EXPECT_EQ(ours.mapping.leaf_of_rank, reference.mapping.leaf_of_rank) << "per leaf " << per_leaf;
    EXPECT_EQ(ours.levels.size(), reference.levels.size());
  }
}

//   root (4 children) -> 2 -> 2 leaves; allowed: the subtrees of children 1 and 3.
//   [0 1 2 3] [4 5 6 7]* [8 9 10 11] [12 13 14 15]*
TEST(ConstrainedMapping, HierarchicalPatternOnTwoFullSubtreesIsOptimal) {
  const Topology tree =
      Topology({TreeLevel{4, 1.0, "a"}, TreeLevel{2, 1.0, "b"}, TreeLevel{2, 1.0, "c"}}, {});
  const std::vector<Index> allowed = {4, 5, 6, 7, 12, 13, 14, 15};
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const std::vector<Index> rank_of_slot = random_permutation(8, seed);
    // Pairs talk 100, pairs of pairs 10, all 1.
    const CommGraph graph = hierarchical_pattern(tree_of({2, 2, 2}), rank_of_slot);
    Mapping natural;  // slot s of the pattern on the s-th allowed leaf
    natural.leaf_of_rank.resize(8);
    for (std::size_t s = 0; s < 8; ++s)
      natural.leaf_of_rank[static_cast<std::size_t>(rank_of_slot[s])] = allowed[s];

    const Context ctx = constrained(allowed, 1);
    const Mapping mapping = constrained_treematch_map(graph, tree, ctx).mapping;

    ASSERT_EQ(placement_error(mapping, 8, tree, ctx.placement), "");
    const MappingCost ours = evaluate_cost(graph, tree, mapping);
    const MappingCost best = evaluate_cost(graph, tree, natural);
    EXPECT_EQ(ours.hop_bytes, best.hop_bytes) << "seed " << seed;
    EXPECT_EQ(ours.weighted, best.weighted) << "seed " << seed;
  }
}

//   [0 1* 2* 3*] [4 5* 6 7] [8* 9* 10* 11*] [12 13 14* 15]   (* = allowed)
TEST(ConstrainedMapping, IrregularAllowedSetBeatsPackedAndRandom) {
  const Topology tree =
      Topology({TreeLevel{4, 1.0, "a"}, TreeLevel{2, 1.0, "b"}, TreeLevel{2, 1.0, "c"}}, {});
  const std::vector<Index> allowed = {1, 2, 3, 5, 8, 9, 10, 11, 14};
  const std::vector<Index> slots = usable_slots(tree, allowed, 1);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const CommGraph graph = hierarchical_pattern(tree_of({2, 2, 2}), random_permutation(8, seed));
    const Context ctx = constrained(allowed, 1);

    const Mapping mapping = constrained_treematch_map(graph, tree, ctx).mapping;

    ASSERT_EQ(placement_error(mapping, 8, tree, ctx.placement), "");
    const double ours = evaluate_cost(graph, tree, mapping).hop_bytes;
    EXPECT_LE(ours, evaluate_cost(graph, tree, packed_mapping(8, slots)).hop_bytes)
        << "seed " << seed;
    for (std::uint64_t r = 1; r <= 10; ++r) {
      EXPECT_LE(ours, evaluate_cost(graph, tree, random_mapping(8, slots, r)).hop_bytes)
          << "seed " << seed << " random " << r;
    }
  }
}

TEST(ConstrainedMapping, IrregularAllowedSetReachesTheHandOptimum) {
  // Same tree and allowed leaves as above; pairs talk 100, pairs of pairs 10, all 1.
  const Topology tree =
      Topology({TreeLevel{4, 1.0, "a"}, TreeLevel{2, 1.0, "b"}, TreeLevel{2, 1.0, "c"}}, {});
  const std::vector<Index> allowed = {1, 2, 3, 5, 8, 9, 10, 11, 14};
  const CommGraph graph = hierarchical_pattern(tree_of({2, 2, 2}), random_permutation(8, 3));
  const Mapping mapping = constrained_treematch_map(graph, tree, constrained(allowed, 1)).mapping;
  // Optimum by hand: quad A on the full subtree 8..11, quad B's pairs on {2, 3} and on {1, 5 or
  // 14}. Unordered pairs x hops, counted twice (both directions of the symmetric matrix):
  //   pairs: 3 x 100 x 2 + 100 x 6 (leaf 1 and its partner meet at the root)
  const double pairs = 3 * 100.0 * 2 + 100.0 * 6;
  //   pairs of pairs: quad A 4 x 10 x 4; quad B {2,3}-{1} 2 x 10 x 4, {2,3}-{other} 2 x 10 x 6
  const double quads = 4 * 10.0 * 4 + 2 * 10.0 * 4 + 2 * 10.0 * 6;
  //   across quads: 16 x 1 x 6 (different children of the root)
  const double across = 16 * 1.0 * 6;
  EXPECT_EQ(evaluate_cost(graph, tree, mapping).hop_bytes, 2.0 * (pairs + quads + across));
}

TEST(ConstrainedMapping, SameMappingForAnyThreadCount) {
  const Topology tree = tree_of({4, 4, 4, 8});
  const CommGraph graph = random_sparse_graph(500, /*degree=*/4, 11);
  // Half of the 512 leaves; 500 processes need 2 per leaf.
  const Context ctx = constrained(random_leaves(tree.leaf_count(), 256, 5), 2);
  std::vector<TreeMatchResult> results;
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    results.push_back(constrained_treematch_map(graph, tree, ctx));
  }
  ASSERT_EQ(placement_error(results.front().mapping, 500, tree, ctx.placement), "");
  for (const TreeMatchResult& r : results) {
    EXPECT_EQ(r.mapping.leaf_of_rank, results.front().mapping.leaf_of_rank);
    ASSERT_EQ(r.levels.size(), results.front().levels.size());
    for (std::size_t i = 0; i < r.levels.size(); ++i) {
      EXPECT_EQ(r.levels[i].heuristic, results.front().levels[i].heuristic);
      EXPECT_EQ(r.levels[i].order, results.front().levels[i].order);
    }
  }
}

TEST(ConstrainedMapping, LargeSparseGraphBeatsRandomPlacement) {
  const Topology tree = tree_of({4, 4, 4, 8});
  const CommGraph graph = random_sparse_graph(500, /*degree=*/4, 11);
  const std::vector<Index> allowed = random_leaves(tree.leaf_count(), 256, 5);
  const Mapping mapping = constrained_treematch_map(graph, tree, constrained(allowed, 2)).mapping;
  const std::vector<Index> slots = usable_slots(tree, allowed, 2);
  // Costs on the oversubscribed tree, so that two ranks on one core are at distance 0 for all.
  const Topology virtual_tree = tree.with_oversubscription(2);
  const auto on_virtual = [&](const Mapping& m) {
    Mapping v = m;
    std::vector<Index> used(static_cast<std::size_t>(tree.leaf_count()), 0);
    for (Index& leaf : v.leaf_of_rank) leaf = leaf * 2 + used[static_cast<std::size_t>(leaf)]++;
    return evaluate_cost(graph, virtual_tree, v).hop_bytes;
  };
  const double ours = on_virtual(mapping);
  for (std::uint64_t r = 1; r <= 5; ++r) EXPECT_LT(ours, on_virtual(random_mapping(500, slots, r)));
}

//   root -> [0* 1] [2 3*], 2 processes per leaf; 0-2 and 1-3 talk most.
TEST(ConstrainedMapping, OversubscribeTwoPutsTwoPerAllowedLeaf) {
  const Topology tree = Topology({TreeLevel{2, 1.0, "a"}, TreeLevel{2, 1.0, "b"}}, {});
  const CommGraph graph =
      CommGraph::from_triplets(4, {Triplet{0, 2, 1000}, Triplet{1, 3, 1000}, Triplet{0, 1, 1},
                                   Triplet{2, 3, 1}, Triplet{0, 3, 1}});
  const Context ctx = constrained({0, 3}, 2);

  const Mapping mapping = constrained_treematch_map(graph, tree, ctx).mapping;

  ASSERT_EQ(placement_error(mapping, 4, tree, ctx.placement), "");
  std::vector<int> load(4, 0);
  for (Index leaf : mapping.leaf_of_rank) ++load[static_cast<std::size_t>(leaf)];
  EXPECT_EQ(load, (std::vector<int>{2, 0, 0, 2}));
  EXPECT_EQ(mapping.leaf_of_rank[0], mapping.leaf_of_rank[2]);
  EXPECT_EQ(mapping.leaf_of_rank[1], mapping.leaf_of_rank[3]);
}

TEST(ConstrainedMapping, TreeMatchMapDispatchesToTheConstrainedMapping) {
  // The driver keeps constrained_treematch_map's mapping unless a seed on the allowed leaves or
  // the refinement finds a cheaper one.
  const Topology tree = tree_of({4, 2, 2});
  const CommGraph graph = random_sparse_graph(7, /*degree=*/2, 3);
  const Context ctx = constrained({0, 2, 3, 6, 9, 10, 15}, 1);
  const TreeMatchResult result = treematch_map(graph, tree, ctx);
  ASSERT_EQ(placement_error(result.mapping, 7, tree, ctx.placement), "");
  EXPECT_LE(
      result.cost.weighted,
      evaluate_cost(graph, tree, constrained_treematch_map(graph, tree, ctx).mapping).weighted);
}

TEST(ConstrainedMapping, TreeMatchMapOnAllowedCoresAsGoodAsOnTheWholeMachine) {
  // Arrange: irregular patterns of 200 processes on 256 cores, all allowed but the last (which
  // they do not need): the driver's seeds and refinement on the allowed cores should find what
  // they find on the whole machine, where constrained_treematch_map alone walks every full
  // subtree below the root.
  const Topology tree = Topology({TreeLevel{4, 1000.0, "switch"}, TreeLevel{4, 100.0, "node"},
                                  TreeLevel{2, 10.0, "pack"}, TreeLevel{8, 1.0, "core"}},
                                 /*leaf_os_index=*/{}, /*machine_level=*/2);
  std::vector<Index> allowed(static_cast<std::size_t>(tree.leaf_count() - 1));
  std::iota(allowed.begin(), allowed.end(), 0);
  for (const std::uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    const CommGraph graph = random_sparse_graph(200, /*degree=*/4, seed);
    const Context ctx = constrained(allowed, 1);
    const double whole = treematch_map(graph, tree, default_context()).cost.weighted;
    const double alone =
        evaluate_cost(graph, tree, constrained_treematch_map(graph, tree, ctx).mapping).weighted;

    // Act
    const TreeMatchResult result = treematch_map(graph, tree, ctx);

    // Assert
    ASSERT_EQ(placement_error(result.mapping, 200, tree, ctx.placement), "");
    EXPECT_DOUBLE_EQ(result.cost.weighted, evaluate_cost(graph, tree, result.mapping).weighted);
    EXPECT_LT(result.cost.weighted, alone);
    EXPECT_LE(result.cost.weighted, whole * (1.0 + 1e-9));
  }
}

TEST(ConstrainedMapping, TraceDescribesTheTopDownPhase) {
  const Topology tree = tree_of({4, 2, 2});
  const CommGraph graph = random_sparse_graph(8, /*degree=*/2, 3);
  const TreeMatchResult result =
      constrained_treematch_map(graph, tree, constrained({1, 2, 3, 5, 8, 9, 10, 11, 14}, 1));
  ASSERT_FALSE(result.levels.empty());
  EXPECT_EQ(result.levels.front().heuristic, "constrained top-down");
  EXPECT_EQ(result.levels.front().order, 8);
  EXPECT_EQ(result.levels.front().arity, 4);
  EXPECT_EQ(result.levels.back().heuristic, "bottom-up TreeMatch on full subtrees");
}

TEST(ConstrainedMapping, EdgeCases) {
  const Topology tree = tree_of({2, 2});
  // No process.
  EXPECT_TRUE(constrained_treematch_map(CommGraph::from_triplets(0, {}), tree, constrained({1}, 1))
                  .mapping.leaf_of_rank.empty());
  // One process, one allowed leaf.
  EXPECT_EQ(constrained_treematch_map(CommGraph::from_triplets(1, {}), tree, constrained({2}, 1))
                .mapping.leaf_of_rank,
            (std::vector<Index>{2}));
  // Processes without any communication still get distinct allowed leaves.
  const Mapping silent =
      constrained_treematch_map(CommGraph::from_triplets(3, {}), tree, constrained({0, 1, 3}, 1))
          .mapping;
  EXPECT_EQ(std::set<Index>(silent.leaf_of_rank.begin(), silent.leaf_of_rank.end()),
            (std::set<Index>{0, 1, 3}));
  // A one-leaf topology.
  EXPECT_EQ(constrained_treematch_map(CommGraph::from_triplets(2, {Triplet{0, 1, 5}}),
                                      Topology({}, {}), constrained({0}, 2))
                .mapping.leaf_of_rank,
            (std::vector<Index>{0, 0}));
}

TEST(ConstrainedMapping, BadPlacementIsAnError) {
  const Topology tree = tree_of({2, 2});
  const CommGraph graph = random_sparse_graph(2, /*degree=*/1, 1);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({2, 1}, 1)),
               std::invalid_argument);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({1, 1}, 1)),
               std::invalid_argument);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({1, 4}, 1)),
               std::invalid_argument);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({-1, 1}, 1)),
               std::invalid_argument);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({1, 3}, 0)),
               std::invalid_argument);
  EXPECT_THROW(constrained_treematch_map(graph, tree, constrained({1}, 1)), std::invalid_argument);
  EXPECT_THROW(treematch_map(graph, tree, constrained({1}, 1)), std::invalid_argument);
}

//   8 x 8 grid, unit weights: 4 parts of 16; quadrants cut 16, strips 24.
TEST(SplitProcesses, GridSplitsIntoCompactParts) {
  std::vector<Triplet> triplets;
  for (Index r = 0; r < 8; ++r) {
    for (Index c = 0; c < 8; ++c) {
      if (c + 1 < 8) triplets.push_back(Triplet{r * 8 + c, r * 8 + c + 1, 1});
      if (r + 1 < 8) triplets.push_back(Triplet{r * 8 + c, (r + 1) * 8 + c, 1});
    }
  }
  const CommGraph graph = CommGraph::from_triplets(64, std::move(triplets));
  const std::vector<Index> part = split_processes(graph.view(), {16, 16, 16, 16});
  std::vector<int> size(4, 0);
  for (Index q : part) ++size[static_cast<std::size_t>(q)];
  EXPECT_EQ(size, (std::vector<int>{16, 16, 16, 16}));
  EXPECT_LE(cut_weight(graph.view(), part), 24.0);
}

TEST(SplitProcesses, FindsDisconnectedCliquesWhateverTheNumbering) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<Index> perm = random_permutation(12, seed);
    std::vector<Triplet> triplets;  // cliques {0..3}, {4..7}, {8..11} before relabelling
    for (Index a = 0; a < 12; ++a) {
      for (Index b = 0; b < 12; ++b) {
        if (a != b && a / 4 == b / 4)
          triplets.push_back(
              Triplet{perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)], 7});
      }
    }
    // A weak chain across the cliques, so that growing is tempted to cross.
    triplets.push_back(Triplet{perm[3], perm[4], 1});
    triplets.push_back(Triplet{perm[7], perm[8], 1});
    const CommGraph graph = CommGraph::from_triplets(12, std::move(triplets));
    const std::vector<Index> part = split_processes(graph.view(), {4, 4, 4});
    EXPECT_EQ(cut_weight(graph.view(), part), 2.0) << "seed " << seed;
  }
}

TEST(SplitProcesses, SwapsRepairAGreedyMistake) {
  //   clique A {0, 1, 2, 3}, clique B {4, 5, 6, 7}, weight 10 inside; 0 -- 4, 0 -- 5 at 12.
  // Growing from the heaviest process 0 takes 4, 5 (12 each) then 6: {0, 4, 5, 6} | {1, 2, 3, 7},
  // cut 60; swapping 0 and 7 (gain 6 + 30) reaches the minimum.
  std::vector<Triplet> triplets;
  for (Index a = 0; a < 8; ++a) {
    for (Index b = a + 1; b < 8; ++b) {
      if (a / 4 == b / 4) triplets.push_back(Triplet{a, b, 10});
    }
  }
  triplets.push_back(Triplet{0, 4, 12});
  triplets.push_back(Triplet{0, 5, 12});
  const CommGraph graph = CommGraph::from_triplets(8, std::move(triplets));
  const std::vector<Index> part = split_processes(graph.view(), {4, 4});
  // Best: A | B, cut 24.
  EXPECT_EQ(cut_weight(graph.view(), part), 24.0);
}

TEST(SplitProcesses, EverySwapPassLowersOrKeepsTheCut) {
  // Integer volumes: sums are exact, so the cut must not grow by even one unit per pass.
  int improved = 0;  // splits where the swaps lowered the greedy cut
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Index n = 40 + static_cast<Index>(seed * 7 % 60);
    const CommGraph graph = random_sparse_graph(n, /*degree=*/3, seed);
    const std::vector<Index> sizes = {n / 3, n / 4, n / 5, n - n / 3 - n / 4 - n / 5};
    double previous =
        cut_weight(graph.view(), split_processes(graph.view(), sizes, /*swap_passes=*/0));
    const double greedy = previous;
    for (int passes = 1; passes <= kSplitSwapPasses; ++passes) {
      const std::vector<Index> part = split_processes(graph.view(), sizes, passes);
      const double cut = cut_weight(graph.view(), part);
      EXPECT_LE(cut, previous) << "seed " << seed << " passes " << passes;
      previous = cut;
    }
    EXPECT_EQ(previous, cut_weight(graph.view(), split_processes(graph.view(), sizes)));
    if (previous < greedy) ++improved;
  }
  EXPECT_GE(improved, 15) << "the swaps rarely find anything";
}

TEST(SplitProcesses, BadSizesAreAnError) {
  const CommGraph graph = random_sparse_graph(5, /*degree=*/2, 1);
  EXPECT_THROW(split_processes(graph.view(), {2, 2}), std::invalid_argument);
  EXPECT_THROW(split_processes(graph.view(), {5, 0}), std::invalid_argument);
  EXPECT_THROW(split_processes(graph.view(), {2, 3}, /*swap_passes=*/-1), std::invalid_argument);
  EXPECT_EQ(split_processes(graph.view(), {5}), (std::vector<Index>(5, 0)));
}

}  // namespace
}  // namespace treematch
