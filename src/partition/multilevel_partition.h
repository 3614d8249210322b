// Multilevel k-way partitioning into parts of exact sizes (one tree node's split, top-down).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/types.h"
#include "src/model/context.h"

namespace treematch {

/// Splits the graph's vertices into parts of exactly the given sizes (sizes[q] >= 1, summing to
/// graph.n) with a small weight of edges between parts (the cut). Recursive bisection: sizes
/// [lo, hi) go into [lo, mid) and [mid, hi) with mid = (lo + hi) / 2, so the parts of one half
/// stay together (a tree node of arity 16 is cut 8 + 8, then 4 + 4 ...). Each bisection is
/// multilevel: heavy-edge matching coarsens the graph (vertex weight = vertices merged, visit order
/// hashed from ctx.seed, ties to the smaller index) down to ~ctx.coarsest vertices; greedy graph
/// growing from several starts, each polished by FM (src/partition/fm_refinement.h; a start that
/// grows what an earlier one grew, or with ctx.side_blind_ties its mirror, is skipped: FM would end
/// where it did, or at its mirror), partitions the coarsest graph; each finer
/// level is refined by boundary FM (moves within a balance slack, best prefix kept), with the
/// sizes made exact at the finest level; then ctx.vcycles V-cycles (coarsen again inside the two
/// sides, FM again, and ctx.flow_rounds of max-flow refinement after it at every level:
/// src/partition/flow_refinement.h) keep any lower cut. Each bisection into q parts is made
/// max(ctx.attempts, ceil(log2 q)) times with different seeds (as parallel tasks) and the lowest
/// cut kept, unless the first ctx.agreeing_attempts agree on a graph of ctx.agreement_vertices or
/// more; when all are made and only one reached the lowest cut, more, up to
/// ctx.disagreement_attempts. The two halves of a bisection are split as parallel tasks (they share
/// nothing), so the result is the same for any thread count. O(nnz log k) for k parts, times the FM
/// passes and V-cycles. Returns the part of each vertex. Throws std::invalid_argument if the sizes
/// do not sum to graph.n or one is < 1.
std::vector<kernels::Index> multilevel_partition(kernels::CsrView graph,
                                                 const std::vector<kernels::Index>& sizes,
                                                 const PartitionContext& ctx = {});

/// Lowers the cut of the bisection `side` (0 or 1 per vertex; side 0 holds exactly target0
/// vertices) by ctx.vcycles V-cycles (with ctx.flow_rounds of flows), keeping the sizes; returns
/// whether it did, `side` unchanged otherwise.
bool refine_bisection(kernels::CsrView graph, std::vector<kernels::Index>& side,
                      kernels::Index target0, const PartitionContext& ctx);

/// Throws std::invalid_argument naming `caller` unless every size is >= 1 and the sizes sum to
/// `n`, the graph's `members` (e.g. "vertices"; `member` is the singular).
void check_part_sizes(std::string_view caller, kernels::Index n,
                      const std::vector<kernels::Index>& sizes, std::string_view member,
                      std::string_view members);

/// The weight of edges between parts, each edge counted once (rows hold both directions).
double edge_cut(kernels::CsrView graph, const std::vector<kernels::Index>& part);

}  // namespace treematch
