// Test inputs: hierarchical patterns on balanced trees (optimal mapping known) and random graphs.
#pragma once

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/tree/topology.h"

namespace treematch::testing {

/// A tree of the given arities (root first), unit link costs, OS index = logical index.
inline Topology tree_of(const std::vector<Index>& arities) {
  std::vector<TreeLevel> levels;
  for (Index a : arities) levels.push_back(TreeLevel{a, 1.0, "level"});
  return Topology(levels, {});
}

/// The same with the link cost of each level (root first).
inline Topology costly_tree(const std::vector<Index>& arities, const std::vector<double>& costs) {
  std::vector<TreeLevel> levels;
  for (std::size_t i = 0; i < arities.size(); ++i)
    levels.push_back(TreeLevel{arities[i], costs[i], "level"});
  return Topology(levels, {});
}

/// Ranks that share a subtree h levels up exchange base^(depth - h): pairs under one leaf-parent
/// talk most, and so on. `rank_of_slot` relabels: the process at slot s is rank_of_slot[s].
inline CommGraph hierarchical_pattern(const Topology& tree, const std::vector<Index>& rank_of_slot,
                                      double base = 10.0) {
  const Index n = static_cast<Index>(rank_of_slot.size());
  std::vector<Triplet> triplets;
  for (Index a = 0; a < n; ++a) {
    for (Index b = 0; b < n; ++b) {
      if (a == b) continue;
      const int h = tree.common_ancestor_height(a, b);
      triplets.push_back(Triplet{rank_of_slot[static_cast<std::size_t>(a)],
                                 rank_of_slot[static_cast<std::size_t>(b)],
                                 std::pow(base, tree.depth() - h)});
    }
  }
  return CommGraph::from_triplets(n, std::move(triplets));
}

inline std::vector<Index> random_permutation(Index n, std::uint64_t seed) {
  std::vector<Index> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(seed);
  for (Index i = n - 1; i > 0; --i) {
    const auto j = static_cast<Index>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
}

/// A sparse random graph: each process sends to `degree` random others, integer volumes 1..100.
inline CommGraph random_sparse_graph(Index n, int degree, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Triplet> triplets;
  for (Index i = 0; i < n; ++i) {
    for (int d = 0; d < degree; ++d) {
      const auto j = static_cast<Index>(rng() % static_cast<std::uint64_t>(n));
      triplets.push_back(Triplet{i, j, static_cast<Weight>(1 + rng() % 100)});
    }
  }
  return CommGraph::from_triplets(n, std::move(triplets));
}

/// Symmetric C
///        0   1   2   3
///   0 [  0  10   2   1 ]
///   1 [ 10   0   3   0 ]
///   2 [  2   3   0   5 ]
///   3 [  1   0   5   0 ]
inline CommGraph symmetric_4x4() {
  return CommGraph::from_triplets(4, {{0, 1, 10},
                                      {1, 0, 10},
                                      {0, 2, 2},
                                      {2, 0, 2},
                                      {0, 3, 1},
                                      {3, 0, 1},
                                      {1, 2, 3},
                                      {2, 1, 3},
                                      {2, 3, 5},
                                      {3, 2, 5}});
}

}  // namespace treematch::testing
