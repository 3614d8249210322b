// The bottom-up walk: one short step per level, as Algorithm 1 of the seed paper reads.
#include "src/walk/bottom_up.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/utility.h"
#include "src/walk/arity_split.h"
#include "src/walk/level_grouping.h"
#include "src/walk/map_groups.h"

namespace treematch {
namespace {

Index round_up(Index n, Index k) {
  return (n + k - 1) / k * k;
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

TreeMatchResult walk_arities(const MappingInput& input, const std::vector<Index>& arities,
                             const GroupingContext& ctx, const ProgressSpan& progress) {
  TreeMatchResult result;
  std::vector<GroupLevel> levels;
  std::unique_ptr<LevelMatrix> m = input.first_level();
  for (Index k : arities) {
    const std::string level =
        ", level " + std::to_string(levels.size() + 1) + " of " + std::to_string(arities.size());
    progress.at(static_cast<double>(levels.size()) / static_cast<double>(arities.size()), level);
    const auto start = std::chrono::steady_clock::now();
    const Index order = m->order();
    // ExtendComMatrix: artificial processes (empty rows) until k divides the order.
    m->extend(round_up(order, k));
    // GroupProcesses: a minimum-value set of disjoint groups of k.
    LevelGrouping grouping = group_level(*m, k, ctx);
    // AggregateComMatrix: r[g][h] = sum of m[i][j] for i in g, j in h.
    m = m->aggregate(grouping.groups);
    levels.push_back(GroupLevel{std::move(grouping.groups), order});
    result.levels.push_back(LevelTrace{k, order, levels.back().groups.count() * k - order,
                                       grouping.heuristic, grouping.exhaustive, grouping.candidates,
                                       kernels::seconds_since(start)});
    progress.level_ended(result.levels.back(), level);
  }
  // MapGroups: top-down through the group hierarchy.
  result.mapping.leaf_of_rank = map_groups(levels);
  return result;
}

TreeMatchResult bottom_up_mapping(const MappingInput& input, const Topology& tree,
                                  const GroupingContext& grouping, const WalkContext& walk,
                                  const ProgressSpan& progress) {
  if (tree.depth() == 0) {  // a single leaf
    TreeMatchResult single;
    single.mapping.leaf_of_rank.assign(static_cast<std::size_t>(input.size()), 0);
    return single;
  }
  const std::vector<Index> split = walked_arities(tree, input.size(), /*split=*/true);
  const std::vector<Index> unsplit = walked_arities(tree, input.size(), /*split=*/false);
  const bool both = walk.split == AritySplit::kBest && split != unsplit;
  TreeMatchResult result = walk_arities(input, walk.split == AritySplit::kNever ? unsplit : split,
                                        grouping, both ? progress.part(0.0, 0.5) : progress);
  // Table 2 bounds the enumeration, not the quality: keep the unsplit walk when it maps cheaper.
  if (both) {
    TreeMatchResult other = walk_arities(input, unsplit, grouping, progress.part(0.5, 1.0));
    if (input.cost(tree, other.mapping).weighted < input.cost(tree, result.mapping).weighted) {
      result = std::move(other);
    }
  }
  return result;
}

}  // namespace treematch
