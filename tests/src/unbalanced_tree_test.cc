// Unbalanced machines: the balanced superset with holes, and TreeMatch's mappings on it against
// known optima (exhaustive search on small trees, block patterns on uneven nodes) and against the
// full machine with the same cores allowed.
#include "src/tree/unbalanced_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using kernels::at;
using testing::random_permutation;
using testing::random_sparse_graph;

/// A tree of the given level names with unit costs, leaves added from their paths (OS index =
/// order of addition).
UnbalancedTree tree_with(const std::vector<std::string>& names,
                         const std::vector<std::vector<Index>>& paths) {
  std::vector<TreeLevel> levels;
  for (const std::string& name : names) levels.push_back(TreeLevel{1, 1.0, name});
  UnbalancedTree tree(levels);
  for (std::size_t i = 0; i < paths.size(); ++i) tree.add_leaf(paths[i], static_cast<Index>(i));
  return tree;
}

// A restricted 2 x 4 node: package 0 offers its 4 cores, package 1 one core.
//
//              root
//          /          \            .
//      pack0          pack1
//    / |  |  \       /  |  |  \    .
//   0  1  2  3      4   -  -  -     <- position (- = hole)
const std::vector<std::vector<Index>> kRestricted{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}};

TEST(BalancedSuperset, PlacesLeavesByTheirPathsAndLeavesHoles) {
  const Topology tree = balanced_superset(tree_with({"Package", "Core"}, kRestricted));
  EXPECT_EQ(tree.shape(), "2x4");
  EXPECT_EQ(tree.leaf_os_indexes(), (std::vector<Index>{0, 1, 2, 3, 4, -1, -1, -1}));
  EXPECT_EQ(tree.present_leaf_count(), 5);
  EXPECT_EQ(tree.levels()[1].name, "Core");
}

TEST(BalancedSuperset, KeepsCpusLeastAritiesAndTheMachineLevel) {
  UnbalancedTree tree({TreeLevel{3, 1.0, "Node"}, TreeLevel{1, 1.0, "Core"}}, /*machine_level=*/1);
  const std::vector<Index> smt{4, 5};
  tree.add_leaf(std::vector<Index>{0, 0}, 4, smt);
  tree.add_leaf(std::vector<Index>{1, 1}, 9);
  const Topology balanced = balanced_superset(tree);
  EXPECT_EQ(balanced.shape(), "3x2");  // the Node level keeps its 3 slots
  EXPECT_EQ(balanced.machine_level(), 1);
  EXPECT_EQ(std::vector<Index>(balanced.cpus(0).begin(), balanced.cpus(0).end()), smt);
  EXPECT_EQ(std::vector<Index>(balanced.cpus(3).begin(), balanced.cpus(3).end()),
            std::vector<Index>{9});
  EXPECT_TRUE(balanced.cpus(4).empty());
}

TEST(BalancedSuperset, RejectsBadTrees) {
  EXPECT_THROW((void)balanced_superset(tree_with({"Core"}, {})), std::invalid_argument);
  UnbalancedTree out_of_order = tree_with({"Core"}, {{1}});
  EXPECT_THROW(out_of_order.add_leaf(std::vector<Index>{0}, 5), std::invalid_argument);
  EXPECT_THROW(out_of_order.add_leaf(std::vector<Index>{2, 0}, 5), std::invalid_argument);
  // 65536 x 65536 positions do not fit 2^31 - 1.
  EXPECT_THROW((void)balanced_superset(tree_with({"a", "b"}, {{0, 65535}, {65535, 0}})),
               std::invalid_argument);
}

TEST(UnbalancedView, GivesBackTheSameSuperset) {
  const Topology tree = balanced_superset(tree_with({"Package", "Core"}, kRestricted));
  const Topology again = balanced_superset(unbalanced_view(tree));
  EXPECT_EQ(again.shape(), tree.shape());
  EXPECT_EQ(again.leaf_os_indexes(), tree.leaf_os_indexes());
}

