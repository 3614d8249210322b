// Coarsening by heavy-edge matching: the hierarchy of ever smaller graphs a multilevel
// partitioner or refiner works on, optionally keeping an existing partition's parts apart.
#pragma once

#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"
#include "src/partition/fm_refinement.h"

namespace treematch {

/// One level of the hierarchy: a graph whose vertices stand for `weight` original vertices.
struct CoarseLevel {
  kernels::Csr owned;  ///< empty at the finest level, which views the caller's graph
  kernels::CsrView g;
  std::vector<Load> weight;
  Load max_weight = 1;
  std::vector<kernels::Index> coarse_of;  ///< vertex -> vertex of the next coarser level
};

/// Coarsening stops at this many vertices: a graph of at most this many is not coarsened.
kernels::Index coarsening_stop(const PartitionContext& ctx);

/// The hierarchy above `graph` (unit weights), finest first, coarsest last: heavy-edge matching
/// (vertices in an order hashed from ctx.seed and the level each take the unmatched neighbour with
/// the heaviest edge per unit of its weight, within `cap`; edgeless vertices paired in index order)
/// and contraction, until ctx.coarsest vertices or a level that merges under 10%. With `part`
/// (one label per vertex), only vertices with the same label merge: an existing partition is kept,
/// and a coarse vertex is a cluster inside one of its parts. The same hierarchy for any thread
/// count.
std::vector<CoarseLevel> coarsen(kernels::CsrView graph, Load cap, const PartitionContext& ctx,
                                 const std::vector<kernels::Index>* part);

/// The label of every vertex of the coarsest level, from the finest level's `part` (a coarsening
/// with `part`, so each coarse vertex's members share one).
std::vector<kernels::Index> project_to_coarsest(const std::vector<CoarseLevel>& levels,
                                                const std::vector<kernels::Index>& part);

/// The label of every vertex of `fine` from the labels of the next coarser level's vertices
/// (each vertex takes its coarse vertex's).
std::vector<kernels::Index> project_to_finer(const CoarseLevel& fine,
                                             const std::vector<kernels::Index>& coarse);

}  // namespace treematch
