// The congestion objective: lowers the norm within the cost budget, keeps a valid mapping, repeats.
#include "src/refine/congestion_refinement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <tbb/global_control.h>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::random_permutation;
using testing::random_sparse_graph;

/// 4 switches x 4 nodes x 2 packages x 4 cores (128 leaves), 2 levels above a machine, costs
/// 1000:100:10:1 from the top.
Topology congestion_cluster() {
  return Topology({TreeLevel{4, 1000.0, "switch"}, TreeLevel{4, 100.0, "node"},
                   TreeLevel{2, 10.0, "pack"}, TreeLevel{4, 1.0, "core"}},
                  /*leaf_os_index=*/{}, /*machine_level=*/2);
}

/// 4 machines of 8 cores, a card each.
Topology four_machines_of_eight() {
  return Topology({TreeLevel{4, 100.0, "node"}, TreeLevel{8, 1.0, "core"}},
                  /*leaf_os_index=*/{}, /*machine_level=*/1);
}

/// `n` ranks that all talk to each other, equally.
CommGraph clique(Index n) {
  std::vector<Triplet> triplets;
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < n; ++j) {
      if (i != j) triplets.push_back({i, j, 1.0});
    }
  }
  return CommGraph::from_triplets(n, triplets);
}

double norm_of(const CommGraph& graph, const Topology& tree, const LinkModel& links,
               const std::vector<Index>& leaves) {
  return link_loads(graph, tree, links, Mapping{leaves}).congestion_norm;
}

TEST(LowerCongestion, LowersTheNormWithinTheCostBudgetAndKeepsAValidMapping) {
  const Topology tree = congestion_cluster();
  const LinkModel links = preset_link_model(tree, LinkPreset::kFatTree);
  for (const double tolerance : {0.0, 0.05}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(::testing::Message() << "tolerance " << tolerance << " seed " << seed);
      // Arrange: a random pattern on 120 of the 128 cores, mapped by the default preset.
      const CommGraph graph = random_sparse_graph(120, 6, seed);
      std::vector<Index> leaves =
          treematch_map(graph, tree, preset_context(Preset::kDefault)).mapping.leaf_of_rank;
      const double weighted = evaluate_cost(graph, tree, Mapping{leaves}).weighted;
      const double norm = norm_of(graph, tree, links, leaves);
      ObjectiveContext ctx;
      ctx.kind = Objective::kCongestion;
      ctx.sum_tolerance = tolerance;

      // Act
      const CongestionStats stats = lower_congestion(graph, tree, links, leaves, ctx);

      // Assert: distinct leaves of the tree; the norm and cost recomputed independently.
      EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), leaves.size());
      for (const Index leaf : leaves) ASSERT_TRUE(leaf >= 0 && leaf < tree.leaf_count());
      const double weighted_after = evaluate_cost(graph, tree, Mapping{leaves}).weighted;
      const double norm_after = norm_of(graph, tree, links, leaves);
      EXPECT_LE(weighted_after, weighted * (1.0 + tolerance) * (1.0 + 1e-12));
      EXPECT_DOUBLE_EQ(stats.norm_before, norm);
      EXPECT_DOUBLE_EQ(stats.norm_after, norm_after);
      EXPECT_NEAR(stats.weighted_after, weighted_after, 1e-9 * weighted_after);
      EXPECT_LE(norm_after, norm);
      // A random pattern leaves room: with a 5% budget the norm drops.
      if (tolerance > 0.0) {
        EXPECT_GT(stats.moves, 0);
        EXPECT_LT(norm_after, norm);
      }
    }
  }
}

TEST(LowerCongestion, MovesOntoFreeCoresToo) {
  // Arrange: ranks 0-7 all talk to each other, split 4 + 4 over two machines of 8 cores, so both
  // cards carry their traffic; machine 0 has 4 free cores: the second half can move there.
  const Topology tree = four_machines_of_eight();
  const CommGraph graph = clique(8);
  std::vector<Index> leaves = {0, 1, 2, 3, 8, 9, 10, 11};
  const LinkModel links = preset_link_model(tree, LinkPreset::kFatTree);
  ObjectiveContext ctx;
  ctx.kind = Objective::kCongestion;

  // Act
  const CongestionStats stats = lower_congestion(graph, tree, links, leaves, ctx);

  // Assert: every rank on one machine; nothing crosses a card.
  EXPECT_GT(stats.moves, 0);
  std::set<Index> machines;
  for (const Index leaf : leaves) machines.insert(leaf / 8);
  EXPECT_EQ(machines.size(), 1U);
  const LinkLoads loads = link_loads(graph, tree, links, Mapping{leaves});
  EXPECT_EQ(loads.levels[0].max_bytes, 0.0);
}

