// TreeMatch under --cores: top-down k-way splits, bottom-up TreeMatch inside full subtrees.
#include "src/constrained_mapping.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/multilevel_partition.h"

namespace treematch {
namespace {

using kernels::Csr;
using kernels::CsrView;

constexpr Index kUnassigned = -1;
/// Partners tried per boundary process, and positions looked at to find them, in a pair of parts.
constexpr std::size_t kSwapPartners = 8;
constexpr std::size_t kSwapLookahead = 4 * kSwapPartners;

using kernels::at;
/// (key, process): the largest key on top, the smallest process on ties.
using Keyed = std::pair<Weight, Index>;
struct LowerPriority {
  bool operator()(const Keyed& a, const Keyed& b) const {
    return a.first < b.first || (a.first == b.first && a.second > b.second);
  }
};
/// A max-heap with lazy deletion: an entry is live while its process is unassigned and its key
/// still equals the process's current key (keys only move one way, so stale entries never match).
using LazyHeap = std::priority_queue<Keyed, std::vector<Keyed>, LowerPriority>;

Index pop_live(LazyHeap& heap, const std::vector<Weight>& key, const std::vector<Index>& part) {
  while (!heap.empty()) {
    const auto [value, v] = heap.top();
    heap.pop();
    if (part[at(v)] == kUnassigned && key[at(v)] == value) return v;
  }
  return kUnassigned;
}

/// Weight of edge (u, v), 0 when absent (rows are sorted).
Weight edge_weight(CsrView g, Index u, Index v) {
  const auto begin = g.targets.begin() + g.row_begin(u);
  const auto end = g.targets.begin() + g.row_end(u);
  const auto it = std::lower_bound(begin, end, v);
  if (it == end || *it != v) return 0.0;
  return g.weights[at(static_cast<Offset>(it - g.targets.begin()))];
}

/// Greedy graph growing: parts of exactly `sizes`, each grown from the heaviest free process.
std::vector<Index> grow_parts(CsrView g, const std::vector<Index>& sizes) {
  const auto k = static_cast<Index>(sizes.size());
  std::vector<Index> part(at(g.n), kUnassigned);
  std::vector<Weight> free_volume(at(g.n), 0.0);  // communication to unassigned processes
  std::vector<Weight> connection(at(g.n), 0.0);   // communication to the part being grown
  LazyHeap seeds;
  for (Index v = 0; v < g.n; ++v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) free_volume[at(v)] += g.weights[at(e)];
    seeds.push({free_volume[at(v)], v});
  }
  std::vector<Index> touched;
  Index smallest_free = 0;
  for (Index q = 0; q + 1 < k; ++q) {
    LazyHeap frontier;
    const auto take = [&](Index v) {
      part[at(v)] = q;
      for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
        const Index u = g.targets[at(e)];
        if (part[at(u)] != kUnassigned) continue;
        const Weight w = g.weights[at(e)];
        free_volume[at(u)] -= w;
        seeds.push({free_volume[at(u)], u});
        if (connection[at(u)] == 0.0) touched.push_back(u);
        connection[at(u)] += w;
        frontier.push({connection[at(u)], u});
      }
    };
    // Some process is free: the parts after q still need sizes[k - 1] >= 1 of them.
    take(pop_live(seeds, free_volume, part));
    for (Index size = 1; size < sizes[at(q)]; ++size) {
      Index next = pop_live(frontier, connection, part);
      if (next == kUnassigned) {  // nothing free is connected to the part
        while (part[at(smallest_free)] != kUnassigned) ++smallest_free;
        next = smallest_free;
      }
      take(next);
    }
    for (Index u : touched) connection[at(u)] = 0.0;
    touched.clear();
  }
  for (Index& p : part) {
    if (p == kUnassigned) p = k - 1;
  }
  return part;
}

/// A boundary process of part `from` with neighbours in part `to`; gain = cut decrease if it
/// moved alone.
struct SwapCandidate {
  Index from;
  Index to;
  Weight gain;
  Index v;
};

