// Top-down mappings whose upper nodes are split by multilevel recursive bisection, the walk below.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/mapping_result.h"
#include "src/top_down/top_down_mapping.h"
#include "src/tree/topology.h"

namespace treematch {

/// How many seeds the strategy tries: ctx.budget / entries, clamped to [1, ctx.max_runs] (a
/// count, not a time, so results repeat).
int multilevel_runs(Offset entries, const MultilevelTopDownContext& ctx);

/// The k-way V-cycles a seed's split makes after its partition.kway_vcycles where one of those
/// lowered the cut (PartitionContext::kway_more_vcycles): none where partition.kway_vcycles is 0,
/// else up to min(ctx.max_vcycles, ctx.vcycle_budget / entries) in all.
int multilevel_more_kway_vcycles(Offset entries, const PartitionContext& partition,
                                 const MultilevelTopDownContext& ctx);

/// Whether at least `agreeing` (above 0) of the seeds' costs equal the cheapest of them: the seeds
/// have found the same grain.
bool seeds_agree(std::span<const double> costs, int agreeing);

/// How many of the seeds whose costs are `costs` are kept: the first ctx.seed_step x k of them
/// for the least k where those agree (seeds_agree, ctx.agreeing_seeds; 0: never), else all.
std::size_t agreed_seeds(std::span<const double> costs, const MultilevelTopDownContext& ctx);

/// Whether multilevel_top_down_mappings gives any mapping: a matrix of at most ctx.max_entries
/// entries on a tree of one level or more.
bool multilevel_top_down_applies(Offset entries, const Topology& tree,
                                 const MultilevelTopDownContext& ctx);

/// The bisection attempts each seed makes where they disagree
/// (PartitionContext::disagreement_attempts): partition.attempts, or ceil(ctx.attempt_budget /
/// runs) when that is more.
int multilevel_disagreement_attempts(int runs, const PartitionContext& partition,
                                     const MultilevelTopDownContext& ctx);

/// One mapping per seed (partition.seed + run), each making up to multilevel_disagreement_attempts
/// attempts at a bisection whose attempts disagree and multilevel_more_kway_vcycles more k-way
/// V-cycles: the nodes above depth max(1, depth - w) split (w = ctx.walk_levels for the even runs,
/// ctx.odd_seed_walk_levels for the odd ones) into their children's capacities by multilevel
/// recursive bisection (src/partition/multilevel_partition.h) then the greedy split's pairwise
/// swaps, the walk inside the subtrees below. The runs are independent tasks, returned in seed
/// order; none starts past a step of ctx.seed_step seeds where those made agree (agreed_seeds).
/// The result does not depend on the thread count. None above ctx.max_entries entries.
std::vector<TreeMatchResult> multilevel_top_down_mappings(const CommGraph& graph,
                                                          const Topology& tree,
                                                          const GroupingContext& grouping,
                                                          const PartitionContext& partition,
                                                          const MultilevelTopDownContext& ctx);

/// The same seeds on a machine of allowed leaves (sorted and distinct; empty: every leaf) holding
/// up to `per_leaf` processes each, the full subtrees at the split depth mapped by `walk`
/// (top_down_treematch_map's constrained form; the caller checks that the processes fit).
std::vector<TreeMatchResult> multilevel_top_down_mappings(
    const CommGraph& graph, const Topology& tree, const std::vector<Index>& allowed, Index per_leaf,
    const SubtreeMapping& walk, const PartitionContext& partition,
    const MultilevelTopDownContext& ctx);

}  // namespace treematch
