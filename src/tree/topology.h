// The machine model: a balanced tree with per-level arities and link costs, possibly with holes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;
using kernels::Offset;

/// The most leaves (positions) a Topology holds: 2^26, about 1.3 GB of per-leaf tables. Readers
/// given the leaves a job needs read larger descriptions as the part it uses (prefix_levels).
inline constexpr std::int64_t kMaxLeaves = std::int64_t{1} << 26;

/// One level of the tree below the root: every node of the level above has `arity` children here,
/// and the link from such a child to its parent costs `link_cost`.
struct TreeLevel {
  Index arity = 1;
  double link_cost = 1.0;
  std::string name;  ///< e.g. "Package", "Core", "level 2"; for messages and reports only
};

/// A balanced tree. Levels are root first; leaf positions are numbered 0..leaf_count()-1 left to
/// right and each carries an OS (physical) index.
///
/// An unbalanced machine (a restricted allocation, a hybrid CPU, nodes of different sizes) is
/// held as a balanced superset with holes: positions with no leaf behind them (OS index -1, see
/// src/tree/unbalanced_tree.h). The algorithms work on the balanced tree and never place a process
/// on a hole. The logical index of a leaf, what users and launchers call "logical", is its rank
/// among the present leaves in tree order (hwloc's logical index of the core or PU); without
/// holes it equals the position. A leaf stands for one or more PUs (hardware threads): a core
/// with its threads, `cpus()`. Immutable once built.
class Topology {
 public:
  Topology() = default;
  /// Levels of arity 1 are dropped with their link cost (a reader whose costs are measurements
  /// first moves that cost to the branching level above, see io/tleaf_parser.h); hops() and
  /// common_ancestor_height() count levels of the reduced tree. `leaf_os_index` empty means
  /// OS index = position; otherwise it holds one entry per position: distinct non-negative OS
  /// indexes for the leaves and -1 for the holes (at least one leaf must be present).
  /// Throws std::invalid_argument for an arity < 1, a negative or non-finite link cost, a bad
  /// `leaf_os_index`, a `machine_level` outside [0, levels.size()] or more than kMaxLeaves leaves.
  /// `machine_level` = how many levels lie above one machine (node): 0 when the whole tree is one
  /// machine, 2 for "group:128 group:16 pack:2 core:4". Counted on the levels as given, before
  /// arity-1 levels are dropped, and adjusted for them.
  Topology(std::vector<TreeLevel> levels, std::vector<Index> leaf_os_index, int machine_level = 0);

  [[nodiscard]] const std::vector<TreeLevel>& levels() const { return levels_; }
  [[nodiscard]] int depth() const { return static_cast<int>(levels_.size()); }
  /// Positions of the balanced tree, holes included.
  [[nodiscard]] Index leaf_count() const { return leaf_count_; }
  /// OS index of the leaf at `leaf`, -1 for a hole.
  [[nodiscard]] Index os_index(Index leaf) const {
    return leaf_os_[static_cast<std::size_t>(leaf)];
  }
  [[nodiscard]] const std::vector<Index>& leaf_os_indexes() const { return leaf_os_; }
  /// Position of the leaf whose OS index is `os`, or -1.
  [[nodiscard]] Index leaf_of_os_index(Index os) const;

  /// Whether some positions are holes.
  [[nodiscard]] bool has_holes() const { return present_count_ != leaf_count_; }
  [[nodiscard]] bool is_present(Index leaf) const {
    return leaf_os_[static_cast<std::size_t>(leaf)] >= 0;
  }
  /// Leaves that exist (positions that are not holes).
  [[nodiscard]] Index present_leaf_count() const { return present_count_; }
  /// Their positions, increasing.
  [[nodiscard]] std::vector<Index> present_leaves() const;
  /// Rank of the leaf at `leaf` among the present leaves (-1 for a hole).
  [[nodiscard]] Index logical_index(Index leaf) const {
    return logical_of_leaf_.empty() ? leaf : logical_of_leaf_[static_cast<std::size_t>(leaf)];
  }
  /// Position of the leaf of logical index `logical`, or -1 when there is none.
  [[nodiscard]] Index leaf_of_logical(Index logical) const;

  /// OS indexes of the PUs the leaf at `leaf` stands for (a core: its hardware threads), in
  /// increasing order; {os_index(leaf)} unless set by with_leaf_cpus. Empty for a hole.
  [[nodiscard]] std::span<const Index> cpus(Index leaf) const;
  /// Whether some leaf stands for several PUs.
  [[nodiscard]] bool has_multi_cpu_leaves() const { return !cpu_offsets_.empty(); }
  /// A copy whose leaf `leaf` stands for cpus[offsets[leaf] .. offsets[leaf + 1]) (CSR, one row
  /// per position, empty rows exactly for the holes, each row increasing, non-negative). Rows of
  /// one entry equal to the OS index everywhere make no table. Throws std::invalid_argument for a
  /// table of the wrong shape.
  [[nodiscard]] Topology with_leaf_cpus(std::vector<Offset> offsets, std::vector<Index> cpus) const;

  /// Number of levels up to the lowest common ancestor of two leaves (0 when equal).
  [[nodiscard]] int common_ancestor_height(Index a, Index b) const;
  /// Tree edges on the path between two leaves: 2 x common_ancestor_height.
  [[nodiscard]] int hops(Index a, Index b) const { return 2 * common_ancestor_height(a, b); }
  /// Sum of link costs on the path between two leaves.
  [[nodiscard]] double weighted_distance(Index a, Index b) const;
  /// Leaves below one node at `depth` (0 = the root: all leaves; depth() = a leaf: 1).
  [[nodiscard]] Index leaves_below(int depth) const {
    return leaves_below_[static_cast<std::size_t>(depth)];
  }

