// The TreeMatch driver: one short step per level, as Algorithm 1 of the seed paper reads.
#include "src/treematch.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "kernels/aggregation.h"
#include "kernels/candidate_groups.h"
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

void check_fits(Index processes, Index slots, const Context& ctx) {
  if (processes <= slots) return;
  throw std::invalid_argument(
      std::to_string(processes) + " processes do not fit on " + std::to_string(slots) + " slots (" +
      (ctx.placement.allowed_leaves.empty() ? std::string("all leaves") : std::string("--cores")) +
      (ctx.placement.oversubscribe > 1
           ? " x --oversubscribe " + std::to_string(ctx.placement.oversubscribe)
           : "") +
      "); use --oversubscribe N to place N processes per core");
}

/// Algorithm 1 over the given arities (bottom-up): returns leaf positions in `tree`.
TreeMatchResult walk(const CommGraph& graph, const std::vector<Index>& arities,
                     const GroupingContext& ctx, const kernels::Csr* input_links) {
  TreeMatchResult result;
  std::vector<GroupLevel> levels;
  kernels::Csr aggregated;
  kernels::CsrView m = graph.view();
  for (Index k : arities) {
    const auto start = std::chrono::steady_clock::now();
    const Index order = m.n;
    // ExtendComMatrix: artificial processes (empty rows) until k divides the order.
    m.n = round_up(order, k);
    // GroupProcesses: a minimum-value set of disjoint groups of k.
    LevelGrouping grouping = group_level(m, k, ctx, levels.empty() ? input_links : nullptr);
    // AggregateComMatrix: r[g][h] = sum of m[i][j] for i in g, j in h.
    aggregated = kernels::aggregate(m, grouping.groups);
    m = aggregated.view();
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
  const Index per_leaf = ctx.placement.oversubscribe;
  if (!ctx.placement.allowed_leaves.empty()) {
    check_fits(graph.size(), static_cast<Index>(ctx.placement.allowed_leaves.size()) * per_leaf,
               ctx);
    TreeMatchResult constrained = constrained_treematch_map(graph, topology, ctx);
    constrained.cost = evaluate_cost(graph, topology, constrained.mapping);
    return constrained;
  }
  check_fits(graph.size(), topology.leaf_count() * per_leaf, ctx);
  const Topology tree = topology.with_oversubscription(per_leaf);
  if (graph.size() == 0) return {};
  if (tree.depth() == 0) {  // a single leaf
    TreeMatchResult single;
    single.mapping.leaf_of_rank.assign(static_cast<std::size_t>(graph.size()), 0);
    return single;
  }

  const std::vector<Index> split = walked_arities(tree, graph.size(), /*split=*/true);
  const std::vector<Index> unsplit = walked_arities(tree, graph.size(), /*split=*/false);
  const auto costs = [&](const Mapping& m) { return evaluate_cost(graph, tree, m); };
  // Both walks start from the input matrix: when it has long rows, cut them once for both.
  const std::vector<Index>& first = ctx.tree.split == AritySplit::kNever ? unsplit : split;
  const bool both = ctx.tree.split == AritySplit::kBest && split != unsplit;
  const bool shared = both && !first.empty() && !unsplit.empty() &&
                      strong_link_limit(first.front(), ctx.grouping) ==
                          strong_link_limit(unsplit.front(), ctx.grouping) &&
                      needs_strong_links(graph.view(), first.front(), ctx.grouping) &&
                      needs_strong_links(graph.view(), unsplit.front(), ctx.grouping);
  const kernels::Csr input_links =
      shared ? kernels::strongest_neighbours(graph.view(),
                                             strong_link_limit(first.front(), ctx.grouping))
             : kernels::Csr{};
  const kernels::Csr* links = shared ? &input_links : nullptr;
  TreeMatchResult result = walk(graph, first, ctx.grouping, links);
  MappingCost cost = costs(result.mapping);
  if (both) {
    // Table 2 bounds the enumeration, not the quality: keep the unsplit walk when it maps cheaper.
    TreeMatchResult other = walk(graph, unsplit, ctx.grouping, links);
    const MappingCost other_cost = costs(other.mapping);
    if (other_cost.weighted < cost.weighted) {
      result = std::move(other);
      cost = other_cost;
    }
  }
  // Local swaps along communication links; the identity wins if it is still cheaper.
  if (ctx.refinement.swaps) {
    const RefinementStats stats =
        refine_by_swaps(graph, tree, result.mapping.leaf_of_rank, ctx.refinement);
    result.refinement_swaps = stats.swaps;
    cost = costs(result.mapping);
  }
  if (ctx.refinement.keep_identity) {
    Mapping identity;
    identity.leaf_of_rank.resize(static_cast<std::size_t>(graph.size()));
    for (Index i = 0; i < graph.size(); ++i) identity.leaf_of_rank[static_cast<std::size_t>(i)] = i;
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
  result.cost = per_leaf == 1 ? cost : evaluate_cost(graph, topology, result.mapping);
  return result;
}

}  // namespace treematch
