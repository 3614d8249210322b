// Large-neighbourhood search on a finished mapping: two sibling subtrees mapped again together.
#pragma once

#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/progress.h"
#include "src/tree/topology.h"

namespace treematch {

struct PairRemapStats {
  int depth = 0;          ///< depth of the subtrees paired (0: none were)
  int rounds = 0;         ///< passes over the pairs made
  long long pairs = 0;    ///< pairs mapped again
  long long changed = 0;  ///< ... whose new mapping was cheaper and replaced theirs
};

/// The depth whose subtrees are paired: the shallowest d in [1, tree.depth() - 1] whose nodes have
/// at least 3 siblings each (two children of a node that has only two are the whole node: mapping
/// them again is mapping it again); 0 when there is none.
int pair_depth(const Topology& tree);

/// Improves `leaf_of_rank` (distinct leaves of `tree`) in place. The multilevel top-down mapping
/// cuts the costliest links first, one bisection at a time, and each bisection is final: two
/// subtrees that end up talking a lot were often never split against each other, and the
/// refinement's exchanges of single processes and whole subtrees cannot reshape the boundary
/// between them. So for each two sibling subtrees at pair_depth(tree) that exchange traffic,
/// heaviest first, their processes are mapped again onto the two subtrees alone
/// (ctx.pair_remap.runs multilevel top-down mappings with their own seeds and
/// ctx.pair_remap.attempts bisection attempts, each refined unless ctx.refinement.swaps is off,
/// src/strategies/multilevel_top_down.h), and the cheapest replaces theirs when it costs less.
/// Their traffic with every other process crosses their parent or a link above it wherever they
/// sit, so only the pair's own traffic changes, and the cost never rises. Disjoint pairs (a
/// matching, heaviest first) are mapped as parallel tasks; the result does not depend on the thread
/// count. Rounds (ctx.pair_remap.rounds) stop after one that changes nothing. A pair whose
/// mappings found nothing cheaper more than ctx.pair_remap.retries times in a row, neither of its
/// subtrees changing meanwhile, is mapped again only once one of them has changed. Does nothing
/// above ctx.pair_remap.max_processes processes. Cost per round: the pairs' mappings (each O(pair's
/// entries x runs)) plus O(nnz) per matching for the subgraphs.
PairRemapStats remap_subtree_pairs(const CommGraph& graph, const Topology& tree,
                                   std::vector<Index>& leaf_of_rank, const Context& ctx,
                                   const ProgressSpan& progress = {});

/// Whether remap_subtree_pairs would do anything for `processes` processes on `tree`.
bool pair_remap_applies(Index processes, const Topology& tree, const PairRemapContext& ctx);

}  // namespace treematch
