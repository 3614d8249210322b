// The pairs of parts, heaviest first, and each pair's subgraph refined as a bisection.
#include "src/partition/part_pair_refinement.h"

#include <algorithm>
#include <iterator>
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

/// The subgraph of `graph` induced by `ids` (ascending), renumbered in their order. Membership is
/// looked up in `ids`, not in the parts: other pairs' tasks are rewriting theirs meanwhile.
Csr induced_subgraph(CsrView graph, const std::vector<Index>& ids) {
  Csr sub;
  sub.n = static_cast<Index>(ids.size());
  for (Index v : ids) {
    for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      const Index u = graph.targets[at(e)];
      const auto found = std::lower_bound(ids.begin(), ids.end(), u);
      if (found == ids.end() || *found != u) continue;
      sub.targets.push_back(static_cast<Index>(found - ids.begin()));
      sub.weights.push_back(graph.weights[at(e)]);
    }
    sub.offsets.push_back(static_cast<Offset>(sub.targets.size()));
  }
  return sub;
}

/// Refines parts a and b (pair = a * k + b) as a bisection of their own; whether they changed.
/// Touches only their vertices' entries of `part` and their member lists.
bool refine_pair(CsrView graph, std::size_t pair, std::size_t k, std::vector<Index>& part,
                 std::vector<std::vector<Index>>& members, const PartitionContext& ctx) {
  const Index a = static_cast<Index>(pair / k);
  const Index b = static_cast<Index>(pair % k);
  std::vector<Index> ids;
  std::merge(members[at(a)].begin(), members[at(a)].end(), members[at(b)].begin(),
             members[at(b)].end(), std::back_inserter(ids));
  const Csr both = induced_subgraph(graph, ids);
  std::vector<Index> side(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) side[i] = part[at(ids[i])] == a ? 0 : 1;
  PartitionContext own = ctx;
  own.coarsest = ctx.pair_coarsest;
  own.seed = kernels::splitmix64(ctx.seed ^ (0x9e3779b97f4a7c15ULL * (pair + 1)));
  if (!refine_bisection(both.view(), side, static_cast<Index>(members[at(a)].size()), own)) {
    return false;
  }
  members[at(a)].clear();
  members[at(b)].clear();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    part[at(ids[i])] = side[i] == 0 ? a : b;
    members[at(side[i] == 0 ? a : b)].push_back(ids[i]);
  }
  return true;
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
  // Rounds of pairs that share no part, each the heaviest pairs left that fit: their refinements
  // are independent, so they run as tasks and the result does not depend on the thread count.
  std::vector<char> done(pairs.size(), 0);
  std::vector<std::size_t> round;
  std::vector<char> busy(k, 0);
  std::vector<char> changed_pair;
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
    changed_pair.assign(round.size(), 0);
    kernels::parallel_for_all(round.size(), [&](std::size_t r) {
      changed_pair[r] = refine_pair(graph, round[r], k, part, members, ctx) ? 1 : 0;
    });
    changed =
        changed || std::find(changed_pair.begin(), changed_pair.end(), 1) != changed_pair.end();
  }
  return changed;
}

}  // namespace treematch
