// k-way FM along paths of moves (the best move out of the one part that holds one vertex too
// many, until a move reaches the part that lacks one; the best balanced prefix kept), and the
// iterated local search that kicks the split and lets FM repair it.
#include "src/partition/kway_refinement.h"

#include <cstdlib>
#include <queue>
#include <tuple>
#include <utility>

#include "kernels/utility.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

constexpr Index kNone = -1;
/// The local search: the exchanges a kick makes; the moves without a better state after which
/// the repair gives up (a kick's damage is local, and a whole pass's stall explores far from it:
/// with 2000 kicks on geo2d-256-hops, 100 moves took the command 0.57 s, 8 moves 0.24 s, for the
/// same mapping); the densest graphs it runs on (FM requeues every neighbour of a move: O(degree^2)
/// a move).
constexpr int kKickExchanges = 3;
constexpr std::size_t kKickStall = 8;
constexpr Offset kMaxAverageDegree = 64;

/// A queued move of `vertex` lowering the cut by `gain`; stale once the vertex's `version` moved.
struct Queued {
  Weight gain;
  Index vertex;
  std::uint32_t version;
  /// Higher gain first, then the smaller vertex: a strict order, so the queue's top is unique.
  bool operator<(const Queued& other) const {
    return gain < other.gain || (gain == other.gain && vertex > other.vertex);
  }
};

/// A vertex and the part it left.
using Move = std::pair<Index, Index>;

class KwayFm {
 public:
  KwayFm(CsrView g, Index parts, std::vector<Index>& part, const PartitionContext& ctx)
      : g_(g),
        part_(part),
        stall_(at(ctx.fm_stall) + at(g.n) / 100),
        connection_(at(parts), 0.0),
        locked_(at(g.n), 0),
        version_(at(g.n), 0),
        best_to_(at(g.n), kNone),
        queues_(at(parts)) {
    Weight total = 0.0;
    for (Offset e = 0; e < g.row_end(g.n - 1); ++e) total += std::abs(g.weights[at(e)]);
    // A change must exceed what rounding can make: the cut is a sum of weights in any order.
    threshold_ = total * 1e-12;
  }

  [[nodiscard]] Weight threshold() const { return threshold_; }
  /// Edges visited so far: what the local search's budget counts.
  [[nodiscard]] std::size_t work() const { return work_; }
  void charge(std::size_t visits) { work_ += visits; }

  /// One pass from the moves of `seeds` (every vertex: a pass over the whole split); returns the
  /// cut's change (<= 0) and appends the moves kept to `kept`.
  Weight pass(const std::vector<Index>& seeds, std::vector<Move>& kept) {
    return pass(seeds, kept, stall_);
  }

  /// ... giving up after `stall` moves without a better balanced state.
  Weight pass(const std::vector<Index>& seeds, std::vector<Move>& kept, std::size_t stall) {
    for (Index v : seeds) queue(v);
    Weight change = 0.0;
    Weight best = 0.0;
    std::size_t best_length = 0;
    std::size_t since_best = 0;
    Index surplus = kNone;  // the part with one vertex too many, kNone when all are at size
    Index deficit = kNone;  // ... and the part with one too few
    for (;;) {
      const Index from = surplus != kNone ? surplus : best_part();
      if (from == kNone || !valid_top(from)) break;
      const Queued top = queues_[at(from)].top();
      queues_[at(from)].pop();
      const Index v = top.vertex;
      const Index to = best_to_[at(v)];
      locked_[at(v)] = 1;
      touched_vertices_.push_back(v);
      part_[at(v)] = to;
      moves_.emplace_back(v, from);
      change -= top.gain;
      if (surplus == kNone) deficit = from;
      surplus = to == deficit ? kNone : to;
      if (surplus == kNone) deficit = kNone;
      if (surplus == kNone && change < best - threshold_) {
        best = change;
        best_length = moves_.size();
        since_best = 0;
      } else if (++since_best > stall) {
        break;
      }
      for (Offset e = g_.row_begin(v); e < g_.row_end(v); ++e) queue(g_.targets[at(e)]);
    }
    while (moves_.size() > best_length) {
      part_[at(moves_.back().first)] = moves_.back().second;
      moves_.pop_back();
    }
    kept.insert(kept.end(), moves_.begin(), moves_.end());
    moves_.clear();
    for (auto& q : queues_) q = {};
    for (Index v : touched_vertices_) locked_[at(v)] = 0;
    touched_vertices_.clear();
    return best;
  }

  /// The cut's change if v and u (in different parts) exchanged parts.
  [[nodiscard]] Weight exchange_change(Index v, Index u) const {
    const Index a = part_[at(v)];
    const Index b = part_[at(u)];
    Weight change = 0.0;
    for (const auto& [x, own, other] : {std::tuple{v, a, b}, std::tuple{u, b, a}}) {
      for (Offset e = g_.row_begin(x); e < g_.row_end(x); ++e) {
        const Index y = g_.targets[at(e)];
        if (y == v || y == u) continue;  // the edge between them stays cut
        const Index q = part_[at(y)];
        if (q == own) change += g_.weights[at(e)];
        if (q == other) change -= g_.weights[at(e)];
      }
    }
    return change;
  }

