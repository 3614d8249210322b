// The pairs of parts, heaviest first, and each pair's subgraph refined as a bisection.
#include "src/partition/part_pair_refinement.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "kernels/parallel_tasks.h"
#include "kernels/utility.h"
#include "src/partition/multilevel_partition.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::Csr;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// The subgraph of `graph` induced by `ids` (ascending, the vertices of parts a and b),
/// renumbered in their order. `position` holds each id's index in `ids`; other pairs' tasks
/// write other vertices' entries meanwhile, and `part` changes only between rounds.
Csr induced_subgraph(CsrView graph, const std::vector<Index>& ids, const std::vector<Index>& part,
                     Index a, Index b, const std::vector<Index>& position) {
  Csr sub;
  sub.n = static_cast<Index>(ids.size());
  for (Index v : ids) {
    for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      const Index u = graph.targets[at(e)];
      if (part[at(u)] != a && part[at(u)] != b) continue;
      sub.targets.push_back(position[at(u)]);
      sub.weights.push_back(graph.weights[at(e)]);
    }
    sub.offsets.push_back(static_cast<Offset>(sub.targets.size()));
  }
  return sub;
}

/// A refined pair's member lists, part a's then part b's (ascending).
using NewMembers = std::pair<std::vector<Index>, std::vector<Index>>;

/// Parts a and b (pair = a * k + b) refined as a bisection of their own: their new member lists,
/// or nothing when the cut between them stays.
std::optional<NewMembers> refine_pair(CsrView graph, std::size_t pair, std::size_t k,
                                      const std::vector<Index>& part,
                                      const std::vector<std::vector<Index>>& members,
                                      std::vector<Index>& position, const PartitionContext& ctx) {
  const Index a = static_cast<Index>(pair / k);
  const Index b = static_cast<Index>(pair % k);
  std::vector<Index> ids;
  std::merge(members[at(a)].begin(), members[at(a)].end(), members[at(b)].begin(),
             members[at(b)].end(), std::back_inserter(ids));
  for (std::size_t i = 0; i < ids.size(); ++i) position[at(ids[i])] = static_cast<Index>(i);
  const Csr both = induced_subgraph(graph, ids, part, a, b, position);
  std::vector<Index> side(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) side[i] = part[at(ids[i])] == a ? 0 : 1;
  PartitionContext own = ctx;
  own.coarsest = ctx.pair_coarsest;
  own.seed = kernels::splitmix64(ctx.seed ^ (0x9e3779b97f4a7c15ULL * (pair + 1)));
  if (!refine_bisection(both.view(), side, static_cast<Index>(members[at(a)].size()), own)) {
    return std::nullopt;
  }
  NewMembers split;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    (side[i] == 0 ? split.first : split.second).push_back(ids[i]);
  }
  return split;
}

/// Each pair's rank (pairs heaviest first): how many heavier pairs the one of its two parts with
/// fewer of them has; below t when the pair is among the t heaviest of one of its parts.
std::vector<int> neighbour_ranks(const std::vector<std::pair<Weight, std::size_t>>& pairs,
                                 std::size_t k) {
  std::vector<int> heavier(k, 0);
  std::vector<int> rank;
  rank.reserve(pairs.size());
  for (const auto& [weight, pair] : pairs) {
    int& of_a = heavier[pair / k];
    int& of_b = heavier[pair % k];
    rank.push_back(std::min(of_a, of_b));
    ++of_a;
    ++of_b;
  }
  return rank;
}

}  // namespace

bool refine_part_pairs(CsrView graph, Index parts, std::vector<Index>& part,
                       const PartitionContext& ctx) {
  const std::size_t k = at(parts);
  std::vector<Weight> between(k * k, 0.0);
  std::vector<std::vector<Index>> members(k);
  for (Index v = 0; v < graph.n; ++v) {
    const Index a = part[at(v)];
    members[at(a)].push_back(v);
    for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      const Index b = part[at(graph.targets[at(e)])];
      if (a < b) between[at(a) * k + at(b)] += graph.weights[at(e)];
    }
  }
  std::vector<std::pair<Weight, std::size_t>> pairs;  // (-weight, a * k + b)
  for (std::size_t i = 0; i < between.size(); ++i) {
    if (between[i] > 0.0) pairs.emplace_back(-between[i], i);
  }
  std::sort(pairs.begin(), pairs.end());
  // A part's light pairs rarely gain (on the corpus, 61% of the pairs that gained were the
  // heaviest pair of one of their parts, 88% among its three heaviest), and each costs as much.
  if (ctx.pair_neighbours > 0) {
    const std::vector<int> rank = neighbour_ranks(pairs, k);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (rank[i] < ctx.pair_neighbours) pairs[kept++] = pairs[i];
    }
    pairs.resize(kept);
  }
  // Rounds of pairs that share no part, each the heaviest pairs left that fit: their refinements
  // are independent, so they run as tasks and the result does not depend on the thread count.
  std::vector<char> done(pairs.size(), 0);
  std::vector<std::size_t> round;
  std::vector<char> busy(k, 0);
  std::vector<std::optional<NewMembers>> refined;
  std::vector<Index> position(at(graph.n), 0);
  bool changed = false;
  for (std::size_t left = pairs.size(); left > 0;) {
    round.clear();
    std::fill(busy.begin(), busy.end(), 0);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const std::size_t a = pairs[i].second / k;
      const std::size_t b = pairs[i].second % k;
      if (done[i] || busy[a] || busy[b]) continue;
      busy[a] = busy[b] = 1;
      done[i] = 1;
      round.push_back(pairs[i].second);
    }
    left -= round.size();
    refined.assign(round.size(), std::nullopt);
    kernels::parallel_for_all(round.size(), [&](std::size_t r) {
      refined[r] = refine_pair(graph, round[r], k, part, members, position, ctx);
    });
    // The round's changes, applied once its tasks are done: `part` is what they all read.
    for (std::size_t r = 0; r < round.size(); ++r) {
      if (!refined[r]) continue;
      changed = true;
      const auto a = static_cast<Index>(round[r] / k);
      const auto b = static_cast<Index>(round[r] % k);
      members[at(a)] = std::move(refined[r]->first);
      members[at(b)] = std::move(refined[r]->second);
      for (Index v : members[at(a)]) part[at(v)] = a;
      for (Index v : members[at(b)]) part[at(v)] = b;
    }
  }
  return changed;
}

}  // namespace treematch
