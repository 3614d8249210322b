// The TreeMatch driver: one short step per level, as Algorithm 1 of the seed paper reads.
#include "src/treematch.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/parallel_tasks.h"
#include "src/arity_split.h"
#include "src/constrained_mapping.h"
#include "src/cost.h"
#include "src/level_grouping.h"
#include "src/map_groups.h"
#include "src/refinement.h"

namespace treematch {
namespace {

Index round_up(Index n, Index k) {
  return (n + k - 1) / k * k;
}

/// What the bottom-up runs inside the subtrees of a top-down candidate use: the subtree's own
/// processes on its own leaves (the tree given already holds any oversubscription level), the
/// greedy heuristic and one walk only (the candidate is refined as a whole afterwards).
Context top_down_inner_context(const Context& ctx) {
  Context inner = ctx;
  inner.placement.oversubscribe = 1;
  inner.placement.allowed_leaves.clear();
  inner.grouping.largest_index_last = false;
  inner.grouping.weighted_degree_first = false;
  inner.tree.split = AritySplit::kTable2;
  inner.tree.prioritise_costly_links = false;
  inner.tree.top_down = false;
  inner.refinement.swaps = false;
  inner.refinement.keep_identity = false;
  return inner;
}

void check_fits(Index processes, Index slots, const Context& ctx) {
  if (processes <= slots) return;
  throw std::invalid_argument(
      std::to_string(processes) + " processes do not fit on " + std::to_string(slots) + " slots (" +
      (ctx.placement.allowed_leaves.empty() ? std::string("all leaves")
                                            : std::string("usable leaves")) +
      (ctx.placement.oversubscribe > 1
           ? " x --oversubscribe " + std::to_string(ctx.placement.oversubscribe)
           : "") +
      "); use --oversubscribe N to place N processes per core");
}

/// Algorithm 1 over the given arities (bottom-up): returns leaf positions in `tree`.
TreeMatchResult walk(const MappingInput& input, const std::vector<Index>& arities,
                     const GroupingContext& ctx) {
  TreeMatchResult result;
  std::vector<GroupLevel> levels;
  std::unique_ptr<LevelMatrix> m = input.first_level();
  for (Index k : arities) {
    const auto start = std::chrono::steady_clock::now();
    const Index order = m->order();
    // ExtendComMatrix: artificial processes (empty rows) until k divides the order.
    m->extend(round_up(order, k));
    // GroupProcesses: a minimum-value set of disjoint groups of k.
    LevelGrouping grouping = group_level(*m, k, ctx);
    // AggregateComMatrix: r[g][h] = sum of m[i][j] for i in g, j in h.
    m = m->aggregate(grouping.groups);
    levels.push_back(GroupLevel{std::move(grouping.groups), order});
    result.levels.push_back(LevelTrace{
        k, order, levels.back().groups.count() * k - order, grouping.heuristic, grouping.exhaustive,
        grouping.candidates,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  }
  // MapGroups: top-down through the group hierarchy.
  result.mapping.leaf_of_rank = map_groups(levels);
  return result;
}

}  // namespace

int multilevel_runs(Offset entries, const TreeContext& ctx) {
  const std::int64_t runs = ctx.multilevel_budget / std::max<std::int64_t>(1, entries);
  return static_cast<int>(std::clamp<std::int64_t>(runs, 1, std::max(1, ctx.multilevel_max_runs)));
}

bool prioritises_links(const Topology& tree, Index processes, const TreeContext& ctx) {
  return ctx.prioritise_costly_links && !tree.uniform_link_costs() && tree.depth() > 2 &&
         processes <= ctx.prioritise_max_processes;
}

std::vector<Index> prioritised_arities(const Topology& tree, int depth) {
  std::vector<Index> arities{tree.leaves_below(depth)};
  for (int level = depth - 1; level >= 0; --level)
    arities.push_back(tree.levels()[static_cast<std::size_t>(level)].arity);
  return arities;
}

std::vector<Index> walked_arities(const Topology& tree, Index processes, bool split) {
  std::vector<Index> arities;
  Index order = processes;
  for (int level = tree.depth() - 1; level >= 0; --level) {
    const Index k = tree.levels()[static_cast<std::size_t>(level)].arity;
    const std::vector<Index> parts = split ? split_arity(k, order) : std::vector<Index>{k};
    for (Index part : parts) {
      arities.push_back(part);
      order = round_up(order, part) / part;
    }
  }
  return arities;
}

TreeMatchResult treematch_map(const CommGraph& graph, const Topology& topology,
                              const Context& ctx) {
  return treematch_map(LocalMappingInput(graph), topology, ctx);
}

TreeMatchResult treematch_map(const MappingInput& input, const Topology& topology,
                              const Context& ctx) {
  const Index per_leaf = ctx.placement.oversubscribe;
  if (ctx.placement.allowed_leaves.empty() && topology.has_holes()) {
    // Holes of an unbalanced machine are never used: only its present leaves are.
    Context present = ctx;
    present.placement.allowed_leaves = topology.present_leaves();
    return treematch_map(input, topology, present);
  }
  if (!ctx.placement.allowed_leaves.empty()) {
    check_fits(input.size(), static_cast<Index>(ctx.placement.allowed_leaves.size()) * per_leaf,
               ctx);
    TreeMatchResult constrained = constrained_treematch_map(input.whole(), topology, ctx);
    constrained.cost = input.cost(topology, constrained.mapping);
    if (ctx.refinement.keep_identity) {
      // The identity of a constrained machine: rank i on the i-th usable slot.
      Mapping identity;
      for (Index i = 0; i < input.size(); ++i) {
        identity.leaf_of_rank.push_back(
            ctx.placement.allowed_leaves[static_cast<std::size_t>(i / per_leaf)]);
      }
      const MappingCost identity_cost = input.cost(topology, identity);
      if (identity_cost.weighted < constrained.cost.weighted) {
        constrained.mapping = std::move(identity);
        constrained.identity_kept = true;
        constrained.cost = identity_cost;
      }
    }
    return constrained;
  }
  check_fits(input.size(), topology.leaf_count() * per_leaf, ctx);
  const Topology tree = topology.with_oversubscription(per_leaf);
  if (input.size() == 0) return {};
  if (tree.depth() == 0) {  // a single leaf
    TreeMatchResult single;
    single.mapping.leaf_of_rank.assign(static_cast<std::size_t>(input.size()), 0);
    return single;
  }

  const std::vector<Index> split = walked_arities(tree, input.size(), /*split=*/true);
  const std::vector<Index> unsplit = walked_arities(tree, input.size(), /*split=*/false);
  const auto costs = [&](const Mapping& m) { return input.cost(tree, m); };
  const std::vector<Index>& first = ctx.tree.split == AritySplit::kNever ? unsplit : split;
  const bool both = ctx.tree.split == AritySplit::kBest && split != unsplit;
  TreeMatchResult result = walk(input, first, ctx.grouping);
  MappingCost cost = costs(result.mapping);
  // Every other candidate replaces the mapping kept so far only when strictly cheaper (weighted).
  const auto keep_if_cheaper = [&](TreeMatchResult&& other) {
    const MappingCost other_cost = costs(other.mapping);
    if (other_cost.weighted < cost.weighted) {
      result = std::move(other);
      cost = other_cost;
    }
  };
  // Table 2 bounds the enumeration, not the quality: keep the unsplit walk when it maps cheaper.
  if (both) keep_if_cheaper(walk(input, unsplit, ctx.grouping));
  // Exchanges of processes and subtrees that lower the weighted cost.
  const auto refine = [&](TreeMatchResult& r) {
    if (!ctx.refinement.swaps) return;
    const RefinementStats stats =
        refine_mapping(input.whole(), tree, r.mapping.leaf_of_rank, ctx.refinement);
    r.refinement_swaps = stats.swaps + stats.subtree_swaps;
  };
  refine(result);
  cost = costs(result.mapping);
  // Link costs that differ by level: also group straight into the subtrees below each costly
  // link (the levels under it walked as one), so that its traffic comes first; keep the cheapest.
  if (prioritises_links(tree, input.size(), ctx.tree)) {
    for (int depth = 1; depth + 1 < tree.depth(); ++depth) {
      if (tree.leaves_below(depth) > ctx.tree.prioritise_max_arity) continue;
      TreeMatchResult other = walk(input, prioritised_arities(tree, depth), ctx.grouping);
      refine(other);
      keep_if_cheaper(std::move(other));
    }
  }
  // Top-down: the upper levels cut first (split_processes), bottom-up TreeMatch below.
  if (ctx.tree.top_down && input.size() <= ctx.tree.top_down_max_processes &&
      input.entries() <= ctx.tree.top_down_max_entries) {
    const Context inner = top_down_inner_context(ctx);
    for (int depth = 1; depth + 1 < tree.depth(); ++depth) {
      TreeMatchResult other = top_down_treematch_map(input.whole(), tree, inner, depth);
      refine(other);
      keep_if_cheaper(std::move(other));
    }
  }
  // Multilevel top-down: the nodes above depth - 2 split by multilevel recursive bisection, with
  // several seeds on small inputs (and none on huge ones: memory); the runs are independent, so
  // they run as tasks and are kept in seed order.
  if (ctx.tree.top_down && ctx.tree.multilevel &&
      input.entries() <= ctx.tree.multilevel_max_entries) {
    const int runs = multilevel_runs(input.entries(), ctx.tree);
    const int split_depth = std::max(1, tree.depth() - 2);
    const CommGraph& whole = input.whole();  // gathered here, outside the tasks
    std::vector<TreeMatchResult> others(static_cast<std::size_t>(runs));
    kernels::parallel_for_all(static_cast<std::size_t>(runs), [&](std::size_t run) {
      Context inner = top_down_inner_context(ctx);
      inner.partition.seed = ctx.partition.seed + static_cast<std::uint64_t>(run);
      TreeMatchResult& other = others[run];
      other = top_down_treematch_map(whole, tree, inner, split_depth, NodeSplit::kMultilevel);
      refine(other);
    });
    for (TreeMatchResult& other : others) keep_if_cheaper(std::move(other));
  }
  // The identity wins if it is still cheaper.
  if (ctx.refinement.keep_identity) {
    Mapping identity;
    identity.leaf_of_rank.resize(static_cast<std::size_t>(input.size()));
    for (Index i = 0; i < input.size(); ++i) identity.leaf_of_rank[static_cast<std::size_t>(i)] = i;
    const MappingCost identity_cost = costs(identity);
    if (identity_cost.weighted < cost.weighted) {
      result.mapping = std::move(identity);
      result.identity_kept = true;
      cost = identity_cost;
    }
  }
  // Virtual leaves (oversubscription) back to cores.
  for (Index& leaf : result.mapping.leaf_of_rank) leaf /= per_leaf;
  // Costs on `tree` are those on the topology when no virtual level was added.
  result.cost = per_leaf == 1 ? cost : input.cost(topology, result.mapping);
  return result;
}

}  // namespace treematch
