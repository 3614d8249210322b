// Boundary FM on a bisection: moves, rollbacks and the choice of the side that moves.
#include "src/partition/fm_refinement.h"

#include <algorithm>
#include <cstdlib>

namespace treematch {

using kernels::at;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

namespace {
constexpr Index kNone = -1;
}  // namespace

Weight cut_of(CsrView g, const std::vector<Index>& side) {
  Weight cut = 0.0;
  for (Index v = 0; v < g.n; ++v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      if (side[at(g.targets[at(e)])] != side[at(v)]) cut += g.weights[at(e)];
    }
  }
  return cut / 2.0;
}

FmRefiner::FmRefiner(CsrView g, std::span<const Load> weight, Load target, Balance bounds,
                     const PartitionContext& ctx)
    : fm_stall_(ctx.fm_stall),
      side_blind_ties_(ctx.side_blind_ties),
      g_(g),
      weight_(weight),
      target_(target),
      slack_(bounds.slack),
      tolerance_(bounds.tolerance),
      gain_(at(g.n), 0.0),
      external_(at(g.n), 0.0),
      locked_(at(g.n), 0),
      heaps_{kernels::GainHeap(g.n), kernels::GainHeap(g.n)} {}

Load FmRefiner::excess(Load load0) const {
  return std::max<Load>(0, std::abs(load0 - target_) - tolerance_);
}

void FmRefiner::refine(Bisection& b, int passes) {
  const CsrView g = g_;
  for (Index v = 0; v < g.n; ++v) {
    Weight external = 0.0;
    Weight internal = 0.0;
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      (b.side[at(g.targets[at(e)])] == b.side[at(v)] ? internal : external) += g.weights[at(e)];
    }
    gain_[at(v)] = external - internal;
    external_[at(v)] = external;
  }
  b.settled = false;
  for (int pass = 0; pass < passes && !b.settled; ++pass) b.settled = !pass_improves(b);
}

void FmRefiner::flip(Bisection& b, Index v, bool queue) {
  const CsrView g = g_;
  const Index from = b.side[at(v)];
  b.side[at(v)] = 1 - from;
  b.load0 += from == 0 ? -weight_[at(v)] : weight_[at(v)];
  gain_[at(v)] = -gain_[at(v)];
  Weight degree = 0.0;
  for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
    const Index u = g.targets[at(e)];
    const Weight w = g.weights[at(e)];
    degree += w;
    // u on v's old side now sees v outside (gain +2w); u on the new side sees it inside.
    const bool was_with = b.side[at(u)] == from;
    gain_[at(u)] += was_with ? 2.0 * w : -2.0 * w;
    external_[at(u)] += was_with ? w : -w;
    if (queue && !locked_[at(u)]) heaps_[at(b.side[at(u)])].set(u, gain_[at(u)]);
  }
  external_[at(v)] = degree - external_[at(v)];
}

bool FmRefiner::pass_improves(Bisection& b) {
  const CsrView g = g_;
  for (Index from = 0; from < 2; ++from) {
    boundary_.clear();
    for (Index v = 0; v < g.n; ++v) {
      if (external_[at(v)] > 0.0 && b.side[at(v)] == from) boundary_.emplace_back(gain_[at(v)], v);
    }
    heaps_[at(from)].assign(boundary_);
  }
  const Load start_excess = excess(b.load0);
  const Weight start_cut = b.cut;
  Load best_excess = start_excess;
  Weight best_cut = b.cut;
  std::size_t best_moves = 0;
  moves_.clear();
  // A pass gives up after this many moves without a better state (climbing out of minima).
  const std::size_t stall = static_cast<std::size_t>(fm_stall_) + at(g.n) / 100;
  std::size_t since_best = 0;
  while (since_best < stall) {
    const Index from = pick_side(b);
    if (from == kNone) break;
    const Index v = heaps_[at(from)].top();
    heaps_[at(from)].pop();
    b.cut -= gain_[at(v)];
    locked_[at(v)] = 1;
    moves_.push_back(v);
    flip(b, v, /*queue=*/true);
    const Load now = excess(b.load0);
    // Cuts are sums of doubles: only a clear decrease counts as better.
    if (now < best_excess ||
        (now == best_excess && b.cut < best_cut - 1e-12 * std::max(1.0, best_cut))) {
      best_excess = now;
      best_cut = b.cut;
      best_moves = moves_.size();
      since_best = 0;
    } else {
      ++since_best;
    }
  }
  heaps_[0].clear();
  heaps_[1].clear();
  for (std::size_t i = moves_.size(); i > best_moves; --i) flip(b, moves_[i - 1], false);
  for (Index v : moves_) locked_[at(v)] = 0;
  b.cut = best_cut;
  return best_excess < start_excess || best_cut < start_cut;
}

Index FmRefiner::pick_side(const Bisection& b) const {
  const Load deviation = std::abs(b.load0 - target_);
  Index chosen = kNone;
  for (Index from = 0; from < 2; ++from) {
    const kernels::GainHeap& heap = heaps_[at(from)];
    if (heap.empty()) continue;
    const Index v = heap.top();
    const Load after = b.load0 + (from == 0 ? -weight_[at(v)] : weight_[at(v)]);
    if (std::abs(after - target_) > std::max(slack_, deviation - 1)) continue;
    if (chosen == kNone) {
      chosen = from;
      continue;
    }
    const Index rival = heaps_[at(chosen)].top();
    if (gain_[at(v)] != gain_[at(rival)]) {
      if (gain_[at(v)] > gain_[at(rival)]) chosen = from;
    } else if (b.load0 != target_) {
      if ((from == 0) == (b.load0 > target_)) chosen = from;  // v's side is the heavier
    } else if (!side_blind_ties_ || v < rival) {
      chosen = from;
    }
  }
  return chosen;
}

}  // namespace treematch
