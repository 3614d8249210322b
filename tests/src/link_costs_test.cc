// Per-level link costs: the weighted objective changes the mapping where hop-bytes would not.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "src/strategies/prioritised_links.h"
#include "src/top_down/top_down_mapping.h"
#include "src/walk/bottom_up.h"
#include "src/walk/mapping_input.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::random_sparse_graph;
using testing::tree_of;

/// Eight processes: pairs {0,1} {2,3} {4,5} {6,7} exchange 10; the even ones all exchange 6 with
/// each other, and so do the odd ones. On the 2x2x2 tree
///
///              root                     hop-bytes: pairs on leaf pairs, pairs of pairs under
///          /          \                 one node (cost 928, against 960 for the other);
///      n0              n1               costs 1:1:100 (bottom-up): the links under the root
///     /  \            /  \              dominate, so the evens go under one node and the odds
///   (.  .)(.  .)   (.  .)(.  .)         under the other, splitting every pair.
CommGraph pairs_and_halves() {
  std::vector<Triplet> triplets;
  for (Index p = 0; p < 4; ++p) {
    triplets.push_back({2 * p, 2 * p + 1, 10.0});
    triplets.push_back({2 * p + 1, 2 * p, 10.0});
  }
  for (Index a = 0; a < 8; ++a) {
    for (Index b = 0; b < 8; ++b) {
      if (a != b && a % 2 == b % 2) triplets.push_back({a, b, 6.0});
    }
  }
  return CommGraph::from_triplets(8, triplets);
}

TEST(LinkCosts, WithLinkCostsSetsThemBottomUp) {
  const Topology tree = tree_of({4, 2, 8});
  const Topology costly = tree.with_link_costs({1, 10, 100});
  EXPECT_EQ(costly.levels()[0].link_cost, 100.0);
  EXPECT_EQ(costly.levels()[2].link_cost, 1.0);
  EXPECT_DOUBLE_EQ(costly.weighted_distance(0, 1), 2.0);     // siblings
  EXPECT_DOUBLE_EQ(costly.weighted_distance(0, 8), 22.0);    // same top node
  EXPECT_DOUBLE_EQ(costly.weighted_distance(0, 16), 222.0);  // across the root
  EXPECT_TRUE(tree.uniform_link_costs());
  EXPECT_FALSE(costly.uniform_link_costs());
  EXPECT_EQ(costly.to_tleaf(), "tleaf 3 4 100 2 10 8 1");
}

TEST(LinkCosts, WrongCountOrValueIsAnErrorNamingTheLevels) {
  const Topology tree = tree_of({4, 2, 8});
  try {
    (void)tree.with_link_costs({1, 10});
    FAIL() << "two costs for three levels were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2 link costs given for 3 levels"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)tree.with_link_costs({1, -1, 3}), std::invalid_argument);
}

TEST(LinkCosts, ChangeTheMappingWhereHopBytesAndWeightedCostDisagree) {
  const CommGraph graph = pairs_and_halves();
  const Topology hops = tree_of({2, 2, 2});
  const Topology costly = hops.with_link_costs({1, 1, 100});
  const Context ctx = default_context();
  const Mapping by_hops = treematch_map(graph, hops, ctx).mapping;
  const Mapping by_cost = treematch_map(graph, costly, ctx).mapping;
  EXPECT_NE(by_hops.leaf_of_rank, by_cost.leaf_of_rank);
  // Each is the better one for its own objective.
  EXPECT_EQ(evaluate_cost(graph, hops, by_hops).hop_bytes, 928.0);
  EXPECT_EQ(evaluate_cost(graph, hops, by_cost).hop_bytes, 960.0);
  EXPECT_LT(evaluate_cost(graph, costly, by_cost).weighted,
            evaluate_cost(graph, costly, by_hops).weighted);
  // Evens share a top node, odds the other.
  for (Index r = 2; r < 8; r += 2) {
    EXPECT_EQ(by_cost.leaf_of_rank[static_cast<std::size_t>(r)] / 4, by_cost.leaf_of_rank[0] / 4);
    EXPECT_EQ(by_cost.leaf_of_rank[static_cast<std::size_t>(r + 1)] / 4,
              by_cost.leaf_of_rank[1] / 4);
  }
}

TEST(LinkCosts, PrioritisedArityMergesTheLevelsBelow) {
  const Topology tree = tree_of({4, 2, 2, 8});
  EXPECT_EQ(prioritised_arities(tree, 1), (std::vector<Index>{32, 4}));
  EXPECT_EQ(prioritised_arities(tree, 2), (std::vector<Index>{16, 2, 4}));
  const Topology costly = tree.with_link_costs({1, 2, 10, 100});
  EXPECT_FALSE(prioritises_links(tree, 128, PrioritisedLinksContext{}));
  EXPECT_TRUE(prioritises_links(costly, 128, PrioritisedLinksContext{}));
}

TEST(TopDown, GivesADeterministicPermutation) {
  const Topology tree = tree_of({4, 4, 2, 4});
  const CommGraph graph = random_sparse_graph(120, 4, 5);
  const SubtreeMapping walk = [](const CommGraph& sub, const Topology& subtree) {
    return bottom_up_mapping(LocalMappingInput(sub), subtree, GroupingContext{}, WalkContext{});
  };
  const auto top_down = [&](const CommGraph& g, int depth) {
    return top_down_treematch_map(g, tree, depth, NodeSplit::kGreedy, PartitionContext{}, walk);
  };
  const TreeMatchResult first = top_down(graph, 2);
  const auto& leaves = first.mapping.leaf_of_rank;
  EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 120u);
  for (const Index leaf : leaves) {
    EXPECT_GE(leaf, 0);
    EXPECT_LT(leaf, 128);
  }
  EXPECT_EQ(top_down(graph, 2).mapping.leaf_of_rank, leaves);
  EXPECT_THROW((void)top_down(random_sparse_graph(129, 2, 1), 1), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
