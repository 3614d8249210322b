// Boundary Fiduccia-Mattheyses refinement of a bisection with vertex weights (the multilevel
// partitioner's refinement at every level).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernels/gain_heap.h"
#include "kernels/types.h"
#include "src/model/context.h"

namespace treematch {

using Load = std::int64_t;  ///< a sum of vertex weights (processes)

/// A 2-way split of a graph's vertices: side 0 should weigh a target.
struct Bisection {
  std::vector<kernels::Index> side;
  Load load0 = 0;
  kernels::Weight cut = 0.0;
  /// The last FM run on it ended with a pass that changed nothing: another run with the same
  /// bounds would repeat that pass and change nothing either.
  bool settled = false;
};

/// The weight of the edges between the two sides (each edge once).
kernels::Weight cut_of(kernels::CsrView g, const std::vector<kernels::Index>& side);

/// FM bounds: the best state may miss the target by `tolerance` (in the multilevel partitioner,
/// the heaviest vertex of the next finer level: one move there corrects it; 0 at the finest
/// level, where sizes are exact), and moves may go `slack` past the target.
struct Balance {
  Load slack;
  Load tolerance;
};

/// Boundary Fiduccia-Mattheyses: moves the best-gain vertex of either side while the imbalance
/// stays within the slack (or shrinks), each vertex once, and keeps the best prefix by (imbalance
/// beyond the tolerance, cut). Passes stop after one without improvement. Gains are kept exact
/// through moves and rollbacks, so a pass costs O(n + moves x degree x log n), not O(nnz). The
/// side whose best vertex moves next: the higher gain, then the heavier side, then side 1 or,
/// with ctx.side_blind_ties, the smaller vertex. No rule names a side then, so from a bisection
/// with its sides swapped (and the target the other side's, as with two equal targets) FM makes
/// the same moves and ends at the mirror of the same end.
class FmRefiner {
 public:
  /// `weight`: the vertices' weights; the graph and the weights must outlive the refiner.
  FmRefiner(kernels::CsrView g, std::span<const Load> weight, Load target, Balance bounds,
            const PartitionContext& ctx);

  /// How far side 0's load `load0` misses the target beyond the tolerance.
  [[nodiscard]] Load excess(Load load0) const;

  /// Up to `passes` FM passes on `b` (its cut must be exact on entry; it stays exact).
  void refine(Bisection& b, int passes);

 private:
  /// Flips v and keeps its neighbours' gains exact; `queue`: also requeue the unlocked ones.
  void flip(Bisection& b, kernels::Index v, bool queue);
  bool pass_improves(Bisection& b);
  /// The side whose best vertex moves next (-1: none may move).
  [[nodiscard]] kernels::Index pick_side(const Bisection& b) const;

  int fm_stall_;  ///< moves without a better state before a pass gives up (plus n / 100)
  bool side_blind_ties_;
  kernels::CsrView g_;
  std::span<const Load> weight_;
  Load target_;
  Load slack_;
  Load tolerance_;
  std::vector<kernels::Weight> gain_;      ///< cut decrease if the vertex moved alone
  std::vector<kernels::Weight> external_;  ///< its edges to the other side
  std::vector<char> locked_;
  std::vector<kernels::Index> moves_;
  /// (gain, vertex) queued as a pass starts
  std::vector<std::pair<kernels::Weight, kernels::Index>> boundary_;
  kernels::GainHeap heaps_[2];
};

}  // namespace treematch
