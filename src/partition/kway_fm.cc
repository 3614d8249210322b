// k-way FM with vertex weights: per-part queues of each vertex's best move, the loads kept within
// the slack, the best prefix by (excess, cut).
#include "src/partition/kway_fm.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "kernels/utility.h"

namespace treematch {

using kernels::at;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

namespace {
constexpr Index kNone = -1;
constexpr Offset kMaxAverageDegree = 64;
}  // namespace

bool kway_fm_applies(CsrView g, Index parts) {
  return parts >= 3 && g.n > 0 &&
         g.row_end(g.n - 1) <= kMaxAverageDegree * static_cast<Offset>(g.n);
}

std::vector<Load> part_loads(const std::vector<Index>& part, Index parts) {
  std::vector<Load> loads(at(parts), 0);
  for (Index q : part) ++loads[at(q)];
  return loads;
}

KwayFm::KwayFm(CsrView g, std::span<const Load> weight, std::vector<Load> target, Balance bounds,
               std::vector<Index>& part, const PartitionContext& ctx)
    : g_(g),
      weight_(weight),
      target_(std::move(target)),
      load_(target_.size(), 0),
      bounds_(bounds),
      part_(part),
      stall_(at(ctx.fm_stall) + at(g.n) / 100),
      connection_(target_.size(), 0.0),
      locked_(at(g.n), 0),
      version_(at(g.n), 0),
      best_to_(at(g.n), kNone),
      queues_(target_.size()) {
  for (Index v = 0; v < g.n; ++v) load_[at(part_[at(v)])] += weight_[at(v)];
  for (Index q = 0; q < static_cast<Index>(target_.size()); ++q) excess_ += excess_of(q);
  Weight total = 0.0;
  for (Offset e = 0; e < g.row_end(g.n - 1); ++e) total += std::abs(g.weights[at(e)]);
  threshold_ = total * 1e-12;
}

Weight KwayFm::pass(const std::vector<Index>& seeds, std::vector<KwayMove>& kept) {
  return pass(seeds, kept, stall_);
}

Weight KwayFm::pass(const std::vector<Index>& seeds, std::vector<KwayMove>& kept,
                    std::size_t stall) {
  for (Index v : seeds) queue(v);
  Weight change = 0.0;
  Weight best = 0.0;
  Load best_excess = excess_;
  std::size_t best_length = 0;
  std::size_t since_best = 0;
  for (;;) {
    const Index overloaded = overloaded_part();
    const Index from = overloaded != kNone ? overloaded : best_part();
    if (from == kNone || !valid_top(from)) break;
    const Queued top = queues_[at(from)].top();
    queues_[at(from)].pop();
    const Index v = top.vertex;
    Index to = best_to_[at(v)];
    Weight gain = top.gain;
    const Load w = weight_[at(v)];
    if (load_[at(to)] + w > target_[at(to)] + bounds_.slack ||
        load_[at(from)] - w < target_[at(from)] - bounds_.slack) {
      // Its best part has no room (the loads changed since it was queued): its best that has.
      std::tie(to, gain) = best_move(v, /*room_only=*/true);
      ++version_[at(v)];
      if (to == kNone) continue;  // queued again when a neighbour moves
      best_to_[at(v)] = to;
      queues_[at(from)].push({gain, v, version_[at(v)]});
      continue;
    }
    locked_[at(v)] = 1;
    touched_vertices_.push_back(v);
    relocate(v, to);
    moves_.emplace_back(v, from);
    change -= gain;
    if (excess_ < best_excess || (excess_ == best_excess && change < best - threshold_)) {
      best = change;
      best_excess = excess_;
      best_length = moves_.size();
      since_best = 0;
    } else if (++since_best > stall) {
      break;
    }
    for (Offset e = g_.row_begin(v); e < g_.row_end(v); ++e) queue(g_.targets[at(e)]);
  }
  while (moves_.size() > best_length) {
    relocate(moves_.back().first, moves_.back().second);
    moves_.pop_back();
  }
  kept.insert(kept.end(), moves_.begin(), moves_.end());
  moves_.clear();
  for (auto& q : queues_) q = {};
  for (Index v : touched_vertices_) locked_[at(v)] = 0;
  touched_vertices_.clear();
  return best;
}

void KwayFm::undo(const std::vector<KwayMove>& moves) {
  for (auto it = moves.rbegin(); it != moves.rend(); ++it) relocate(it->first, it->second);
}

void KwayFm::move(Index v, Index to) {
  relocate(v, to);
}

Weight KwayFm::exchange_change(Index v, Index u) const {
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

Weight KwayFm::tally(Index v) {
  work_ += static_cast<std::size_t>(g_.row_end(v) - g_.row_begin(v));
  touched_parts_.clear();
  for (Offset e = g_.row_begin(v); e < g_.row_end(v); ++e) {
    const Index q = part_[at(g_.targets[at(e)])];
    if (connection_[at(q)] == 0.0) touched_parts_.push_back(q);
    connection_[at(q)] += g_.weights[at(e)];
  }
  return connection_[at(part_[at(v)])];
}

std::pair<Index, Weight> KwayFm::best_move(Index v, bool room_only) {
  const Index own = part_[at(v)];
  const Load w = weight_[at(v)];
  const Weight inside = tally(v);
  const bool may_leave = !room_only || load_[at(own)] - w >= target_[at(own)] - bounds_.slack;
  Index to = kNone;
  Weight gain = 0.0;
  for (Index q : touched_parts_) {
    const Weight g = connection_[at(q)] - inside;
    if (q == own || !may_leave) continue;
    if (room_only && load_[at(q)] + w > target_[at(q)] + bounds_.slack) continue;
    if (to == kNone || g > gain || (g == gain && q < to)) {
      to = q;
      gain = g;
    }
  }
  for (Index q : touched_parts_) connection_[at(q)] = 0.0;
  return {to, gain};
}

void KwayFm::queue(Index v) {
  if (locked_[at(v)]) return;
  // The best part regardless of room: the loads change before it moves, and room is checked then.
  const auto [to, gain] = best_move(v, /*room_only=*/false);
  ++version_[at(v)];
  best_to_[at(v)] = to;
  if (to != kNone) queues_[at(part_[at(v)])].push({gain, v, version_[at(v)]});
}

bool KwayFm::valid_top(Index q) {
  auto& queue = queues_[at(q)];
  while (!queue.empty() && (locked_[at(queue.top().vertex)] ||
                            queue.top().version != version_[at(queue.top().vertex)])) {
    queue.pop();
  }
  return !queue.empty();
}

Index KwayFm::best_part() {
  Index best = kNone;
  for (Index q = 0; q < static_cast<Index>(queues_.size()); ++q) {
    if (valid_top(q) && (best == kNone || queues_[at(best)].top() < queues_[at(q)].top())) {
      best = q;
    }
  }
  return best;
}

Index KwayFm::overloaded_part() const {
  if (excess_ == 0) return kNone;
  Index worst = kNone;
  Load worst_over = bounds_.tolerance;
  for (Index q = 0; q < static_cast<Index>(load_.size()); ++q) {
    const Load over = load_[at(q)] - target_[at(q)];
    if (over > worst_over) {
      worst = q;
      worst_over = over;
    }
  }
  return worst;
}

Load KwayFm::excess_of(Index q) const {
  return std::max<Load>(0, std::abs(load_[at(q)] - target_[at(q)]) - bounds_.tolerance);
}

void KwayFm::relocate(Index v, Index to) {
  const Index from = part_[at(v)];
  if (from == to) return;
  excess_ -= excess_of(from) + excess_of(to);
  load_[at(from)] -= weight_[at(v)];
  load_[at(to)] += weight_[at(v)];
  part_[at(v)] = to;
  excess_ += excess_of(from) + excess_of(to);
}

}  // namespace treematch