  /// Levels above one machine (0 = the whole tree is one machine).
  [[nodiscard]] int machine_level() const { return machine_level_; }
  /// Leaves (cores) per machine.
  [[nodiscard]] Index leaves_per_machine() const { return leaves_below(machine_level_); }
  /// A copy whose machines hold `leaves` leaves each (must match a level boundary: the depth d with
  /// leaves_below(d) == leaves becomes machine_level()). Throws std::invalid_argument naming the
  /// valid sizes otherwise.
  [[nodiscard]] Topology with_machine_size(Index leaves) const;
  /// OS indexes of machine m are m x stride + (that machine's own OS index); 0 = not known, then
  /// a machine's own index is taken as the leaf's OS index minus the machine's smallest one.
  [[nodiscard]] Index machine_os_stride() const { return machine_os_stride_; }
  /// A copy that records how per-machine OS indexes were made globally distinct.
  [[nodiscard]] Topology with_machine_os_stride(Index stride) const {
    Topology copy = *this;
    copy.machine_os_stride_ = stride;
    return copy;
  }

  /// A copy with one more bottom level of `arity` and cost 0 (N processes per leaf).
  /// The new leaves are virtual: virtual leaf v sits on real leaf v / arity, and its OS index is
  /// os_index(v / arity) * arity + v % arity, so the OS indexes stay distinct integers (the real
  /// PU is that OS index divided by `arity`); the virtual leaves of a hole are holes, and each
  /// virtual leaf stands for the cpus of its real leaf. arity == 1 returns a plain copy.
  /// Throws std::invalid_argument if arity < 1.
  [[nodiscard]] Topology with_oversubscription(Index arity) const;
  /// A copy whose link costs are `bottom_up` (one per level of the reduced tree, the leaves' links
  /// first: `--link-costs 1:10:100` on a 3-level tree). Throws std::invalid_argument naming the
  /// levels when the count differs from depth() or a cost is negative or not finite.
  [[nodiscard]] Topology with_link_costs(const std::vector<double>& bottom_up) const;
  /// Throws std::invalid_argument unless `given` (values of `what`, e.g. "link costs", one per
  /// level, bottom-up) equals the number of levels: the message names the levels from the leaves.
  void check_per_level_count(std::size_t given, const std::string& what) const;
  /// True when every level's link costs the same (then the weighted cost is a multiple of the
  /// hop-bytes).
  [[nodiscard]] bool uniform_link_costs() const;
  /// "tleaf n a0 c0 ..." form, for messages and for Scotch ("tleaf 0" for a single leaf). Costs
  /// are printed in the shortest form that reads back to the same double.
  [[nodiscard]] std::string to_tleaf() const;
  /// "2x3x2" form for summaries ("1" for a single leaf).
  [[nodiscard]] std::string shape() const;

 private:
  // The defaults describe the one-leaf topology, so a default-constructed object is usable.
  std::vector<TreeLevel> levels_;
  std::vector<Index> leaf_os_{0};
  std::vector<Index> os_to_leaf_{0};  ///< [os] = logical leaf, -1 where no leaf has that OS index
  /// (os, leaf) sorted by os, used instead of os_to_leaf_ when the OS indexes are too sparse for a
  /// dense table (a few huge OS indexes must not allocate gigabytes).
  std::vector<std::pair<Index, Index>> sparse_os_to_leaf_;
  Index present_count_ = 1;
  std::vector<Index>
      logical_of_leaf_;  ///< [position] = logical index, -1 for a hole; empty: no hole
  std::vector<Index> leaf_of_logical_;  ///< [logical] = position; empty when there is no hole
  std::vector<Offset> cpu_offsets_;     ///< CSR rows of cpus_ per position; empty: cpus = {os}
  std::vector<Index> cpus_;
  void index_holes();
  std::vector<Index> leaves_below_{1};      ///< per depth 0..depth(): leaves under one node
  std::vector<double> cumulative_cost_{0};  ///< [h] = sum of the h lowest link costs
  /// Each leaf's digits (child index per level) packed into bit fields, root first, when they fit
  /// 64 bits: two leaves' common ancestor is then found from the highest differing bit in O(1).
  std::vector<std::uint64_t> leaf_code_;
  std::vector<std::uint8_t> height_of_bit_;  ///< [bit] = common-ancestor height if it differs first
  void build_leaf_codes();
  Index leaf_count_ = 1;
  int machine_level_ = 0;
  Index machine_os_stride_ = 0;
};

/// The name of the level of `levels` (root first) whose vertices are at `depth` (1: the root's
/// children), "depth d" when it has none; for messages and reports.
std::string level_name(const std::vector<TreeLevel>& levels, int depth);

/// The levels (root first, before arity-1 levels drop) of the part of a tree that a mapping of
/// `needed` leaves uses: the leftmost smallest subtree holding them, and at its top only as many
/// children as they fill. Levels above become arity 1, the partial level keeps the first
/// ceil(needed / leaves below one child) children; so the kept leaves are exactly the first
/// positions of the full tree, and their distances are those of the full tree. A tree never
/// shrinks below one subtree of `unit` leaves (a machine of --node-size: whole machines are
/// kept) and is returned unchanged when it holds at most `needed` leaves. Packing processes into
/// the smallest subtree never raises a cost on a tree, so nothing is lost; a huge described
/// tree (a cluster of 10^9 cores for 8 processes) then costs what is used.
std::vector<TreeLevel> prefix_levels(std::vector<TreeLevel> levels, std::int64_t needed,
                                     std::int64_t unit = 1);

}  // namespace treematch