// ---- mapping quality on unbalanced trees
// ---------------------------------------------------------

/// The least weighted cost of a one-to-one mapping of `graph` onto the present leaves of `tree`
/// (as many as the processes), by trying every permutation.
double exhaustive_optimum(const CommGraph& graph, const Topology& tree) {
  std::vector<Index> leaves = tree.present_leaves();
  EXPECT_EQ(static_cast<Index>(leaves.size()), graph.size());
  double best = std::numeric_limits<double>::infinity();
  do {
    best = std::min(best, evaluate_cost(graph, tree, Mapping{leaves}).weighted);
  } while (std::next_permutation(leaves.begin(), leaves.end()));
  return best;
}

/// Ranks on the present leaves (in a shuffled order) exchange base^(depth - h) with the ranks h
/// levels up: the hierarchical pattern of a tree with holes.
CommGraph hierarchical_on_present(const Topology& tree, std::uint64_t seed, double base = 10.0) {
  const std::vector<Index> leaves = tree.present_leaves();
  const auto n = static_cast<Index>(leaves.size());
  const std::vector<Index> rank_of = random_permutation(n, seed);
  std::vector<Triplet> triplets;
  for (Index a = 0; a < n; ++a) {
    for (Index b = 0; b < n; ++b) {
      if (a == b) continue;
      const int h = tree.common_ancestor_height(leaves[static_cast<std::size_t>(a)],
                                                leaves[static_cast<std::size_t>(b)]);
      triplets.push_back(Triplet{rank_of[static_cast<std::size_t>(a)],
                                 rank_of[static_cast<std::size_t>(b)],
                                 std::pow(base, tree.depth() - h)});
    }
  }
  return CommGraph::from_triplets(n, std::move(triplets));
}

struct SmallTree {
  std::string name;
  std::vector<std::string> levels;
  std::vector<std::vector<Index>> paths;
};

// Unbalanced machines of at most 8 cores: every mapping can be tried.
const std::vector<SmallTree> kSmallTrees{
    {"restricted_4_1", {"Package", "Core"}, kRestricted},
    // Hybrid: 2 performance cores with an L2 each, 4 efficiency cores sharing one L2.
    {"hybrid", {"L2", "Core"}, {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {2, 3}}},
    // Two nodes of 3 and 5 cores (2 + 1 and 4 + 1 over two packages).
    {"uneven_nodes",
     {"Node", "Package", "Core"},
     {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}, {1, 0, 3}, {1, 1, 0}}},
    // Package 0 has two L3s of 2 and 1 cores (a disabled core); package 1 has no L3 level and 3
    // cores.
    {"disabled_cores",
     {"Package", "L3", "Core"},
     {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}}},
};

TEST(UnbalancedMapping, ReachesTheExhaustiveOptimumOfHierarchicalPatterns) {
  for (const SmallTree& small : kSmallTrees) {
    const Topology tree = balanced_superset(tree_with(small.levels, small.paths));
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const CommGraph graph = hierarchical_on_present(tree, seed);
      const TreeMatchResult result = treematch_map(graph, tree, default_context());
      for (const Index leaf : result.mapping.leaf_of_rank) ASSERT_TRUE(tree.is_present(leaf));
      EXPECT_DOUBLE_EQ(result.cost.weighted, exhaustive_optimum(graph, tree))
          << small.name << " seed " << seed;
    }
  }
}

