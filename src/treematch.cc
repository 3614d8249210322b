// The TreeMatch driver: one short step per level, as Algorithm 1 of the seed paper reads.
#include "src/treematch.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "kernels/aggregation.h"
#include "src/arity_split.h"
#include "src/constrained_mapping.h"
#include "src/level_grouping.h"
#include "src/map_groups.h"

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

}  // namespace

std::vector<Index> walked_arities(const Topology& tree, Index processes, const TreeContext& ctx) {
  std::vector<Index> arities;
  Index order = processes;
  for (int level = tree.depth() - 1; level >= 0; --level) {
    const Index k = tree.levels()[static_cast<std::size_t>(level)].arity;
    const std::vector<Index> parts =
        ctx.split_arities ? split_arity(k, order) : std::vector<Index>{k};
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
    return constrained_treematch_map(graph, topology, ctx);
  }
  check_fits(graph.size(), topology.leaf_count() * per_leaf, ctx);
  const Topology tree = topology.with_oversubscription(per_leaf);

  TreeMatchResult result;
  if (graph.size() == 0) return result;
  if (tree.depth() == 0) {  // a single leaf
    result.mapping.leaf_of_rank.assign(static_cast<std::size_t>(graph.size()), 0);
    return result;
  }
  std::vector<GroupLevel> levels;
  kernels::Csr aggregated;
  kernels::CsrView m = graph.view();
  for (Index k : walked_arities(tree, graph.size(), ctx.tree)) {
    const auto start = std::chrono::steady_clock::now();
    const Index order = m.n;
    // ExtendComMatrix: artificial processes (empty rows) until k divides the order.
    m.n = round_up(order, k);
    // GroupProcesses: a minimum-value set of disjoint groups of k.
    LevelGrouping grouping = group_level(m, k, ctx.grouping);
    // AggregateComMatrix: r[g][h] = sum of m[i][j] for i in g, j in h.
    aggregated = kernels::aggregate(m, grouping.groups);
    m = aggregated.view();
    levels.push_back(GroupLevel{std::move(grouping.groups), order});
    result.levels.push_back(LevelTrace{
        k, order, levels.back().groups.count() * k - order, grouping.heuristic, grouping.exhaustive,
        grouping.candidates,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  }
  // MapGroups: top-down, then virtual leaves (oversubscription) back to cores.
  const std::vector<Index> position = map_groups(levels);
  result.mapping.leaf_of_rank.resize(position.size());
  for (std::size_t i = 0; i < position.size(); ++i)
    result.mapping.leaf_of_rank[i] = position[i] / per_leaf;
  return result;
}

}  // namespace treematch
