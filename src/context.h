// Options of a mapping run, one sub-struct per phase; presets patch a copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/types.h"

namespace treematch {

/// How one level's groups are chosen (GroupProcesses of the paper).
struct GroupingContext {
  /// Enumerate every k-subset while C(p, k) stays at or below this; above it, candidates come
  /// from communication neighbourhoods.
  double exhaustive_limit = 20000.0;
  /// Neighbourhood candidates started per process (with each of its heaviest partners).
  int seeds_per_process = 2;
  /// Candidates grow along at most this many strongest links per process (at least 4k): dense
  /// rows would otherwise make growth O(p) per member.
  kernels::Index strongest_links = 64;
  /// Swap rounds that repair each level's partition before aggregation (0 = none).
  int partition_passes = 2;
  /// Candidate rounds over the processes left ungrouped before the final deterministic packing.
  int max_rounds = 3;
  /// The three independent-set heuristics of the paper; the level keeps the cheapest result.
  bool smallest_value_first = true;
  bool largest_index_last = true;
  bool weighted_degree_first = true;
  /// Work budget (conflict-list entries) above which the weighted-degree heuristic is skipped,
  /// as the paper's threshold; counted, not timed, so results stay deterministic.
  double weighted_degree_budget = 5.0e7;
  /// Search steps allowed to the largest-index-last heuristic per level.
  std::int64_t largest_index_budget = 200000;
};

/// Which arities TreeMatch walks (Table 2 of the seed paper).
enum class AritySplit {
  kTable2,  ///< split a level of arity k into k/d then d exactly when C(p,k) > d C(p,k/d)
  kNever,   ///< walk the tree's own arities
  kBest,    ///< walk both and keep the cheaper mapping (ties: Table 2)
};

struct TreeContext {
  AritySplit split = AritySplit::kBest;
};

/// Where processes may go.
struct PlacementContext {
  kernels::Index oversubscribe = 1;            ///< processes allowed per leaf
  std::vector<kernels::Index> allowed_leaves;  ///< logical leaves usable; empty = all
};

/// What happens to TreeMatch's mapping afterwards.
struct RefinementContext {
  bool swaps = false;         ///< swap refinement along communication links (never raises the cost)
  int passes = 3;             ///< at most this many passes over the ranks
  int partners = 4;           ///< each rank looks at leaves next to its heaviest partners
  bool keep_identity = true;  ///< return the identity (rank i on slot i) if it costs less
};

struct BaselineContext {
  std::uint64_t seed = 1;  ///< random and MPIPP starts
};

struct Context {
  GroupingContext grouping;
  TreeContext tree;
  PlacementContext placement;
  RefinementContext refinement;
  BaselineContext baselines;
  int threads = 0;  ///< 0 = all hardware threads
};

std::string to_string(AritySplit split);

/// The default preset.
Context default_context();

/// Prints the effective context, one option per line (verbose mode).
std::string describe(const Context& ctx);

}  // namespace treematch