TEST(UnbalancedMapping, ReachesTheOptimumOfHierarchicalPatternsOnLargerRestrictions) {
  // 4 nodes x 2 packages x 2 L3 x 4 cores with random cores taken away. The hierarchical pattern
  // (base 50: each level outweighs all the traffic above it) is optimal where it was made: every
  // pair as close as its weight asks.
  std::mt19937_64 rng(11);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::vector<Index>> paths;
    for (Index node = 0; node < 4; ++node) {
      for (Index pack = 0; pack < 2; ++pack) {
        for (Index l3 = 0; l3 < 2; ++l3) {
          Index kept = 0;
          for (Index core = 0; core < 4; ++core) {
            if (rng() % 4 != 0) paths.push_back({node, pack, l3, kept++});
          }
        }
      }
    }
    const Topology tree = balanced_superset(tree_with({"Node", "Package", "L3", "Core"}, paths));
    const CommGraph graph =
        hierarchical_on_present(tree, 100 + static_cast<std::uint64_t>(round), 50.0);
    // Where the pattern was made: rank_of[s] on the s-th present leaf.
    const std::vector<Index> rank_of =
        random_permutation(tree.present_leaf_count(), 100 + static_cast<std::uint64_t>(round));
    const std::vector<Index> present = tree.present_leaves();
    std::vector<Index> made(present.size());
    for (std::size_t s = 0; s < present.size(); ++s) made[at(rank_of[s])] = present[s];
    const double optimum = evaluate_cost(graph, tree, Mapping{made}).weighted;
    EXPECT_DOUBLE_EQ(treematch_map(graph, tree, default_context()).cost.weighted, optimum)
        << "round " << round << " (" << tree.present_leaf_count() << " cores)";
  }
}

TEST(UnbalancedMapping, StaysCloseToTheExhaustiveOptimumOfRandomPatterns) {
  // Random sparse patterns have no structure to find; TreeMatch stays within 15% here (measured:
  // most runs at the optimum).
  for (const SmallTree& small : kSmallTrees) {
    const Topology tree = balanced_superset(tree_with(small.levels, small.paths));
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const CommGraph graph = random_sparse_graph(tree.present_leaf_count(), 3, seed);
      const double ours = treematch_map(graph, tree, default_context()).cost.weighted;
      EXPECT_LE(ours, 1.15 * exhaustive_optimum(graph, tree)) << small.name << " seed " << seed;
    }
  }
}

TEST(UnbalancedMapping, BlocksFillTheirNodesOnUnevenNodes) {
  // Nodes of 8, 5 and 3 cores (2 packages of 4, of 4 + 1, of 2 + 1) under one switch; cliques of
  // 8, 5 and 3 ranks weighing 1000, 100 and 1, relabelled at random. The optimum puts each clique
  // on the node of its size: the 8-clique must have the only 8-core node, the 5-clique then the
  // only node with 5 left.
  std::vector<std::vector<Index>> paths;
  const std::vector<std::vector<Index>> per_package{{4, 4}, {4, 1}, {2, 1}};
  for (Index node = 0; node < 3; ++node) {
    for (Index pack = 0; pack < 2; ++pack) {
      for (Index core = 0;
           core < per_package[static_cast<std::size_t>(node)][static_cast<std::size_t>(pack)];
           ++core)
        paths.push_back({node, pack, core});
    }
  }
  const Topology tree = balanced_superset(tree_with({"Node", "Package", "Core"}, paths));
  ASSERT_EQ(tree.present_leaf_count(), 16);
  const std::vector<Index> rank_of = random_permutation(16, /*seed=*/9);
  const std::vector<std::pair<Index, double>> blocks{{8, 1000.0}, {5, 100.0}, {3, 1.0}};
  std::vector<Triplet> triplets;
  std::vector<Index> block_leaves;  // the optimal mapping: slot s of node b for block b's s-th rank
  Index first = 0;
  const std::vector<Index> present = tree.present_leaves();
  for (const auto& [size, weight] : blocks) {
    for (Index a = first; a < first + size; ++a) {
      for (Index b = first; b < first + size; ++b) {
        if (a != b)
          triplets.push_back(Triplet{rank_of[static_cast<std::size_t>(a)],
                                     rank_of[static_cast<std::size_t>(b)], weight});
      }
    }
    first += size;
  }
  std::vector<Index> optimal(16);
  for (Index s = 0; s < 16; ++s)
    optimal[static_cast<std::size_t>(rank_of[static_cast<std::size_t>(s)])] =
        present[static_cast<std::size_t>(s)];
  const CommGraph graph = CommGraph::from_triplets(16, std::move(triplets));
  const double best = evaluate_cost(graph, tree, Mapping{optimal}).weighted;
  const TreeMatchResult result = treematch_map(graph, tree, default_context());
  EXPECT_DOUBLE_EQ(result.cost.weighted, best);
  // Each clique on one node.
  for (Index a = 0; a < 16; ++a) {
    for (Index b = 0; b < 16; ++b) {
      const Index block_a = a < 8 ? 0 : a < 13 ? 1 : 2;
      const Index block_b = b < 8 ? 0 : b < 13 ? 1 : 2;
      const Index leaf_a =
          result.mapping
              .leaf_of_rank[static_cast<std::size_t>(rank_of[static_cast<std::size_t>(a)])];
      const Index leaf_b =
          result.mapping
              .leaf_of_rank[static_cast<std::size_t>(rank_of[static_cast<std::size_t>(b)])];
      EXPECT_EQ(block_a == block_b, leaf_a / 8 == leaf_b / 8) << a << " " << b;
    }
  }
}

