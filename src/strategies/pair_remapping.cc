// Two sibling subtrees mapped again together, the heaviest pairs first, a matching at a time.
#include "src/strategies/pair_remapping.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "kernels/parallel_tasks.h"
#include "kernels/part_subgraphs.h"
#include "kernels/utility.h"
#include "src/model/cost.h"
#include "src/refine/refinement.h"
#include "src/strategies/multilevel_top_down.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::Csr;
using kernels::CsrView;

/// Two sibling subtrees (a < b) and the traffic between them.
struct SubtreePair {
  Index a = 0;
  Index b = 0;
  Weight traffic = 0.0;
};

/// The pairs of siblings (subtrees with the same parent: subtree / siblings) that exchange
/// traffic, heaviest first, then by (a, b).
std::vector<SubtreePair> talking_pairs(CsrView g, const std::vector<Index>& subtree_of,
                                       Index siblings) {
  std::vector<SubtreePair> entries;
  for (Index v = 0; v < g.n; ++v) {
    const Index a = subtree_of[at(v)];
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index b = subtree_of[at(g.targets[at(e)])];
      if (a < b && a / siblings == b / siblings) entries.push_back({a, b, g.weights[at(e)]});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const SubtreePair& x, const SubtreePair& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  std::vector<SubtreePair> pairs;
  for (const SubtreePair& entry : entries) {
    if (!pairs.empty() && pairs.back().a == entry.a && pairs.back().b == entry.b) {
      pairs.back().traffic += entry.traffic;
    } else {
      pairs.push_back(entry);
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const SubtreePair& x, const SubtreePair& y) {
    if (x.traffic != y.traffic) return x.traffic > y.traffic;
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  return pairs;
}

/// The tree of two sibling subtrees at `depth`: their parent with only them as children.
Topology pair_topology(const Topology& tree, int depth) {
  const std::vector<TreeLevel>& levels = tree.levels();
  std::vector<TreeLevel> pair(levels.begin() + depth - 1, levels.end());
  pair.front().arity = 2;
  return Topology(std::move(pair), {});
}

/// The subtrees paired and the tree of one pair.
struct PairTree {
  Index width = 1;     ///< leaves under one subtree
  Index subtrees = 0;  ///< subtrees at the paired depth
  Topology tree;       ///< their parent with two of them as its only children
};

/// Maps the pair's processes (subgraph `sub`, current leaves `leaves` of `pair_tree`) again;
/// replaces `leaves` and returns true when the cheapest new mapping costs less.
bool remap_pair(const Csr& sub, bool symmetrised, const Topology& pair_tree,
                std::vector<Index>& leaves, std::uint64_t seed, const Context& ctx) {
  const CommGraph graph =
      CommGraph::from_symmetric_csr(sub.n, sub.offsets, sub.targets, sub.weights, symmetrised);
  const double before = evaluate_cost(graph, pair_tree, Mapping{leaves}).weighted;
  MultilevelTopDownContext runs = ctx.multilevel;
  runs.budget = std::numeric_limits<std::int64_t>::max();  // exactly max_runs mappings
  runs.max_runs = ctx.pair_remap.runs;
  runs.attempt_budget = 0;  // pair_remap.attempts each
  PartitionContext partition = ctx.partition;
  partition.seed = seed;
  partition.attempts = ctx.pair_remap.attempts;
  std::vector<TreeMatchResult> found =
      multilevel_top_down_mappings(graph, pair_tree, ctx.grouping, partition, runs);
  std::vector<double> costs(found.size());
  kernels::parallel_for_all(found.size(), [&](std::size_t c) {
    if (ctx.refinement.swaps)
      refine_mapping(graph, pair_tree, found[c].mapping.leaf_of_rank, ctx.refinement);
    costs[c] = evaluate_cost(graph, pair_tree, found[c].mapping).weighted;
  });
  std::size_t best = 0;
  for (std::size_t c = 1; c < found.size(); ++c) {
    if (costs[c] < costs[best]) best = c;
  }
  // A relative margin, so that rounding alone never counts as a change.
  if (found.empty() || !(costs[best] < before - 1e-12 * before)) return false;
  leaves = std::move(found[best].mapping.leaf_of_rank);
  return true;
}

/// The heaviest pairs not `done` whose subtrees no heavier pair of the matching holds; marks them
/// done. Empty when every pair is done.
std::vector<std::size_t> next_matching(const std::vector<SubtreePair>& pairs, Index subtrees,
                                       std::vector<std::uint8_t>& done) {
  std::vector<std::uint8_t> taken(at(subtrees), 0);
  std::vector<std::size_t> matching;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const SubtreePair& pair = pairs[i];
    if (done[i] != 0 || taken[at(pair.a)] != 0 || taken[at(pair.b)] != 0) continue;
    taken[at(pair.a)] = taken[at(pair.b)] = 1;
    matching.push_back(i);
    done[i] = 1;
  }
  return matching;
}

/// Maps the pairs `matching` (indexes into `pairs`; disjoint subtrees) again as parallel tasks,
/// updating leaf_of_rank and subtree_of where a new mapping is kept. Returns, per pair of the
/// matching, whether its new mapping was kept.
std::vector<std::uint8_t> remap_matching(const CommGraph& graph, const PairTree& shape,
                                         const std::vector<SubtreePair>& pairs,
                                         const std::vector<std::size_t>& matching, int round,
                                         const Context& ctx, std::vector<Index>& leaf_of_rank,
                                         std::vector<Index>& subtree_of) {
  const Index n = graph.size();
  const Index width = shape.width;
  std::vector<Index> part_of_subtree(at(shape.subtrees), -1);
  for (std::size_t k = 0; k < matching.size(); ++k) {
    part_of_subtree[at(pairs[matching[k]].a)] = static_cast<Index>(k);
    part_of_subtree[at(pairs[matching[k]].b)] = static_cast<Index>(k);
  }
  std::vector<Index> part_of(at(n));
  std::vector<std::vector<Index>> members(matching.size());  // ranks ascending
  for (Index v = 0; v < n; ++v) {
    part_of[at(v)] = part_of_subtree[at(subtree_of[at(v)])];
    if (part_of[at(v)] >= 0) members[at(part_of[at(v)])].push_back(v);
  }
  const std::vector<Csr> subs = kernels::part_subgraphs(graph.view(), part_of, matching.size());
  std::vector<std::uint8_t> kept(matching.size(), 0);
  kernels::parallel_for_all(matching.size(), [&](std::size_t k) {
    const SubtreePair& pair = pairs[matching[k]];
    // The pair's leaves: pair.a's first, then pair.b's.
    std::vector<Index> leaves;
    leaves.reserve(members[k].size());
    for (const Index v : members[k]) {
      const Index leaf = leaf_of_rank[at(v)];
      leaves.push_back((leaf / width == pair.a ? 0 : width) + leaf % width);
    }
    const std::uint64_t seed = kernels::splitmix64(
        ctx.partition.seed ^ (static_cast<std::uint64_t>(round) << 48U) ^
        (static_cast<std::uint64_t>(pair.a) << 24U) ^ static_cast<std::uint64_t>(pair.b));
    if (!remap_pair(subs[k], graph.was_symmetrised(), shape.tree, leaves, seed, ctx)) return;
    kept[k] = 1;
    for (std::size_t i = 0; i < members[k].size(); ++i) {
      const Index v = members[k][i];
      const Index leaf = leaves[i];
      leaf_of_rank[at(v)] = leaf < width ? pair.a * width + leaf : pair.b * width + leaf - width;
      subtree_of[at(v)] = leaf_of_rank[at(v)] / width;  // the next matchings group by it
    }
  });
  return kept;
}

/// For each pair, how many of its mappings in a row found nothing cheaper while neither of its
/// subtrees changed (in matchings made so far): once more than the retries allowed, mapping it
/// again would only roll other seeds on the same input.
class PairHistory {
 public:
  explicit PairHistory(Index subtrees) : subtrees_(subtrees), changed_at_(at(subtrees), 0) {}

  bool exhausted(const SubtreePair& pair, int retries) const {
    const auto found = tries_.find(key(pair));
    return found != tries_.end() && unchanged_since(pair, found->second.last) &&
           found->second.fruitless > retries;
  }

  /// Records one matching: its pairs tried now, the subtrees of those `kept` changed now.
  void record(const std::vector<SubtreePair>& pairs, const std::vector<std::size_t>& matching,
              const std::vector<std::uint8_t>& kept) {
    ++matchings_;
    for (std::size_t k = 0; k < matching.size(); ++k) {  // disjoint pairs: any order
      const SubtreePair& pair = pairs[matching[k]];
      Tries& tries = tries_[key(pair)];
      if (kept[k] != 0) {
        tries.fruitless = 0;
        changed_at_[at(pair.a)] = changed_at_[at(pair.b)] = matchings_;
      } else {
        tries.fruitless =
            tries.last > 0 && unchanged_since(pair, tries.last) ? tries.fruitless + 1 : 1;
      }
      tries.last = matchings_;
    }
  }

 private:
  struct Tries {
    long long last = 0;  ///< the last matching that had the pair (0: none)
    int fruitless = 0;   ///< mappings in a row that found nothing cheaper, on the same input
  };

  bool unchanged_since(const SubtreePair& pair, long long matching) const {
    return changed_at_[at(pair.a)] < matching && changed_at_[at(pair.b)] < matching;
  }

  std::int64_t key(const SubtreePair& pair) const {
    return static_cast<std::int64_t>(pair.a) * subtrees_ + pair.b;
  }

  Index subtrees_;
  long long matchings_ = 0;
  std::vector<long long> changed_at_;              // 0: not since the start
  std::unordered_map<std::int64_t, Tries> tries_;  // key (a, b)
};

}  // namespace

int pair_depth(const Topology& tree) {
  for (int depth = 1; depth < tree.depth(); ++depth) {
    if (tree.levels()[at(depth - 1)].arity >= 3) return depth;
  }
  return 0;
}

bool pair_remap_applies(Index processes, const Topology& tree, const PairRemapContext& ctx) {
  return pair_depth(tree) > 0 && ctx.rounds > 0 && processes <= ctx.max_processes;
}

PairRemapStats remap_subtree_pairs(const CommGraph& graph, const Topology& tree,
                                   std::vector<Index>& leaf_of_rank, const Context& ctx,
                                   const ProgressSpan& progress) {
  PairRemapStats stats;
  const Index n = graph.size();
  if (!pair_remap_applies(n, tree, ctx.pair_remap)) return stats;
  const int depth = pair_depth(tree);  // > 0: it applies
  stats.depth = depth;
  const PairTree shape{tree.leaves_below(depth), tree.leaf_count() / tree.leaves_below(depth),
                       pair_topology(tree, depth)};
  const Index siblings = tree.levels()[at(depth - 1)].arity;
  PairHistory history(shape.subtrees);
  for (int round = 0; round < ctx.pair_remap.rounds; ++round) {
    progress.at(static_cast<double>(round) / ctx.pair_remap.rounds,
                ", round " + std::to_string(round + 1));
    std::vector<Index> subtree_of(at(n));
    for (Index v = 0; v < n; ++v) subtree_of[at(v)] = leaf_of_rank[at(v)] / shape.width;
    const std::vector<SubtreePair> pairs = talking_pairs(graph.view(), subtree_of, siblings);
    std::vector<std::uint8_t> done(pairs.size(), 0);
    long long tried = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (history.exhausted(pairs[i], ctx.pair_remap.retries)) {
        done[i] = 1;
      } else {
        ++tried;
      }
    }
    long long changed = 0;
    for (;;) {
      const std::vector<std::size_t> batch = next_matching(pairs, shape.subtrees, done);
      if (batch.empty()) break;
      const std::vector<std::uint8_t> kept =
          remap_matching(graph, shape, pairs, batch, round, ctx, leaf_of_rank, subtree_of);
      history.record(pairs, batch, kept);
      changed += std::count(kept.begin(), kept.end(), std::uint8_t{1});
    }
    ++stats.rounds;
    stats.pairs += tried;
    stats.changed += changed;
    if (changed == 0) break;
  }
  return stats;
}

}  // namespace treematch