/// One pass of pairwise swaps: for every pair of adjacent parts, each boundary process of the
/// lower part, in order of decreasing gain, is swapped with the best of the next few unlocked
/// boundary processes of the upper part if that strictly lowers the cut. Returns the swaps made.
int swap_pass(CsrView g, Index k, std::vector<Index>& part) {
  const std::size_t n = at(g.n);
  // Gains toward every adjacent part, from a per-process scan (O(nnz) in all).
  std::vector<SwapCandidate> candidates;
  std::vector<Weight> toward(at(k), 0.0);
  std::vector<char> adjacent(at(k), 0);
  std::vector<Index> parts_seen;
  for (Index v = 0; v < g.n; ++v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index b = part[at(g.targets[at(e)])];
      if (!adjacent[at(b)]) {
        adjacent[at(b)] = 1;
        parts_seen.push_back(b);
      }
      toward[at(b)] += g.weights[at(e)];
    }
    const Index a = part[at(v)];
    const Weight internal = toward[at(a)];
    for (Index b : parts_seen) {
      if (b != a) candidates.push_back({a, b, toward[at(b)] - internal, v});
      toward[at(b)] = 0.0;
      adjacent[at(b)] = 0;
    }
    parts_seen.clear();
  }
  // Grouped by pair of parts, the lower part's side first, then by decreasing gain, then index.
  std::sort(candidates.begin(), candidates.end(),
            [](const SwapCandidate& x, const SwapCandidate& y) {
              const auto key = [](const SwapCandidate& c) {
                return std::pair{std::min(c.from, c.to), std::max(c.from, c.to)};
              };
              if (key(x) != key(y)) return key(x) < key(y);
              if (x.from != y.from) return x.from < y.from;
              if (x.gain != y.gain) return x.gain > y.gain;
              return x.v < y.v;
            });

  std::vector<char> locked(n, 0);  // swapped in this pass
  std::vector<char> stale(n, 0);   // a neighbour moved since the gains were computed
  std::vector<Index> pair_of(n, -1);
  std::vector<Weight> gain(n, 0.0);  // toward the other part of the pair being processed
  const auto gain_toward = [&](Index v, Index to) {
    Weight w_to = 0.0;
    Weight w_own = 0.0;
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index b = part[at(g.targets[at(e)])];
      if (b == to) w_to += g.weights[at(e)];
      if (b == part[at(v)]) w_own += g.weights[at(e)];
    }
    return w_to - w_own;
  };
  int swaps = 0;
  Index pair_id = 0;
  std::vector<Index> lower;
  std::vector<Index> upper;
  for (std::size_t first = 0; first < candidates.size(); ++pair_id) {
    const Index lo = std::min(candidates[first].from, candidates[first].to);
    const Index hi = std::max(candidates[first].from, candidates[first].to);
    lower.clear();
    upper.clear();
    std::size_t last = first;
    for (; last < candidates.size() && std::min(candidates[last].from, candidates[last].to) == lo &&
           std::max(candidates[last].from, candidates[last].to) == hi;
         ++last) {
      const SwapCandidate& c = candidates[last];
      if (locked[at(c.v)]) continue;
      gain[at(c.v)] = stale[at(c.v)] ? gain_toward(c.v, c.to) : c.gain;
      pair_of[at(c.v)] = pair_id;
      (c.from == lo ? lower : upper).push_back(c.v);
    }
    first = last;

    std::size_t head = 0;
    for (Index u : lower) {
      while (head < upper.size() && locked[at(upper[head])]) ++head;
      Weight best_gain = 0.0;
      Index best = kUnassigned;
      std::size_t tried = 0;
      for (std::size_t i = head;
           i < upper.size() && i < head + kSwapLookahead && tried < kSwapPartners; ++i) {
        const Index v = upper[i];
        if (locked[at(v)]) continue;
        ++tried;
        // Swapping u and v: both gains, minus their edge counted once in each.
        const Weight swap_gain = gain[at(u)] + gain[at(v)] - 2.0 * edge_weight(g, u, v);
        if (swap_gain > best_gain) {
          best_gain = swap_gain;
          best = v;
        }
      }
      if (best == kUnassigned) continue;
      part[at(u)] = hi;
      part[at(best)] = lo;
      locked[at(u)] = 1;
      locked[at(best)] = 1;
      ++swaps;
      // Keep the gains of this pair exact; mark every neighbour for later pairs.
      for (const auto& [moved, sign] : {std::pair{u, 1.0}, std::pair{best, -1.0}}) {
        for (Offset e = g.row_begin(moved); e < g.row_end(moved); ++e) {
          const Index x = g.targets[at(e)];
          stale[at(x)] = 1;
          if (locked[at(x)] || pair_of[at(x)] != pair_id) continue;
          // u went lo -> hi: lo members gain 2w toward hi, hi members lose 2w toward lo.
          const Weight delta = 2.0 * g.weights[at(e)] * sign;
          gain[at(x)] += part[at(x)] == lo ? delta : -delta;
        }
      }
    }
  }
  return swaps;
}