 private:
  /// Queues an unlocked vertex's best move (ties to the smaller part); a vertex with no edge to
  /// another part is not queued.
  void queue(Index v) {
    if (locked_[at(v)]) return;
    const Index own = part_[at(v)];
    work_ += static_cast<std::size_t>(g_.row_end(v) - g_.row_begin(v));
    touched_parts_.clear();
    for (Offset e = g_.row_begin(v); e < g_.row_end(v); ++e) {
      const Index q = part_[at(g_.targets[at(e)])];
      if (connection_[at(q)] == 0.0) touched_parts_.push_back(q);
      connection_[at(q)] += g_.weights[at(e)];
    }
    const Weight inside = connection_[at(own)];
    Index to = kNone;
    Weight gain = 0.0;
    for (Index q : touched_parts_) {
      const Weight g = connection_[at(q)] - inside;
      if (q != own && (to == kNone || g > gain || (g == gain && q < to))) {
        to = q;
        gain = g;
      }
    }
    for (Index q : touched_parts_) connection_[at(q)] = 0.0;
    ++version_[at(v)];
    best_to_[at(v)] = to;
    if (to != kNone) queues_[at(own)].push({gain, v, version_[at(v)]});
  }

  /// Drops part q's stale entries; whether a move is left there.
  bool valid_top(Index q) {
    auto& queue = queues_[at(q)];
    while (!queue.empty() && (locked_[at(queue.top().vertex)] ||
                              queue.top().version != version_[at(queue.top().vertex)])) {
      queue.pop();
    }
    return !queue.empty();
  }

  /// With every part at its size: the part whose best move is best.
  Index best_part() {
    Index best = kNone;
    for (Index q = 0; q < static_cast<Index>(queues_.size()); ++q) {
      if (valid_top(q) && (best == kNone || queues_[at(best)].top() < queues_[at(q)].top())) {
        best = q;
      }
    }
    return best;
  }

  CsrView g_;
  std::vector<Index>& part_;
  std::size_t stall_;
  std::size_t work_ = 0;
  Weight threshold_ = 0.0;
  std::vector<Weight> connection_;  ///< scratch: a vertex's edge weight to each part
  std::vector<Index> touched_parts_;
  std::vector<char> locked_;
  std::vector<Index> touched_vertices_;  ///< the pass's locked vertices
  std::vector<std::uint32_t> version_;
  std::vector<Index> best_to_;
  std::vector<std::priority_queue<Queued>> queues_;  ///< by the part the vertex is in
  std::vector<Move> moves_;
};

}  // namespace

bool refine_kway(CsrView graph, Index parts, std::vector<Index>& part, const KwayOptions& options,
                 std::uint64_t seed, const PartitionContext& ctx) {
  // Off, as in every preset: not even the setup below, O(nnz) on every split.
  if (options.passes < 1 && options.kick_work <= 0.0) return false;
  if (parts < 3 || graph.n == 0) return false;
  if (graph.row_end(graph.n - 1) > kMaxAverageDegree * static_cast<Offset>(graph.n)) return false;
  KwayFm fm(graph, parts, part, ctx);
  std::vector<Move> journal;
  std::vector<Index> every(at(graph.n));
  for (Index v = 0; v < graph.n; ++v) every[at(v)] = v;
  for (int pass = 0; pass < options.passes; ++pass) {
    if (fm.pass(every, journal) == 0.0) break;
  }
  bool changed = !journal.empty();
  // Iterated local search: exchange a few processes across the boundary at random, let FM
  // repair from there, and keep the result unless the cut rose.
  std::uint64_t state = seed;
  const auto draw = [&state](std::uint64_t bound) {
    state = kernels::splitmix64(state);
    return state % bound;
  };
  std::vector<Index> seeds;
  const auto entries = static_cast<double>(graph.row_end(graph.n - 1));
  const std::size_t budget = fm.work() + static_cast<std::size_t>(options.kick_work * entries);
  while (fm.work() < budget) {
    journal.clear();
    seeds.clear();
    Weight change = 0.0;
    for (int exchange = 0; exchange < kKickExchanges; ++exchange) {
      const Index v = static_cast<Index>(draw(at(graph.n)));
      const Offset degree = graph.row_end(v) - graph.row_begin(v);
      if (degree == 0) continue;
      const Index u = graph.targets[at(graph.row_begin(v) + static_cast<Offset>(draw(at(degree))))];
      if (part[at(u)] == part[at(v)]) continue;
      change += fm.exchange_change(v, u);
      journal.emplace_back(v, part[at(v)]);
      journal.emplace_back(u, part[at(u)]);
      std::swap(part[at(v)], part[at(u)]);
      for (Index x : {v, u}) {
        seeds.push_back(x);
        for (Offset e = graph.row_begin(x); e < graph.row_end(x); ++e) {
          seeds.push_back(graph.targets[at(e)]);
        }
      }
    }
    if (journal.empty()) {
      fm.charge(kKickExchanges);  // draws that found no boundary still cost
      continue;
    }
    for (int pass = 0; pass < options.passes; ++pass) {
      const Weight gained = fm.pass(seeds, journal, kKickStall);
      change += gained;
      if (gained == 0.0) break;
    }
    if (change > fm.threshold()) {  // worse: undo, latest first
      for (auto it = journal.rbegin(); it != journal.rend(); ++it) part[at(it->first)] = it->second;
    } else {
      changed = true;
    }
  }
  return changed;
}

}  // namespace treematch
