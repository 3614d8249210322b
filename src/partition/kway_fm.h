// k-way Fiduccia-Mattheyses with vertex weights: single moves between any parts of a split, each
// part's load kept near its target (the k-way refinements' engine, flat and multilevel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"
#include "src/partition/fm_refinement.h"

namespace treematch {

/// Whether the k-way refinements work on a split of `g` into `parts` parts: 3 or more (two are
/// the pair refinement's), on a graph of average degree 64 at most (FM requeues every neighbour
/// of a move, O(degree^2) a move: hierarchical-1024-hops took 190 s instead of 1.6 s without
/// this bound).
bool kway_fm_applies(kernels::CsrView g, kernels::Index parts);

/// Each of the `parts` parts' vertex count in the split `part`.
std::vector<Load> part_loads(const std::vector<kernels::Index>& part, kernels::Index parts);

/// A vertex and the part it left.
using KwayMove = std::pair<kernels::Index, kernels::Index>;

/// FM passes over a k-way split `part` of `g` whose vertices weigh `weight`: a pass moves the
/// vertex whose move lowers the cut most (to the part it is most tied to; ties to the smaller
/// part, then the smaller vertex), each vertex once, and while a part weighs more than its target
/// plus bounds.tolerance, the best move out of that part: from exact sizes at unit weights and a
/// tolerance of 0, a chain a -> b -> c -> a is an exchange among three parts that no refinement of
/// two parts at a time makes. A move may not take a part more than bounds.slack from its target.
/// A pass keeps its best prefix by (excess: how far the parts miss their targets beyond the
/// tolerance, summed; cut) and gives up after `stall` moves without a better one. Sequential and
/// deterministic. The graph, weights and targets must outlive it; `part` changes only through it
/// (or exchanges of equal weights).
class KwayFm {
 public:
  KwayFm(kernels::CsrView g, std::span<const Load> weight, std::vector<Load> target, Balance bounds,
         std::vector<kernels::Index>& part, const PartitionContext& ctx);

  /// The least change of the cut a pass keeps: what rounding can make (a cut is a sum of weights in
  /// any order).
  [[nodiscard]] kernels::Weight threshold() const { return threshold_; }
  /// Edges visited so far: what a search's budget counts.
  [[nodiscard]] std::size_t work() const { return work_; }
  void charge(std::size_t visits) { work_ += visits; }
  /// How far the parts' loads miss their targets beyond the tolerance, summed.
  [[nodiscard]] Load excess() const { return excess_; }
  [[nodiscard]] std::size_t parts() const { return target_.size(); }
  /// Part q's weight now, and its target.
  [[nodiscard]] Load load(kernels::Index q) const { return load_[static_cast<std::size_t>(q)]; }
  [[nodiscard]] Load target(kernels::Index q) const { return target_[static_cast<std::size_t>(q)]; }

  /// One pass from the moves of `seeds` (every vertex: a pass over the whole split), giving up
  /// after ctx.fm_stall + n / 100 moves without a better state; returns the cut's change and
  /// appends the moves kept to `kept`. The change is <= 0 unless the excess fell.
  kernels::Weight pass(const std::vector<kernels::Index>& seeds, std::vector<KwayMove>& kept);
  /// ... giving up after `stall` moves without a better state.
  kernels::Weight pass(const std::vector<kernels::Index>& seeds, std::vector<KwayMove>& kept,
                       std::size_t stall);

  /// Takes back `moves` (a journal of this refiner's moves or exchanges), latest first.
  void undo(const std::vector<KwayMove>& moves);
  /// Moves v to part `to` outside a pass (its load follows).
  void move(kernels::Index v, kernels::Index to);

  /// The cut's change if v and u (in different parts) exchanged parts.
  [[nodiscard]] kernels::Weight exchange_change(kernels::Index v, kernels::Index u) const;

 private:
  /// A queued move of `vertex` lowering the cut by `gain`; stale once the vertex's `version` moved.
  struct Queued {
    kernels::Weight gain;
    kernels::Index vertex;
    std::uint32_t version;
    /// Higher gain first, then the smaller vertex: a strict order, so the queue's top is unique.
    bool operator<(const Queued& other) const {
      return gain < other.gain || (gain == other.gain && vertex > other.vertex);
    }
  };

  /// Sums v's edge weight to each part it touches into connection_ (the parts in
  /// touched_parts_); returns its weight to its own part.
  kernels::Weight tally(kernels::Index v);
  /// v's best move (to the part it is most tied to, ties to the smaller part), with `room_only`
  /// only among those that keep both parts within the slack: (part, gain), part -1 for none.
  std::pair<kernels::Index, kernels::Weight> best_move(kernels::Index v, bool room_only);
  /// Queues an unlocked vertex's best move; a vertex with none (no edge to another part, or no
  /// room there) is not queued.
  void queue(kernels::Index v);
  /// Drops part q's stale entries; whether a move is left there.
  bool valid_top(kernels::Index q);
  /// The part whose best move is best (-1: none).
  kernels::Index best_part();
  /// The part furthest above its target plus the tolerance (-1: none).
  [[nodiscard]] kernels::Index overloaded_part() const;
  [[nodiscard]] Load excess_of(kernels::Index q) const;
  void relocate(kernels::Index v, kernels::Index to);

  kernels::CsrView g_;
  std::span<const Load> weight_;
  std::vector<Load> target_;
  std::vector<Load> load_;
  Balance bounds_;
  std::vector<kernels::Index>& part_;
  std::size_t stall_;
  std::size_t work_ = 0;
  Load excess_ = 0;
  kernels::Weight threshold_ = 0.0;
  std::vector<kernels::Weight> connection_;  ///< scratch: a vertex's edge weight to each part
  std::vector<kernels::Index> touched_parts_;
  std::vector<char> locked_;
  std::vector<kernels::Index> touched_vertices_;  ///< the pass's locked vertices
  std::vector<std::uint32_t> version_;
  std::vector<kernels::Index> best_to_;
  std::vector<std::priority_queue<Queued>> queues_;  ///< by the part the vertex is in
  std::vector<KwayMove> moves_;
};

}  // namespace treematch