TEST(LowerCongestion, MovesOnlyOntoAllowedCores) {
  // Arrange: as above, but only machine 0's free cores are allowed: the ranks can meet there
  // only (the free cores beside their partners on machine 1 and the empty machines' are not).
  const Topology tree = four_machines_of_eight();
  const CommGraph graph = clique(8);
  std::vector<Index> leaves = {0, 1, 2, 3, 8, 9, 10, 11};
  const std::vector<Index> allowed = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const LinkModel links = preset_link_model(tree, LinkPreset::kFatTree);
  ObjectiveContext ctx;
  ctx.kind = Objective::kCongestion;

  // Act
  const CongestionStats stats = lower_congestion(graph, tree, links, leaves, ctx, allowed);

  // Assert: every rank on an allowed core of machine 0; nothing crosses a card.
  EXPECT_GT(stats.moves, 0);
  for (const Index leaf : leaves) {
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), leaf), allowed.end()) << leaf;
    EXPECT_EQ(leaf / 8, 0) << leaf;
  }
  EXPECT_EQ(link_loads(graph, tree, links, Mapping{leaves}).levels[0].max_bytes, 0.0);
}

/// The driver's mapping of `graph` with --objective congestion (`sum` with the objective
/// changed) at 1, 2 and 4 threads, each checked against `sum`'s: the norm lower, the weighted cost
/// within the 1% budget and as reported, the same mapping every time. Returns the mapping.
std::vector<Index> expect_congestion_lowers_the_norm(const CommGraph& graph, const Topology& tree,
                                                     const Context& sum) {
  const TreeMatchResult by_sum = treematch_map(graph, tree, sum);
  Context congestion = sum;
  congestion.objective.kind = Objective::kCongestion;
  std::vector<Index> first;
  for (const int threads : {1, 2, 4}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));

    // Act
    const TreeMatchResult result = treematch_map(graph, tree, congestion);

    // Assert
    EXPECT_DOUBLE_EQ(result.cost.weighted, evaluate_cost(graph, tree, result.mapping).weighted);
    EXPECT_LE(result.cost.weighted, by_sum.cost.weighted * 1.01 * (1.0 + 1e-12));
    EXPECT_LT(norm_of(graph, tree, sum.objective.links, result.mapping.leaf_of_rank),
              norm_of(graph, tree, sum.objective.links, by_sum.mapping.leaf_of_rank));
    EXPECT_NE(result.strategy.find("+ congestion"), std::string::npos) << result.strategy;
    if (first.empty()) first = result.mapping.leaf_of_rank;
    EXPECT_EQ(result.mapping.leaf_of_rank, first);
  }
  return first;
}

TEST(TreeMatchObjective, CongestionLowersTheNormOnARestrictedMachine) {
  // Arrange: the cluster without the last core of each package (--cores, or a machine with
  // holes: the constrained mapping), 90 processes of a random pattern, and 180 two per core.
  const Topology tree = congestion_cluster();
  std::vector<Index> allowed;
  for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    if (leaf % 4 != 3) allowed.push_back(leaf);
  }
  for (const Index per_core : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << per_core << " per core");
    const CommGraph graph = random_sparse_graph(per_core == 1 ? 90 : 180, 6, /*seed=*/3);
    Context sum = preset_context(Preset::kDefault);
    sum.placement.allowed_leaves = allowed;
    sum.placement.oversubscribe = per_core;
    sum.objective.links = preset_link_model(tree, LinkPreset::kFatTree);

    // Act, and the common assertions
    const std::vector<Index> leaves = expect_congestion_lowers_the_norm(graph, tree, sum);

    // Assert: allowed cores only, per_core processes on each at most.
    std::vector<int> on_core(static_cast<std::size_t>(tree.leaf_count()), 0);
    for (const Index leaf : leaves) {
      EXPECT_NE(leaf % 4, 3) << leaf;
      EXPECT_LE(++on_core[static_cast<std::size_t>(leaf)], per_core);
    }
  }
}

TEST(TreeMatchObjective, CongestionLowersTheNormOfTheSumsMappingAndRepeatsAtAnyThreadCount) {
  // Arrange: a random pattern on every core of the cluster, ranks in random order.
  const Topology tree = congestion_cluster();
  const CommGraph graph = random_sparse_graph(128, 8, /*seed=*/11);
  Context sum = preset_context(Preset::kDefault);
  sum.objective.links = preset_link_model(tree, LinkPreset::kFatTree);

  // Act and assert
  expect_congestion_lowers_the_norm(graph, tree, sum);
}

TEST(TreeMatchObjective, OversubscribedTreesGetFreeLinksBetweenTheProcessesOfACore) {
  // Arrange: 256 processes, two per core; the driver maps onto a tree one level deeper.
  const Topology tree = congestion_cluster();
  const CommGraph graph = random_sparse_graph(256, 6, /*seed=*/5);
  Context ctx = preset_context(Preset::kFast);
  ctx.placement.oversubscribe = 2;
  ctx.objective.kind = Objective::kCongestion;
  ctx.objective.links = preset_link_model(tree, LinkPreset::kFatTree);

  // Act
  const TreeMatchResult result = treematch_map(graph, tree, ctx);

  // Assert: two processes per core at most, the cost as reported.
  std::vector<int> per_core(static_cast<std::size_t>(tree.leaf_count()), 0);
  for (const Index leaf : result.mapping.leaf_of_rank)
    EXPECT_LE(++per_core[static_cast<std::size_t>(leaf)], 2);
  EXPECT_DOUBLE_EQ(result.cost.weighted, evaluate_cost(graph, tree, result.mapping).weighted);
}

}  // namespace
}  // namespace treematch
