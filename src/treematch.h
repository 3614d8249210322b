// The TreeMatch driver (Algorithm 1 of the seed paper): extend -> group -> aggregate per level,
// then map.
#pragma once

#include <string>
#include <vector>

#include "src/comm_graph.h"
#include "src/context.h"
#include "src/cost.h"
#include "src/mapping.h"
#include "src/mapping_input.h"
#include "src/topology.h"

namespace treematch {

/// What happened at one level of the (possibly split) tree, bottom-up.
struct LevelTrace {
  Index arity = 0;
  Index order = 0;       ///< (virtual) processes before extension
  Index artificial = 0;  ///< empty processes added by ExtendComMatrix
  std::string heuristic;
  bool exhaustive = false;
  std::size_t candidates = 0;
  double seconds = 0.0;
};

struct TreeMatchResult {
  Mapping mapping;  ///< logical leaves of the (non-oversubscribed) topology
  std::vector<LevelTrace> levels;
  long long refinement_swaps = 0;  ///< swaps the refinement applied
  bool identity_kept = false;      ///< the identity was cheaper than anything TreeMatch found
  MappingCost cost;                ///< of `mapping` on the topology it was asked for
};

/// Maps the graph's processes onto the topology's leaves. Throws std::invalid_argument when the
/// processes do not fit (more than leaves x oversubscribe, or than the allowed leaves).
TreeMatchResult treematch_map(const CommGraph& graph, const Topology& topology, const Context& ctx);

/// The same for an input whose rows may live on several MPI ranks (src/distributed): every rank
/// calls it and gets the mapping treematch_map(graph, ...) gives for the gathered graph.
TreeMatchResult treematch_map(const MappingInput& input, const Topology& topology,
                              const Context& ctx);

/// The arities TreeMatch walks, bottom-up, for p processes on `tree`, with Table 2 splitting when
/// `split`. With ctx.tree.split == kBest both walks run and the cheaper mapping (weighted cost)
/// wins.
std::vector<Index> walked_arities(const Topology& tree, Index processes, bool split);

/// Whether treematch_map also walks prioritised_arities: link costs that differ by level, at least
/// three levels, and at most ctx.prioritise_max_processes processes (treematch_map then skips the
/// depths whose merged arity exceeds ctx.prioritise_max_arity).
bool prioritises_links(const Topology& tree, Index processes, const TreeContext& ctx);

/// How many seeds the multilevel top-down candidate tries: ctx.multilevel_budget / entries,
/// clamped to [1, ctx.multilevel_max_runs] (a count, not a time, so results repeat).
int multilevel_runs(Offset entries, const TreeContext& ctx);

/// The walk that puts the links above depth `depth` first (1 <= depth < tree.depth() - 1): the
/// levels below it as one arity (tree.leaves_below(depth): processes are grouped straight into the
/// subtrees of that size, minimising the traffic that leaves them), then the levels above, bottom-
/// up. Inside a subtree the members are placed in order; the refinement arranges them.
std::vector<Index> prioritised_arities(const Topology& tree, int depth);

}  // namespace treematch