TEST(UnbalancedMapping, ARestrictedMachineMapsAsTheFullOneWithTheSameCores) {
  // The full machine: 2 nodes x 2 packages x 4 cores. Restrictions keep random cores; the tree of
  // the restricted machine (what hwloc describes for a cgroup) against the full tree with those
  // cores allowed (--cores): never costlier, on the full tree's distances.
  const Topology full = testing::tree_of({2, 2, 4});
  std::mt19937_64 rng(5);
  int compared = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<Index> kept;
    for (Index leaf = 0; leaf < 16; ++leaf) {
      if (rng() % 3 != 0) kept.push_back(leaf);
    }
    if (kept.size() < 3) continue;
    // The restricted machine as an unbalanced tree: each kept core by its path, its own OS index.
    UnbalancedTree restricted_tree(
        {TreeLevel{1, 1.0, "Node"}, TreeLevel{1, 1.0, "Package"}, TreeLevel{1, 1.0, "Core"}});
    std::vector<Index> path(3);
    std::vector<Index> seen_in_package;  // child index among kept cores, as hwloc renumbers
    Index last_package = -1;
    Index core_index = 0;
    Index package_index = -1;
    Index last_node = -1;
    for (const Index leaf : kept) {
      const Index node = leaf / 8;
      const Index package = leaf / 4;
      if (node != last_node) {
        package_index = -1;
        last_node = node;
      }
      if (package != last_package) {
        ++package_index;
        core_index = 0;
        last_package = package;
      }
      path = {node, package_index, core_index++};
      restricted_tree.add_leaf(path, leaf);
    }
    const Topology restricted = balanced_superset(restricted_tree);
    const auto p = static_cast<Index>(kept.size());
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const CommGraph graph =
          random_sparse_graph(p, 3, seed + 100 * static_cast<std::uint64_t>(round));
      const TreeMatchResult on_restricted = treematch_map(graph, restricted, default_context());
      Context with_cores = default_context();
      with_cores.placement.allowed_leaves = kept;
      const TreeMatchResult on_full = treematch_map(graph, full, with_cores);
      // Both mappings on the full tree: a restricted leaf is the full leaf of its OS index.
      Mapping translated;
      for (const Index leaf : on_restricted.mapping.leaf_of_rank)
        translated.leaf_of_rank.push_back(restricted.os_index(leaf));
      EXPECT_LE(evaluate_cost(graph, full, translated).weighted,
                on_full.cost.weighted * (1 + 1e-12))
          << "round " << round << " seed " << seed;
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

}  // namespace
}  // namespace treematch
