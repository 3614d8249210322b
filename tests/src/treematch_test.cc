// The TreeMatch driver: the seed's worked example, hierarchical patterns with a known optimum,
// properties.
#include "src/driver/treematch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <tbb/global_control.h>

#include "src/model/cost.h"
#include "tests/seed_example.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::hierarchical_pattern;
using testing::random_permutation;
using testing::tree_of;

/// Seed 001, Fig. 9(a).
CommGraph seed_graph() {
  std::vector<Triplet> triplets;
  for (Index i = 0; i < 8; ++i) {
    for (Index j = 0; j < 8; ++j) {
      if (testing::kSeedMatrix[i][j] != 0)
        triplets.push_back(Triplet{i, j, testing::kSeedMatrix[i][j]});
    }
  }
  return CommGraph::from_triplets(8, std::move(triplets));
}

/// "pack:2 core:3 pu:2(indexes=0,2,4,6,8,10,1,3,5,7,9,11)"
Topology seed_topology() {
  return Topology(
      {TreeLevel{2, 1.0, "Package"}, TreeLevel{3, 1.0, "Core"}, TreeLevel{2, 1.0, "PU"}},
      {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
}

bool is_one_to_one(const Mapping& mapping, Index leaves) {
  std::set<Index> used;
  for (Index leaf : mapping.leaf_of_rank) {
    if (leaf < 0 || leaf >= leaves || !used.insert(leaf).second) return false;
  }
  return true;
}

TEST(TreeMatch, SeedExampleMapsToThePapersLeaves) {
  const Topology topology = seed_topology();
  const TreeMatchResult result = treematch_map(seed_graph(), topology, default_context());
  std::vector<Index> os;
  for (Index leaf : result.mapping.leaf_of_rank) os.push_back(topology.os_index(leaf));
  EXPECT_EQ(os, (std::vector<Index>{0, 2, 4, 6, 1, 3, 5, 7}));
  ASSERT_EQ(result.levels.size(), 3u);
  EXPECT_EQ(result.levels[1].artificial, 2);  // ExtendComMatrix: 4 groups on arity 3
}

TEST(TreeMatch, SeedExampleBeatsPackedAndRoundRobin) {
  const Topology topology = seed_topology();
  const CommGraph graph = seed_graph();
  const Mapping tm = treematch_map(graph, topology, default_context()).mapping;
  const Mapping packed{{0, 1, 2, 3, 4, 5, 6, 7}};
  const Mapping rr{{0, 6, 1, 7, 2, 8, 3, 9}};  // OS indexes 0..7
  const double ours = evaluate_cost(graph, topology, tm).hop_bytes;
  EXPECT_LT(ours, evaluate_cost(graph, topology, packed).hop_bytes);
  EXPECT_LT(ours, evaluate_cost(graph, topology, rr).hop_bytes);
}

struct HierarchicalCase {
  std::vector<Index> arities;  // root first
  bool neighbourhood_only;     // force neighbourhood candidates (no exhaustive enumeration)
};

class HierarchicalOptimum : public ::testing::TestWithParam<HierarchicalCase> {};

TEST_P(HierarchicalOptimum, PermutedPatternMapsAtOptimalCost) {
  const Topology tree = tree_of(GetParam().arities);
  const Index n = tree.leaf_count();
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Index> rank_of_slot = random_permutation(n, seed);
    const CommGraph graph = hierarchical_pattern(tree, rank_of_slot);
    Mapping optimal;  // each rank back on the slot the pattern was drawn on
    optimal.leaf_of_rank.resize(static_cast<std::size_t>(n));
    for (Index s = 0; s < n; ++s)
      optimal.leaf_of_rank[static_cast<std::size_t>(rank_of_slot[static_cast<std::size_t>(s)])] = s;
    Context ctx = default_context();
    if (GetParam().neighbourhood_only) ctx.grouping.exhaustive_limit = 1.0;

    const Mapping mapping = treematch_map(graph, tree, ctx).mapping;

    ASSERT_TRUE(is_one_to_one(mapping, n));
    const MappingCost ours = evaluate_cost(graph, tree, mapping);
    const MappingCost best = evaluate_cost(graph, tree, optimal);
    EXPECT_EQ(ours.hop_bytes, best.hop_bytes) << tree.shape() << " seed " << seed;
    const Mapping identity = [&] {
      Mapping m;
      m.leaf_of_rank.resize(static_cast<std::size_t>(n));
      std::iota(m.leaf_of_rank.begin(), m.leaf_of_rank.end(), 0);
      return m;
    }();
    EXPECT_LE(ours.hop_bytes, evaluate_cost(graph, tree, identity).hop_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Trees, HierarchicalOptimum,
    ::testing::Values(HierarchicalCase{{2, 2, 2}, false}, HierarchicalCase{{4, 2, 2}, false},
                      HierarchicalCase{{2, 3, 2, 2}, false}, HierarchicalCase{{3, 4, 2, 2}, false},
                      HierarchicalCase{{2, 2, 2, 2, 2}, false},
                      HierarchicalCase{{4, 4, 2, 2, 2}, true}, HierarchicalCase{{2, 8, 4, 2}, true},
                      HierarchicalCase{{3, 2, 2, 2, 2}, true}));

TEST(TreeMatch, FewerProcessesThanLeavesStillOneToOne) {
  const Topology tree = tree_of({2, 4, 2});
  const std::vector<Index> slots = random_permutation(10, 5);
  const CommGraph graph = hierarchical_pattern(tree_of({5, 2}), slots);
  const Mapping mapping = treematch_map(graph, tree, default_context()).mapping;
  EXPECT_EQ(mapping.leaf_of_rank.size(), 10u);
  EXPECT_TRUE(is_one_to_one(mapping, 16));
}

TEST(TreeMatch, OversubscriptionPutsAtMostNPerLeaf) {
  const Topology tree = tree_of({2, 2});
  const CommGraph graph = hierarchical_pattern(tree_of({2, 2, 3}), random_permutation(12, 2));
  Context ctx = default_context();
  ctx.placement.oversubscribe = 3;
  const Mapping mapping = treematch_map(graph, tree, ctx).mapping;
  std::vector<int> load(4, 0);
  for (Index leaf : mapping.leaf_of_rank) ++load[static_cast<std::size_t>(leaf)];
  EXPECT_EQ(load, (std::vector<int>{3, 3, 3, 3}));
}

TEST(TreeMatch, TooManyProcessesIsAnError) {
  const Topology tree = tree_of({2, 2});
  const CommGraph graph = hierarchical_pattern(tree_of({5}), random_permutation(5, 1));
  EXPECT_THROW(treematch_map(graph, tree, default_context()), std::invalid_argument);
}

TEST(TreeMatch, SameMappingForAnyThreadCount) {
  const Topology tree = tree_of({4, 4, 2, 2, 2});
  const CommGraph graph = hierarchical_pattern(tree, random_permutation(tree.leaf_count(), 9), 3.0);
  Context ctx = default_context();
  ctx.grouping.exhaustive_limit = 1.0;  // the parallel neighbourhood path
  std::vector<Mapping> mappings;
  for (int threads : {1, 2, 4, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    mappings.push_back(treematch_map(graph, tree, ctx).mapping);
  }
  for (const Mapping& m : mappings) EXPECT_EQ(m.leaf_of_rank, mappings.front().leaf_of_rank);
}

}  // namespace
}  // namespace treematch
