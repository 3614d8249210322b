// Refinement of a finished mapping: exchanges of processes and of whole subtrees that lower the
// link-cost-weighted cost, never raising it.
#pragma once

#include <span>
#include <vector>

#include "kernels/placement_refinement.h"
#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/tree/topology.h"

namespace treematch {

struct RefinementStats {
  int cycles = 0;               ///< sweeps over the levels run
  long long swaps = 0;          ///< exchanges (or moves to an empty leaf) of single processes
  long long subtree_swaps = 0;  ///< exchanges of the contents of two subtrees
  double cost_before = 0.0;     ///< weighted cost (evaluate_cost) of the mapping given
  double cost_after = 0.0;      ///< ... and of the mapping returned (never above cost_before)
};

/// The tree cut at `depth` (1..tree.depth()): its nodes at that depth are the leaves, and two of
/// them meeting h levels up are as far apart as two leaves of `tree` meeting h + tree.depth() -
/// depth levels up (weighted distance).
kernels::LeafTree leaf_tree(const Topology& tree, int depth);

/// Improves `leaf_of_rank` (distinct leaves of `tree`, which may carry a zero-cost
/// oversubscription level) in place. A cycle sweeps the tree from the top down: at each depth d
/// from 2 to tree.depth() - 1, the contents of the nodes at depth d are exchanged as wholes
/// (kernels::refine_placement on the matrix between those nodes, the tree cut at d): this moves a
/// well-formed group that sits under the wrong parent, which no exchange of single processes can
/// do without first breaking the group; then single processes are exchanged
/// (kernels::refine_placement on the matrix itself). Exchanging two children of one node never
/// changes the cost, so depth 1 is skipped. Cycles stop when one moves nothing or after
/// ctx.cycles; after the first, single exchanges start from the processes that moved since
/// (PlacementSwapOptions::moved). Every applied move lowers the cost, and the mapping given back is
/// never costlier than the one given (checked with evaluate_cost). Parallel, with the same result
/// for any thread count. Cost per cycle: O(depth x (nnz + leaves)) for the matrices between nodes
/// plus the kernel's rounds (near-linear in nnz: each process prices only the blocks of its
/// heaviest partners).
///
/// With `allowed_leaves` (in any order; empty: every leaf) a process moves only to an allowed leaf
/// or to the leaf of the process it exchanges with, and only the subtrees whose leaves are all
/// allowed are exchanged as wholes.
RefinementStats refine_mapping(const CommGraph& graph, const Topology& tree,
                               std::vector<Index>& leaf_of_rank, const RefinementContext& ctx,
                               std::span<const Index> allowed_leaves = {});

}  // namespace treematch
