// Swap refinement of a placement on a balanced tree: exchanges that lower the weighted distance.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// A balanced tree seen from its leaves: what pricing a placement needs.
struct LeafTree {
  std::vector<Index> arities;  ///< root first; the leaves are numbered 0..product-1 left to right
  /// [h] = distance between two leaves whose lowest common ancestor is h levels up:
  /// arities.size() + 1 entries, distance[0] = 0.
  std::vector<double> distance;
};

struct PlacementSwapOptions {
  int rounds = 8;         ///< at most this many rounds (single exchanges, then block pairs)
  int partners = 4;       ///< an item looks at the lowest-level blocks of its heaviest neighbours
  int blocks_tried = 2;   ///< and tries every leaf of the most attractive of those blocks
  int pair_partners = 2;  ///< each block is paired with the blocks it talks to most (0 = no pairs)
  Index pair_max_block = 64;   ///< no block pairs when a block holds more leaves than this
  Index all_pairs_up_to = 64;  ///< with at most this many blocks, every two blocks are paired
  /// [item] != 0: the item moved since the placement was last refined; only its block and the
  /// blocks of its neighbours propose in the first round. Empty: every block proposes.
  std::vector<std::uint8_t> moved;
  /// [leaf] != 0: no item may move onto that leaf while it is empty (a core the job may not
  /// use); items exchange places only. Empty: every leaf is open.
  std::vector<std::uint8_t> closed;
  /// [item] != 0: the item stays on its leaf (nothing exchanges with it). Empty: every item moves.
  std::vector<std::uint8_t> pinned;
};

struct PlacementSwapStats {
  int rounds = 0;                ///< rounds run (the last one may have applied nothing)
  long long moves = 0;           ///< single exchanges (or moves to an empty leaf) applied
  long long pair_passes = 0;     ///< block-pair exchange sequences applied
  long long pair_moves = 0;      ///< exchanges inside those sequences
  bool converged = true;         ///< the last round applied nothing (false: stopped by `rounds`)
  std::vector<Index> unsettled;  ///< when not converged: items that would propose next round
};

/// Improves `position` (position[v] = leaf of item v; distinct leaves of `tree`; leaves without an
/// item are empty) in place, lowering sum over stored entries (v, t) of w x distance[h(v, t)].
///
/// A block is the set of leaves under one bottom-level node; exchanges inside a block never change
/// the cost and are not tried. A round has two phases, each proposing on a snapshot of the
/// placement (in parallel) and then replaying the proposals in a fixed order (gain descending,
/// then item or pair index), each applied only if the leaves still hold what the snapshot had and
/// it still lowers the cost, re-priced exactly, by more than a relative 1e-12. So the cost never
/// increases, and since proposals depend on the snapshot only, the result is the same for any
/// thread count.
///  1. Single exchanges: every item v ranks the blocks of its `partners` heaviest neighbours by
///     how much v alone would gain there, and prices every leaf of the best `blocks_tried` of them
///     (v takes the leaf, its occupant takes v's leaf, or the leaf was empty).
///     O((partners + 1) x deg(v) + blocks_tried x arity x deg(occupant)) per item.
///  2. Block pairs (Kernighan-Lin): each block is paired with the `pair_partners` blocks it
///     exchanges most traffic with (with every other block when there are at most
///     `all_pairs_up_to` blocks); for each pair, exchanges of one leaf of each block are chained
///     greedily by gain, each item moving at most once, even through exchanges that lose, and the
///     best prefix of the chain is proposed. This escapes the local minima of single exchanges
///     (a group that must lose a member before it can take a better one). O(sum of the degrees of
///     the pair's items + arity^3) per pair; skipped for blocks above `pair_max_block` leaves.
/// Only items in blocks touched by the previous round (a move there or to a neighbour) propose
/// again. Rounds stop when one applies nothing.
PlacementSwapStats refine_placement(CsrView graph, const LeafTree& tree,
                                    std::vector<Index>& position,
                                    const PlacementSwapOptions& options);
/// Sequential reference twin.
PlacementSwapStats refine_placement_seq(CsrView graph, const LeafTree& tree,
                                        std::vector<Index>& position,
                                        const PlacementSwapOptions& options);

}  // namespace treematch::kernels
