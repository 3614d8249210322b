// Refinement sweeps: whole subtrees exchanged from the top down, then single processes.
#include "src/refine/refinement.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "kernels/aggregation.h"
#include "src/model/cost.h"
#include "src/model/mapping.h"

namespace treematch {
namespace {

using kernels::at;

kernels::PlacementSwapOptions swap_options(const RefinementContext& ctx) {
  kernels::PlacementSwapOptions options;
  options.rounds = ctx.rounds;
  options.partners = ctx.partners;
  options.blocks_tried = ctx.blocks_tried;
  return options;
}

/// Exchanges the contents of nodes at `depth` as wholes; returns the exchanges applied. A node
/// with a `closed` leaf stays (another node's contents could land on that leaf).
long long exchange_subtrees(const CommGraph& graph, const Topology& tree, int depth,
                            std::vector<Index>& leaf_of_rank, const RefinementContext& ctx,
                            const std::vector<std::uint8_t>& closed) {
  const Index size = tree.leaves_below(depth);
  const Index leaves = tree.leaf_count();
  // The processes under each node, padded with artificial ones on empty leaves: groups of `size`.
  std::vector<Index> occupant(at(leaves), -1);
  for (Index r = 0; r < graph.size(); ++r) occupant[at(leaf_of_rank[at(r)])] = r;
  kernels::Groups nodes;
  nodes.k = size;
  nodes.members.resize(at(leaves));
  Index artificial = graph.size();
  for (Index leaf = 0; leaf < leaves; ++leaf)
    nodes.members[at(leaf)] = occupant[at(leaf)] >= 0 ? occupant[at(leaf)] : artificial++;
  for (Index g = 0; g < nodes.count(); ++g) {
    const auto first = nodes.members.begin() + static_cast<std::ptrdiff_t>(g) * size;
    std::sort(first, first + size);
  }
  kernels::CsrView padded = graph.view();
  padded.n = leaves;
  // q[g][h] = traffic between the processes under nodes g and h.
  const kernels::Csr between = kernels::aggregate(padded, nodes);
  std::vector<Index> where(at(nodes.count()));
  std::iota(where.begin(), where.end(), 0);
  kernels::PlacementSwapOptions options = swap_options(ctx);
  if (!closed.empty()) {
    options.pinned.assign(at(nodes.count()), 0);
    for (Index leaf = 0; leaf < leaves; ++leaf) {
      if (closed[at(leaf)] != 0) options.pinned[at(leaf / size)] = 1;
    }
  }
  const kernels::PlacementSwapStats stats =
      kernels::refine_placement(between.view(), leaf_tree(tree, depth), where, options);
  const long long moves = stats.moves + stats.pair_moves;
  if (moves == 0) return 0;
  for (Index& leaf : leaf_of_rank) leaf = where[at(leaf / size)] * size + leaf % size;
  return moves;
}

}  // namespace

kernels::LeafTree leaf_tree(const Topology& tree, int depth) {
  const int full = tree.depth();
  kernels::LeafTree cut;
  for (int level = 0; level < depth; ++level)
    cut.arities.push_back(tree.levels()[static_cast<std::size_t>(level)].arity);
  cut.distance.assign(static_cast<std::size_t>(depth) + 1, 0.0);
  for (int h = 1; h <= depth; ++h) {
    // Leaf 0 and the first leaf of the next subtree at depth (full - height + 1) meet `height` up.
    const int height = h + full - depth;
    cut.distance[static_cast<std::size_t>(h)] =
        tree.weighted_distance(0, tree.leaves_below(full - height + 1));
  }
  return cut;
}

RefinementStats refine_mapping(const CommGraph& graph, const Topology& tree,
                               std::vector<Index>& leaf_of_rank, const RefinementContext& ctx,
                               std::span<const Index> allowed_leaves) {
  RefinementStats stats;
  const std::vector<Index> given = leaf_of_rank;
  stats.cost_before = evaluate_cost(graph, tree, Mapping{leaf_of_rank}).weighted;
  stats.cost_after = stats.cost_before;
  if (graph.size() < 2 || tree.depth() < 2) return stats;
  std::vector<std::uint8_t> closed;  // leaves not allowed
  if (!allowed_leaves.empty()) {
    closed.assign(at(tree.leaf_count()), 1);
    for (const Index leaf : allowed_leaves) closed[at(leaf)] = 0;
  }
  std::vector<Index> settled;  // where single exchanges left each process (-1: still moving)
  for (int cycle = 0; cycle < ctx.cycles; ++cycle) {
    long long moves = 0;
    if (ctx.subtrees) {
      for (int depth = 2; depth < tree.depth(); ++depth) {
        const long long applied = exchange_subtrees(graph, tree, depth, leaf_of_rank, ctx, closed);
        stats.subtree_swaps += applied;
        moves += applied;
      }
    }
    // After the first sweep, only the processes around those that moved propose first.
    kernels::PlacementSwapOptions options = swap_options(ctx);
    options.closed = closed;
    if (!settled.empty()) {
      options.moved.resize(settled.size());
      for (std::size_t r = 0; r < settled.size(); ++r)
        options.moved[r] = leaf_of_rank[r] != settled[r] ? 1 : 0;
    }
    const kernels::PlacementSwapStats single = kernels::refine_placement(
        graph.view(), leaf_tree(tree, tree.depth()), leaf_of_rank, options);
    stats.swaps += single.moves + single.pair_moves;
    moves += single.moves + single.pair_moves;
    settled = leaf_of_rank;
    for (const Index r : single.unsettled) settled[at(r)] = -1;  // proposes again next sweep
    stats.cycles = cycle + 1;
    if (moves == 0) break;
  }
  stats.cost_after = evaluate_cost(graph, tree, Mapping{leaf_of_rank}).weighted;
  if (stats.cost_after > stats.cost_before) {  // rounding only; the moves each lowered the cost
    leaf_of_rank = given;
    stats.cost_after = stats.cost_before;
  }
  return stats;
}

}  // namespace treematch