/// The tree below one node, as its own topology (logical leaves only).
Topology subtree_topology(const Topology& topology, int depth) {
  const std::vector<TreeLevel>& levels = topology.levels();
  return Topology(std::vector<TreeLevel>(levels.begin() + depth, levels.end()), {});
}

/// The subgraph induced by `members` (sorted), renumbered by position. `local_of` is all -1 on
/// entry and on return.
Csr induced_subgraph(CsrView g, const std::vector<Index>& members, std::vector<Index>& local_of) {
  Csr sub;
  sub.n = static_cast<Index>(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) local_of[at(members[i])] = static_cast<Index>(i);
  sub.offsets.reserve(members.size() + 1);
  for (Index v : members) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index local = local_of[at(g.targets[at(e)])];
      if (local == kUnassigned) continue;
      // Members are sorted, so positions grow with process ids and rows stay sorted.
      sub.targets.push_back(local);
      sub.weights.push_back(g.weights[at(e)]);
    }
    sub.offsets.push_back(static_cast<Offset>(sub.targets.size()));
  }
  for (Index v : members) local_of[at(v)] = kUnassigned;
  return sub;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The top-down recursion over the tree, with its scratch space and statistics.
class TopDownMapper {
 public:
  /// Nodes above `split_depth` are split even when their subtree is full.
  TopDownMapper(const CommGraph& graph, const Topology& topology, const Context& ctx,
                int split_depth = 0, NodeSplit node_split = NodeSplit::kGreedy)
      : graph_(graph),
        topology_(topology),
        split_depth_(split_depth),
        node_split_(node_split),
        per_leaf_(ctx.placement.oversubscribe),
        unconstrained_(ctx),
        allowed_before_(at(topology.leaf_count()) + 1, 0),
        local_of_(at(graph.size()), kUnassigned),
        subtrees_(at(topology.depth()) + 1),
        split_(at(topology.depth())) {
    unconstrained_.placement.allowed_leaves.clear();
    for (Index leaf : ctx.placement.allowed_leaves) allowed_before_[at(leaf) + 1] = 1;
    if (ctx.placement.allowed_leaves.empty()) {
      for (std::size_t leaf = 1; leaf < allowed_before_.size(); ++leaf) allowed_before_[leaf] = 1;
    }
    for (std::size_t i = 1; i < allowed_before_.size(); ++i)
      allowed_before_[i] += allowed_before_[i - 1];
    leaf_of_rank_.assign(at(graph.size()), kUnassigned);
  }

  TreeMatchResult run() {
    std::vector<Index> everyone(at(graph_.size()));
    for (Index v = 0; v < graph_.size(); ++v) everyone[at(v)] = v;
    map_node(/*depth=*/0, /*node=*/0, std::move(everyone));

    TreeMatchResult result;
    result.mapping.leaf_of_rank = std::move(leaf_of_rank_);
    for (std::size_t d = 0; d < split_.size(); ++d) {
      if (split_[d].nodes == 0) continue;
      result.levels.push_back(LevelTrace{.arity = topology_.levels()[d].arity,
                                         .order = split_[d].processes,
                                         .heuristic = "constrained top-down",
                                         .candidates = static_cast<std::size_t>(split_[d].nodes),
                                         .seconds = split_[d].seconds});
    }
    if (bottom_up_.nodes > 0) {
      result.levels.push_back(LevelTrace{.arity = 0,  // several subtrees, not one level
                                         .order = bottom_up_.processes,
                                         .heuristic = "bottom-up TreeMatch on full subtrees",
                                         .candidates = bottom_up_candidates_,
                                         .seconds = bottom_up_.seconds});
    }
    return result;
  }

 private:
  struct Stats {
    Index nodes = 0;
    Index processes = 0;
    double seconds = 0.0;
  };

  /// Processes node `node` of depth `depth` may take: allowed leaves below it x oversubscribe.
  std::int64_t capacity(int depth, Index node) const {
    const std::int64_t width = topology_.leaves_below(depth);
    const std::int64_t first = node * width;
    return (allowed_before_[at(static_cast<Index>(first + width))] -
            allowed_before_[at(static_cast<Index>(first))]) *
           static_cast<std::int64_t>(per_leaf_);
  }

