// Machine trees whose nodes differ (restricted allocations, hybrid CPUs, uneven nodes), and the
// balanced superset with holes that the mapping algorithms work on.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kernels/types.h"
#include "src/tree/topology.h"

namespace treematch {

/// A tree given by the path of each leaf: the child index taken at every level, root first.
/// Nodes of one level may have different numbers of children, and a leaf that skips a level (hwloc
/// allows it) has child index 0 there, under a single-child node. Leaves come in tree order.
class UnbalancedTree {
 public:
  /// `levels`: names, link costs and least arities, root first (the paths may ask for more
  /// children; give 1 to let them decide). `machine_level` as in Topology.
  explicit UnbalancedTree(std::vector<TreeLevel> levels, int machine_level = 0);

  /// Appends a leaf. `path` has one child index (>= 0) per level and must come after the previous
  /// leaf's path in lexicographic order; `os` is a distinct OS index >= 0; `cpus` the PU OS
  /// indexes the leaf stands for (increasing; empty = {os}). Throws std::invalid_argument
  /// otherwise.
  void add_leaf(std::span<const Index> path, Index os, std::span<const Index> cpus = {});

  [[nodiscard]] const std::vector<TreeLevel>& levels() const { return levels_; }
  [[nodiscard]] int depth() const { return static_cast<int>(levels_.size()); }
  [[nodiscard]] int machine_level() const { return machine_level_; }
  [[nodiscard]] Index leaf_count() const { return static_cast<Index>(os_.size()); }
  [[nodiscard]] std::span<const Index> path(Index leaf) const;
  [[nodiscard]] Index os_index(Index leaf) const { return os_[static_cast<std::size_t>(leaf)]; }
  [[nodiscard]] std::span<const Index> cpus(Index leaf) const;

 private:
  std::vector<TreeLevel> levels_;
  int machine_level_ = 0;
  std::vector<Index> digits_;  ///< leaf_count() x depth(), row per leaf
  std::vector<Index> os_;
  std::vector<kernels::Offset> cpu_offsets_{0};
  std::vector<Index> cpus_;
};

/// The smallest balanced tree that holds `tree`: the arity of each level is the largest number of
/// children a node of that level has (at least the level's own arity), a leaf with path (d_0 ..
/// d_n-1) sits at position sum_l d_l x leaves_below(l + 1), and every other position is a hole.
/// Levels of arity 1 drop as in Topology. A leaf's cpus carry over. Throws std::invalid_argument
/// when the tree has no leaf or the superset would exceed 2^31 - 1 positions.
///
/// Why a superset and not native unbalanced levels: every kernel (grouping, aggregation,
/// refinement, the multilevel splits) works on arities and leaf codes of a balanced tree; the
/// holes reach the algorithms as leaves that are not allowed (constrained_treematch_map maps top
/// down by capacity and runs the bottom-up TreeMatch inside every subtree without holes), so a
/// restricted machine maps exactly as the full machine does with --cores naming the same cores.
Topology balanced_superset(const UnbalancedTree& tree);

/// The present leaves of `topology` as an unbalanced tree (paths read off their positions), with
/// the topology's levels, machine level and cpus.
UnbalancedTree unbalanced_view(const Topology& topology);

/// One tree made of several: `top` gives the levels above them (network levels, machine_level =
/// its depth) and, for each tree i, the path of the node it hangs from (tops[i], one index per top
/// level, increasing). The trees' levels are aligned by name: the joined tree's levels below the
/// top are a shortest common supersequence of their names (so nodes of different CPU models, one
/// with a Die level and one without, still line up their packages and cores), and a tree that
/// lacks a level sits under a single child there. Leaf OS indexes and cpus of tree i become
/// i x stride + their own, stride = the largest OS index or cpu of any tree + 1 (returned in
/// `os_stride`), so they stay distinct. Throws std::invalid_argument when the tops are not
/// increasing or not one per tree.
UnbalancedTree join_trees(const std::vector<TreeLevel>& top,
                          const std::vector<std::vector<Index>>& tops,
                          const std::vector<UnbalancedTree>& trees, Index& os_stride);

}  // namespace treematch
