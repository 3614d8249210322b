// TreeMatch under --cores: top-down k-way splits, bottom-up TreeMatch inside full subtrees.
#include "src/top_down/top_down_mapping.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/held_csr.h"
#include "kernels/parallel_tasks.h"
#include "kernels/part_subgraphs.h"
#include "kernels/utility.h"
#include "src/model/cost.h"
#include "src/partition/kway_refinement.h"
#include "src/partition/kway_vcycles.h"
#include "src/partition/multilevel_partition.h"
#include "src/partition/part_pair_refinement.h"
#include "src/refine/refinement.h"
#include "src/walk/bottom_up.h"
#include "src/walk/mapping_input.h"

namespace treematch {
namespace {

using kernels::Csr;
using kernels::CsrView;
using kernels::HeldCsr;

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

/// How large the cluster grown from `seed` wants to be: grows it greedily (most connected free
/// process next, as grow_parts does) up to the largest size still open, and returns the open size
/// whose prefix has the least cut per process (ties: the larger). Touches only the cluster and its
/// neighbours; `scratch_weight` and `scratch_in` are all zero on entry and on return.
Index natural_size(CsrView g, Index seed, const std::vector<Index>& open_sizes,
                   const std::vector<Index>& part, const std::vector<Weight>& volume,
                   Index smallest_free, std::vector<Weight>& scratch_weight,
                   std::vector<char>& scratch_in) {
  const Index largest = *std::max_element(open_sizes.begin(), open_sizes.end());
  std::vector<Index> taken;
  std::vector<Index> touched;
  std::vector<double> cut_of{0.0};  // [s] = cut of the first s processes
  LazyHeap frontier;
  double cut = 0.0;
  const auto free = [&](Index v) { return part[at(v)] == kUnassigned && scratch_in[at(v)] == 0; };
  Index next = seed;
  while (static_cast<Index>(taken.size()) < largest && next != kUnassigned) {
    scratch_in[at(next)] = 1;
    taken.push_back(next);
    cut += volume[at(next)] - 2.0 * scratch_weight[at(next)];
    cut_of.push_back(cut);
    for (Offset e = g.row_begin(next); e < g.row_end(next); ++e) {
      const Index u = g.targets[at(e)];
      if (!free(u)) continue;
      if (scratch_weight[at(u)] == 0.0) touched.push_back(u);
      scratch_weight[at(u)] += g.weights[at(e)];
      frontier.push({scratch_weight[at(u)], u});
    }
    next = kUnassigned;
    while (!frontier.empty()) {
      const auto [key, v] = frontier.top();
      frontier.pop();
      if (free(v) && scratch_weight[at(v)] == key) {
        next = v;
        break;
      }
    }
    if (next == kUnassigned) {  // nothing free is connected: the smallest free process
      for (Index v = smallest_free; v < g.n; ++v) {
        if (free(v)) {
          next = v;
          break;
        }
      }
    }
  }
  for (const Index v : touched) scratch_weight[at(v)] = 0.0;
  for (const Index v : taken) {
    scratch_weight[at(v)] = 0.0;
    scratch_in[at(v)] = 0;
  }
  Index best = open_sizes.front();
  double best_ratio = std::numeric_limits<double>::infinity();
  for (const Index size : open_sizes) {
    if (size >= static_cast<Index>(cut_of.size())) continue;
    const double ratio = cut_of[at(size)] / static_cast<double>(size);
    if (ratio < best_ratio || (ratio == best_ratio && size > best)) {
      best_ratio = ratio;
      best = size;
    }
  }
  return best;
}

/// Greedy graph growing: parts of exactly `sizes`, each grown from the heaviest free process.
/// When the sizes differ (children of different capacities), each grown part takes the open size
/// its cluster fits best (natural_size), so that a group of 11 processes that belong together is
/// not grown to 12 (taking one from another group) just because a 12-core child came first.
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
  const std::vector<Weight> volume = free_volume;
  const bool uneven =
      std::adjacent_find(sizes.begin(), sizes.end(), std::not_equal_to<>()) != sizes.end();
  std::vector<Weight> scratch_weight(uneven ? at(g.n) : 0, 0.0);
  std::vector<char> scratch_in(uneven ? at(g.n) : 0, 0);
  std::vector<bool> used(at(k), false);
  std::vector<Index> touched;
  Index smallest_free = 0;
  for (Index grown = 0; grown + 1 < k; ++grown) {
    // Some process is free: the parts still open need at least one each.
    const Index seed = pop_live(seeds, free_volume, part);
    while (part[at(smallest_free)] != kUnassigned) ++smallest_free;
    std::vector<Index> open_sizes;
    for (Index q = 0; q < k; ++q) {
      if (!used[at(q)]) open_sizes.push_back(sizes[at(q)]);
    }
    const Index size = uneven ? natural_size(g, seed, open_sizes, part, volume, smallest_free,
                                             scratch_weight, scratch_in)
                              : sizes[at(grown)];
    Index q = 0;  // the first open part of that size
    while (used[at(q)] || sizes[at(q)] != size) ++q;
    used[at(q)] = true;
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
    take(seed);
    for (Index grown_size = 1; grown_size < size; ++grown_size) {
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
  Index last = 0;
  while (last < k && used[at(last)]) ++last;
  for (Index& p : part) {
    if (p == kUnassigned) p = last;
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
  /// The pair of parts, lower first, in one number: candidates sort by it first.
  [[nodiscard]] std::uint64_t pair() const {
    return static_cast<std::uint64_t>(std::min(from, to)) << 32U |
           static_cast<std::uint32_t>(std::max(from, to));
  }
};

/// The gains of the processes of a block of rows toward each part adjacent to them.
class CandidateScan {
 public:
  explicit CandidateScan(Index k) : toward_(at(k), 0.0), adjacent_(at(k), 0) {}

  /// Appends v's candidates, one per adjacent part other than its own (O(degree)).
  void add(CsrView g, const std::vector<Index>& part, Index v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index b = part[at(g.targets[at(e)])];
      if (!adjacent_[at(b)]) {
        adjacent_[at(b)] = 1;
        parts_seen_.push_back(b);
      }
      toward_[at(b)] += g.weights[at(e)];
    }
    const Index a = part[at(v)];
    const Weight internal = toward_[at(a)];
    for (Index b : parts_seen_) {
      if (b != a) found.push_back({a, b, toward_[at(b)] - internal, v});
      toward_[at(b)] = 0.0;
      adjacent_[at(b)] = 0;
    }
    parts_seen_.clear();
  }

  std::vector<SwapCandidate> found;

 private:
  std::vector<Weight> toward_;
  std::vector<char> adjacent_;
  std::vector<Index> parts_seen_;
};

/// Every boundary process with each adjacent part, grouped by pair of parts, the lower part's side
/// first, then by decreasing gain, then by process. That order is strict (a process has one
/// candidate per adjacent part), so scanning rows in parallel tasks and sorting in parallel give
/// the same list for any thread count. Small graphs (the splits inside nodes) stay serial.
std::vector<SwapCandidate> sorted_swap_candidates(CsrView g, Index k,
                                                  const std::vector<Index>& part) {
  constexpr Index kRowsPerTask = 2048;
  std::vector<SwapCandidate> candidates;
  if (g.n <= kRowsPerTask) {
    CandidateScan scan(k);
    for (Index v = 0; v < g.n; ++v) scan.add(g, part, v);
    candidates = std::move(scan.found);
  } else {
    tbb::enumerable_thread_specific<CandidateScan> scans([k] { return CandidateScan(k); });
    tbb::parallel_for(tbb::blocked_range<Index>(0, g.n, kRowsPerTask),
                      [&](const tbb::blocked_range<Index>& rows) {
                        CandidateScan& scan = scans.local();
                        for (Index v = rows.begin(); v < rows.end(); ++v) scan.add(g, part, v);
                      });
    std::size_t total = 0;
    for (const CandidateScan& scan : scans) total += scan.found.size();
    candidates.reserve(total);
    for (const CandidateScan& scan : scans)
      candidates.insert(candidates.end(), scan.found.begin(), scan.found.end());
  }
  tbb::parallel_sort(candidates.begin(), candidates.end(),
                     [](const SwapCandidate& x, const SwapCandidate& y) {
                       if (x.pair() != y.pair()) return x.pair() < y.pair();
                       if (x.from != y.from) return x.from < y.from;
                       if (x.gain != y.gain) return x.gain > y.gain;
                       return x.v < y.v;
                     });
  return candidates;
}

/// One pass of pairwise swaps: for every pair of adjacent parts, each boundary process of the
/// lower part, in order of decreasing gain, is swapped with the best of the next few unlocked
/// boundary processes of the upper part if that strictly lowers the cut. Returns the swaps made.
int swap_pass(CsrView g, Index k, std::vector<Index>& part) {
  const std::size_t n = at(g.n);
  const std::vector<SwapCandidate> candidates = sorted_swap_candidates(g, k, part);

  std::vector<char> locked(n, 0);  // swapped in this pass
  std::vector<char> stale(n, 0);   // a neighbour moved since the gains were computed
  std::vector<Index> pair_of(n, -1);
  std::vector<Weight> gain(n, 0.0);       // toward the other part of the pair being processed
  std::vector<Weight> weight_to(n, 0.0);  // the edge to u, for the u being swapped
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
      if (head == upper.size()) break;
      // u's edges spread by neighbour for the partners tried below, cleared after them.
      for (Offset e = g.row_begin(u); e < g.row_end(u); ++e)
        weight_to[at(g.targets[at(e)])] = g.weights[at(e)];
      Weight best_gain = 0.0;
      Index best = kUnassigned;
      std::size_t tried = 0;
      for (std::size_t i = head;
           i < upper.size() && i < head + kSwapLookahead && tried < kSwapPartners; ++i) {
        const Index v = upper[i];
        if (locked[at(v)]) continue;
        ++tried;
        // Swapping u and v: both gains, minus their edge counted once in each.
        const Weight swap_gain = gain[at(u)] + gain[at(v)] - 2.0 * weight_to[at(v)];
        if (swap_gain > best_gain) {
          best_gain = swap_gain;
          best = v;
        }
      }
      for (Offset e = g.row_begin(u); e < g.row_end(u); ++e) weight_to[at(g.targets[at(e)])] = 0.0;
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

using kernels::seconds_since;

/// The top-down recursion over the tree, with its statistics. A node's processes come with the
/// subgraph they induce, which its split cuts into its children's; the children are mapped as
/// parallel tasks (disjoint processes and leaves), each result independent of the others and of
/// the thread count.
class TopDownMapper {
 public:
  /// Nodes above `split_depth` are split even when their subtree is full. `allowed` empty: every
  /// leaf. Full subtrees are mapped by `map_subtree`.
  TopDownMapper(const CommGraph& graph, const Topology& topology, const std::vector<Index>& allowed,
                Index per_leaf, int split_depth, NodeSplit node_split,
                const PartitionContext& partition, const SubtreeMapping& map_subtree)
      : graph_(graph),
        topology_(topology),
        split_depth_(split_depth),
        node_split_(node_split),
        per_leaf_(per_leaf),
        partition_(partition),
        map_subtree_(map_subtree),
        allowed_before_(at(topology.leaf_count()) + 1, 0),
        subtrees_(at(topology.depth()) + 1),
        split_(at(topology.depth())) {
    for (Index leaf : allowed) allowed_before_[at(leaf) + 1] = 1;
    if (allowed.empty()) {
      for (std::size_t leaf = 1; leaf < allowed_before_.size(); ++leaf) allowed_before_[leaf] = 1;
    }
    for (std::size_t i = 1; i < allowed_before_.size(); ++i)
      allowed_before_[i] += allowed_before_[i - 1];
    leaf_of_rank_.assign(at(graph.size()), kUnassigned);
  }

  TreeMatchResult run() {
    std::vector<Index> everyone(at(graph_.size()));
    for (Index v = 0; v < graph_.size(); ++v) everyone[at(v)] = v;
    // The root borrows the whole graph: a copy would hold it twice (S3: 333 MB more).
    map_node(/*depth=*/0, /*node=*/0, std::move(everyone), HeldCsr::borrowed(graph_.view()),
             /*evaluating=*/false);

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

  /// Maps `members` (sorted process ids), whose induced subgraph is `sub` (vertex i = members[i]),
  /// into the subtree of node `node` at depth `depth`; an owned `sub` is freed once the children's
  /// subgraphs are copied. `evaluating`: a trial of cost_inside, which records no statistics and
  /// assigns no shapes.
  void map_node(int depth, Index node, std::vector<Index> members, HeldCsr sub, bool evaluating) {
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
      map_full_subtree(depth, first_leaf, members, std::move(sub), evaluating);
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
      switch (node_split_) {
        case NodeSplit::kGreedy:
          part_of = split_processes(sub.view(), sizes);
          break;
        case NodeSplit::kMultilevel:
          // Recursive bisection fixes each split for good; swaps between any two parts
          // (the greedy split's passes) polish the k-way cut.
          {
            const Index part_count = static_cast<Index>(sizes.size());
            const auto swap_until_settled = [&] {
              for (int pass = 0; pass < partition_.swap_passes; ++pass) {
                if (swap_pass(sub.view(), part_count, part_of) == 0) break;
              }
            };
            part_of = multilevel_partition(sub.view(), sizes, partition_);
            swap_until_settled();
            // Then each two parts as a bisection of their own, and the swaps again after a change.
            for (int pass = 0; pass < partition_.pair_passes; ++pass) {
              if (!refine_part_pairs(sub.view(), part_count, part_of, partition_)) break;
              swap_until_settled();
            }
            // Then single moves among any parts: exchanges around three or more of them.
            const KwayOptions kway{.passes = partition_.kway_passes,
                                   .kick_work = partition_.kway_kick_work};
            const std::uint64_t depth_seed = static_cast<std::uint64_t>(depth) << 40;
            if (refine_kway(sub.view(), part_count, part_of, kway,
                            kernels::splitmix64(partition_.seed ^ depth_seed ^ at(node)),
                            partition_)) {
              swap_until_settled();
            }
            // Then whole clusters among any parts, from a coarsening inside them (seeded apart
            // from the flat refinement's search by a fixed odd constant).
            if (refine_kway_vcycles(sub.view(), part_count, part_of, partition_.kway_vcycles,
                                    kernels::splitmix64(partition_.seed ^ depth_seed ^ at(node) ^
                                                        0x9e3779b97f4a7c15ULL),
                                    partition_)) {
              swap_until_settled();
            }
            break;
          }
      }
    }
    std::vector<std::vector<Index>> parts(sizes.size());
    for (std::size_t i = 0; i < members.size(); ++i) parts[at(part_of[i])].push_back(members[i]);
    std::vector<HeldCsr> part_subs;
    if (parts.size() == 1) {
      part_subs.push_back(std::move(sub));
    } else {
      part_subs.reserve(parts.size());
      for (Csr& part_sub : kernels::part_subgraphs(sub.view(), part_of, parts.size()))
        part_subs.emplace_back(std::move(part_sub));
    }
    sub.release();  // the parts hold it now
    members = {};
    if (!evaluating) record(split_[at(depth)], parts, seconds_since(start));
    std::vector<Index> child_of_part(parts.size());
    for (std::size_t q = 0; q < parts.size(); ++q) child_of_part[q] = children[q].second;
    if (!evaluating) assign_parts_to_shapes(depth, node, parts, part_subs, child_of_part);
    kernels::parallel_for_all(parts.size(), [&](std::size_t q) {
      map_node(depth + 1, node * arity + child_of_part[q], std::move(parts[q]),
               std::move(part_subs[q]), evaluating);
    });
  }

  /// Adds one split or subtree mapping of `parts`' processes, which took `seconds`.
  void record(Stats& stats, const std::vector<std::vector<Index>>& parts, double seconds) {
    Index processes = 0;
    for (const std::vector<Index>& part : parts) processes += static_cast<Index>(part.size());
    const std::scoped_lock lock(stats_mutex_);
    ++stats.nodes;
    stats.processes += processes;
    stats.seconds += seconds;
  }

  /// Children of one capacity may differ in shape (a hole under one and not the other: a
  /// restricted package, a node of another CPU model), and a part fits some shapes better: 3
  /// processes that all talk to each other fit an L3 of 3 cores better than 2 + 1. Among the
  /// children of equal capacity the parts go to the shapes where they cost least inside (the
  /// traffic between parts crosses this node whatever the children). Each part is mapped once per
  /// shape, without this step inside, so the extra work is the shapes' count times the subtree
  /// mappings; children of one shape keep their order.
  void assign_parts_to_shapes(int depth, Index node, const std::vector<std::vector<Index>>& parts,
                              const std::vector<HeldCsr>& part_subs,
                              std::vector<Index>& child_of_part) {
    const Index arity = topology_.levels()[at(depth)].arity;
    for (std::size_t first = 0; first < parts.size();) {
      const std::int64_t cap = capacity(depth + 1, node * arity + child_of_part[first]);
      std::size_t last = first;
      while (last < parts.size() &&
             capacity(depth + 1, node * arity + child_of_part[last]) == cap) {
        ++last;
      }
      // Shapes of the children first..last-1, each with the children having it.
      std::vector<std::vector<std::uint8_t>> shapes;
      std::vector<std::vector<Index>> children_of_shape;
      for (std::size_t q = first; q < last; ++q) {
        std::vector<std::uint8_t> shape = shape_of(depth + 1, node * arity + child_of_part[q]);
        const auto known = std::find(shapes.begin(), shapes.end(), shape);
        if (known == shapes.end()) {
          shapes.push_back(std::move(shape));
          children_of_shape.push_back({child_of_part[q]});
        } else {
          children_of_shape[static_cast<std::size_t>(known - shapes.begin())].push_back(
              child_of_part[q]);
        }
      }
      if (shapes.size() > 1) {
        // cost[q][k] = part q mapped alone into a child of shape k.
        std::vector<std::vector<double>> cost(last - first);
        for (std::size_t q = first; q < last; ++q) {
          for (const std::vector<Index>& same : children_of_shape)
            cost[q - first].push_back(
                cost_inside(depth + 1, node * arity + same.front(), parts[q], part_subs[q]));
        }
        // Greedy by regret: the part that loses most by missing its best shape chooses first.
        std::vector<std::size_t> left(children_of_shape.size());
        for (std::size_t k = 0; k < left.size(); ++k) left[k] = children_of_shape[k].size();
        std::vector<std::size_t> used(children_of_shape.size(), 0);
        std::vector<bool> placed(last - first, false);
        for (std::size_t round = first; round < last; ++round) {
          std::size_t pick = 0;
          std::size_t pick_shape = 0;
          double pick_regret = -1.0;
          for (std::size_t q = 0; q < placed.size(); ++q) {
            if (placed[q]) continue;
            double best = std::numeric_limits<double>::infinity();
            double second = std::numeric_limits<double>::infinity();
            std::size_t best_shape = 0;
            for (std::size_t k = 0; k < left.size(); ++k) {
              if (left[k] == 0) continue;
              if (cost[q][k] < best) {
                second = best;
                best = cost[q][k];
                best_shape = k;
              } else if (cost[q][k] < second) {
                second = cost[q][k];
              }
            }
            const double regret = std::isinf(second) ? 0.0 : second - best;
            if (regret > pick_regret) {
              pick_regret = regret;
              pick = q;
              pick_shape = best_shape;
            }
          }
          placed[pick] = true;
          --left[pick_shape];
          child_of_part[first + pick] = children_of_shape[pick_shape][used[pick_shape]++];
        }
      }
      first = last;
    }
  }

  /// Which leaves below node `node` of depth `depth` are usable, as a byte per leaf.
  std::vector<std::uint8_t> shape_of(int depth, Index node) const {
    const Index width = topology_.leaves_below(depth);
    std::vector<std::uint8_t> shape(at(width));
    for (Index i = 0; i < width; ++i) {
      const Index leaf = node * width + i;
      shape[at(i)] =
          static_cast<std::uint8_t>(allowed_before_[at(leaf) + 1] - allowed_before_[at(leaf)]);
    }
    return shape;
  }

  /// The weighted cost of the traffic inside `members` (inducing `sub`) once mapped into node
  /// `node` alone.
  double cost_inside(int depth, Index node, const std::vector<Index>& members, const HeldCsr& sub) {
    map_node(depth, node, members, HeldCsr::borrowed(sub.view()), /*evaluating=*/true);
    double cost = 0.0;
    const CsrView g = sub.view();
    for (Index i = 0; i < g.n; ++i) {
      for (Offset e = g.row_begin(i); e < g.row_end(i); ++e) {
        const Index j = g.targets[at(e)];
        cost += g.weights[at(e)] * topology_.weighted_distance(leaf_of_rank_[at(members[at(i)])],
                                                               leaf_of_rank_[at(members[at(j)])]);
      }
    }
    return cost;
  }

  /// Every leaf below is allowed: the subtree mapping (TreeMatch's walk) on the induced subgraph.
  void map_full_subtree(int depth, Index first_leaf, const std::vector<Index>& members, HeldCsr sub,
                        bool evaluating) {
    const auto start = std::chrono::steady_clock::now();
    Csr owned = sub.take();
    const CommGraph subgraph = CommGraph::from_symmetric_csr(
        owned.n, std::move(owned.offsets), std::move(owned.targets), std::move(owned.weights));
    const TreeMatchResult result = map_subtree_(subgraph, subtree_at(depth));
    for (std::size_t i = 0; i < members.size(); ++i)
      leaf_of_rank_[at(members[i])] = first_leaf + result.mapping.leaf_of_rank[i] / per_leaf_;
    if (evaluating) return;
    std::size_t candidates = 0;
    for (const LevelTrace& level : result.levels) candidates += level.candidates;
    const double seconds = seconds_since(start);
    const std::scoped_lock lock(stats_mutex_);
    bottom_up_candidates_ += candidates;
    ++bottom_up_.nodes;
    bottom_up_.processes += static_cast<Index>(members.size());
    bottom_up_.seconds += seconds;
  }

  /// The subtree of one node of depth `depth`, built once (several processes per leaf: one
  /// virtual leaf each, as the driver does).
  const Topology& subtree_at(int depth) {
    const std::scoped_lock lock(subtrees_mutex_);
    std::optional<Topology>& tree = subtrees_[at(depth)];
    if (!tree) tree = subtree_topology(topology_, depth).with_oversubscription(per_leaf_);
    return *tree;
  }

  const CommGraph& graph_;
  const Topology& topology_;
  int split_depth_;
  NodeSplit node_split_;
  Index per_leaf_;
  PartitionContext partition_;                ///< the multilevel split's options
  const SubtreeMapping& map_subtree_;         ///< maps a full subtree
  std::vector<std::int64_t> allowed_before_;  ///< [l] = allowed leaves among 0..l-1
  std::mutex subtrees_mutex_;
  std::vector<std::optional<Topology>> subtrees_;  ///< [depth] = subtree of one node there
  std::vector<Index> leaf_of_rank_;                ///< written by the task mapping each process
  std::mutex stats_mutex_;                         ///< the tasks' statistics below
  std::vector<Stats> split_;                       ///< [depth] = nodes split there
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
                                       int split_depth, NodeSplit node_split,
                                       const PartitionContext& partition,
                                       const SubtreeMapping& map_subtree) {
  if (graph.size() > topology.leaf_count()) {
    throw std::invalid_argument("top-down mapping: " + std::to_string(graph.size()) +
                                " processes do not fit on " +
                                std::to_string(topology.leaf_count()) + " leaves");
  }
  return top_down_treematch_map(graph, topology, {}, 1, split_depth, node_split, partition,
                                map_subtree);
}

TreeMatchResult top_down_treematch_map(const CommGraph& graph, const Topology& topology,
                                       const std::vector<Index>& allowed, Index per_leaf,
                                       int split_depth, NodeSplit node_split,
                                       const PartitionContext& partition,
                                       const SubtreeMapping& map_subtree) {
  return TopDownMapper(graph, topology, allowed, per_leaf, split_depth, node_split, partition,
                       map_subtree)
      .run();
}

TreeMatchResult constrained_treematch_map(const CommGraph& graph, const Topology& topology,
                                          const Context& ctx) {
  check_placement(graph, topology, ctx);
  // Full subtrees: TreeMatch's walk, refined inside the subtree.
  const bool refine = ctx.refinement.swaps && graph.nnz() <= ctx.refinement.max_entries;
  const SubtreeMapping walk = [&](const CommGraph& subgraph, const Topology& subtree) {
    TreeMatchResult result =
        bottom_up_mapping(LocalMappingInput(subgraph), subtree, ctx.grouping, ctx.walk);
    if (refine && subtree.depth() > 0) {
      result.refinement_swaps =
          refine_mapping(subgraph, subtree, result.mapping.leaf_of_rank, ctx.refinement).swaps;
    }
    return result;
  };
  // Two splits of the partial nodes, as parallel tasks, the cheaper kept (the greedy one on
  // ties): greedy growing fits clusters to capacities (natural_size), which uneven children need;
  // the multilevel partitioner cuts large meshes 5-6% better (S1 on 128 nodes of 112 and 144
  // cores: 3.31e8 against 3.51e8).
  const Index per_leaf = ctx.placement.oversubscribe;
  const std::vector<Index>& allowed = ctx.placement.allowed_leaves;
  TreeMatchResult greedy;
  TreeMatchResult multilevel;
  kernels::parallel_invoke_all(
      [&] {
        greedy = TopDownMapper(graph, topology, allowed, per_leaf, 0, NodeSplit::kGreedy,
                               ctx.partition, walk)
                     .run();
      },
      [&] {
        multilevel = TopDownMapper(graph, topology, allowed, per_leaf, 0, NodeSplit::kMultilevel,
                                   ctx.partition, walk)
                         .run();
      });
  const double greedy_cost = evaluate_cost(graph, topology, greedy.mapping).weighted;
  const double multilevel_cost = evaluate_cost(graph, topology, multilevel.mapping).weighted;
  return multilevel_cost < greedy_cost ? std::move(multilevel) : std::move(greedy);
}

}  // namespace treematch