  /// Maps `members` (sorted process ids) into the subtree of node `node` at depth `depth`.
  void map_node(int depth, Index node, std::vector<Index> members) {
    if (members.empty()) return;
    assert(static_cast<std::int64_t>(members.size()) <= capacity(depth, node));
    const Index width = topology_.leaves_below(depth);
    const Index first_leaf = node * width;
    if (depth == topology_.depth()) {  // one leaf: up to oversubscribe processes share it
      for (Index v : members) leaf_of_rank_[at(v)] = first_leaf;
      return;
    }
    if (depth >= split_depth_ &&
        capacity(depth, node) == static_cast<std::int64_t>(width) * per_leaf_) {
      map_full_subtree(depth, first_leaf, members);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    // Children by decreasing capacity (smaller index on ties) until they hold every member.
    const Index arity = topology_.levels()[at(depth)].arity;
    std::vector<std::pair<std::int64_t, Index>> children;
    for (Index c = 0; c < arity; ++c) {
      const std::int64_t cap = capacity(depth + 1, node * arity + c);
      if (cap > 0) children.emplace_back(cap, c);
    }
    std::sort(children.begin(), children.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    std::vector<Index> sizes;
    std::int64_t remaining = static_cast<std::int64_t>(members.size());
    for (std::size_t i = 0; remaining > 0; ++i) {
      assert(i < children.size());
      const std::int64_t size = std::min(children[i].first, remaining);
      sizes.push_back(static_cast<Index>(size));
      remaining -= size;
    }
    // Parts of those sizes with a small cut: edges between parts cross this node.
    std::vector<Index> part_of;
    if (sizes.size() == 1) {
      part_of.assign(members.size(), 0);
    } else {
      const Csr sub = induced_subgraph(graph_.view(), members, local_of_);
      switch (node_split_) {
        case NodeSplit::kGreedy:
          part_of = split_processes(sub.view(), sizes);
          break;
        case NodeSplit::kMultilevel:
          // Recursive bisection fixes each split for good; swaps between any two parts
          // (the greedy split's passes) polish the k-way cut.
          part_of = multilevel_partition(sub.view(), sizes, unconstrained_.partition);
          for (int pass = 0; pass < kSplitSwapPasses; ++pass) {
            if (swap_pass(sub.view(), static_cast<Index>(sizes.size()), part_of) == 0) break;
          }
          break;
      }
    }
    std::vector<std::vector<Index>> parts(sizes.size());
    for (std::size_t i = 0; i < members.size(); ++i) parts[at(part_of[i])].push_back(members[i]);
    Stats& stats = split_[at(depth)];
    ++stats.nodes;
    stats.processes += static_cast<Index>(members.size());
    stats.seconds += seconds_since(start);
    members = {};  // the parts hold them now
    for (std::size_t q = 0; q < parts.size(); ++q)
      map_node(depth + 1, node * arity + children[q].second, std::move(parts[q]));
  }

  /// Every leaf below is allowed: ordinary TreeMatch on the induced subgraph and the subtree.
  void map_full_subtree(int depth, Index first_leaf, const std::vector<Index>& members) {
    const auto start = std::chrono::steady_clock::now();
    std::optional<Topology>& tree = subtrees_[at(depth)];
    if (!tree) tree = subtree_topology(topology_, depth);
    Csr sub = induced_subgraph(graph_.view(), members, local_of_);
    const CommGraph subgraph = CommGraph::from_symmetric_csr(
        sub.n, std::move(sub.offsets), std::move(sub.targets), std::move(sub.weights));
    const TreeMatchResult result = treematch_map(subgraph, *tree, unconstrained_);
    for (std::size_t i = 0; i < members.size(); ++i)
      leaf_of_rank_[at(members[i])] = first_leaf + result.mapping.leaf_of_rank[i];
    for (const LevelTrace& level : result.levels) bottom_up_candidates_ += level.candidates;
    ++bottom_up_.nodes;
    bottom_up_.processes += static_cast<Index>(members.size());
    bottom_up_.seconds += seconds_since(start);
  }

  const CommGraph& graph_;
  const Topology& topology_;
  int split_depth_;
  NodeSplit node_split_;
  Index per_leaf_;
  Context unconstrained_;                     ///< ctx without allowed leaves, for full subtrees
  std::vector<std::int64_t> allowed_before_;  ///< [l] = allowed leaves among 0..l-1
  std::vector<Index> local_of_;               ///< scratch of induced_subgraph, all -1 between uses
  std::vector<std::optional<Topology>> subtrees_;  ///< [depth] = subtree of one node there
  std::vector<Index> leaf_of_rank_;
  std::vector<Stats> split_;  ///< [depth] = nodes split there
  Stats bottom_up_;
  std::size_t bottom_up_candidates_ = 0;
};

void check_placement(const CommGraph& graph, const Topology& topology, const Context& ctx) {
  const PlacementContext& placement = ctx.placement;
  if (placement.oversubscribe < 1) {
    throw std::invalid_argument("constrained mapping: oversubscribe is " +
                                std::to_string(placement.oversubscribe) +
                                "; give at least 1 process per core");
  }
  for (std::size_t i = 0; i < placement.allowed_leaves.size(); ++i) {
    const Index leaf = placement.allowed_leaves[i];
    if (leaf < 0 || leaf >= topology.leaf_count()) {
      throw std::invalid_argument("constrained mapping: allowed leaf " + std::to_string(leaf) +
                                  " is not a leaf of the " + std::to_string(topology.leaf_count()) +
                                  "-leaf topology; use logical indexes 0.." +
                                  std::to_string(topology.leaf_count() - 1));
    }
    if (i > 0 && leaf <= placement.allowed_leaves[i - 1]) {
      throw std::invalid_argument(
          "constrained mapping: allowed leaves must be sorted and distinct, but " +
          std::to_string(leaf) + " follows " + std::to_string(placement.allowed_leaves[i - 1]));
    }
  }
  const std::int64_t slots = static_cast<std::int64_t>(placement.allowed_leaves.size()) *
                             static_cast<std::int64_t>(placement.oversubscribe);
  if (graph.size() > slots) {
    throw std::invalid_argument("constrained mapping: " + std::to_string(graph.size()) +
                                " processes do not fit on " + std::to_string(slots) +
                                " slots (allowed cores x oversubscribe); allow more cores or use "
                                "--oversubscribe N");
  }
}

}  // namespace

std::vector<Index> split_processes(CsrView graph, const std::vector<Index>& sizes,
                                   int swap_passes) {
  if (swap_passes < 0) {
    throw std::invalid_argument("split_processes: " + std::to_string(swap_passes) +
                                " swap passes; give 0 or more");
  }
  check_part_sizes("split_processes", graph.n, sizes, "process", "processes");
  if (sizes.size() <= 1) return std::vector<Index>(at(graph.n), 0);
  std::vector<Index> part = grow_parts(graph, sizes);
  const auto k = static_cast<Index>(sizes.size());
  for (int pass = 0; pass < swap_passes; ++pass) {
    if (swap_pass(graph, k, part) == 0) break;
  }
  return part;
}

TreeMatchResult top_down_treematch_map(const CommGraph& graph, const Topology& topology,
                                       const Context& ctx, int split_depth, NodeSplit node_split) {
  Context all = ctx;
  all.placement.allowed_leaves.clear();
  if (all.placement.oversubscribe < 1 ||
      graph.size() > topology.leaf_count() * all.placement.oversubscribe) {
    throw std::invalid_argument("top-down mapping: " + std::to_string(graph.size()) +
                                " processes do not fit on " +
                                std::to_string(topology.leaf_count()) + " leaves");
  }
  TopDownMapper mapper(graph, topology, all, split_depth, node_split);
  return mapper.run();
}

TreeMatchResult constrained_treematch_map(const CommGraph& graph, const Topology& topology,
                                          const Context& ctx) {
  if (ctx.placement.allowed_leaves.empty()) return treematch_map(graph, topology, ctx);
  check_placement(graph, topology, ctx);
  if (static_cast<Index>(ctx.placement.allowed_leaves.size()) == topology.leaf_count()) {
    // The root's subtree is full: exactly the unconstrained mapping.
    Context unconstrained = ctx;
    unconstrained.placement.allowed_leaves.clear();
    return treematch_map(graph, topology, unconstrained);
  }
  TopDownMapper mapper(graph, topology, ctx);
  return mapper.run();
}

}  // namespace treematch
