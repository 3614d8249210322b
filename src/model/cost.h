// Costs of a mapping on a topology: hop-bytes and the link-cost-weighted cost.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch {

struct MappingCost {
  double hop_bytes = 0.0;  ///< sum over i != j of C[i][j] x tree edges between their leaves
  double weighted = 0.0;   ///< sum over i != j of C[i][j] x sum of link costs on that path
};

/// Ranks per block of the fixed decomposition every cost reduction uses: rows are summed in order
/// inside a block, then the block sums in block order, so the result never depends on the number of
/// threads and the parallel and sequential versions agree bit for bit.
inline constexpr Index kCostBlockRanks = 512;

/// Throws std::invalid_argument if `mapping` does not have graph.size() ranks or names a leaf
/// outside [0, topology.leaf_count()): what every measure of a mapping checks first.
void check_costable(const CommGraph& graph, const Topology& topology, const Mapping& mapping);

/// Cost of `mapping` (one leaf per rank, logical indexes) for the input matrix behind `graph`:
/// the sum over every stored entry (i, j) of S_ij x dist(leaf_i, leaf_j), times graph.cost_scale(),
/// so a symmetrised input is charged as the matrix the user gave. hop_bytes uses
/// topology.hops(), weighted uses topology.weighted_distance().
/// The leaves are those of `topology`: when ranks share cores, pass the oversubscribed topology
/// (Topology::with_oversubscription) and its leaf indexes. Two ranks on the same leaf of `topology`
/// are at distance 0.
/// Parallel over ranks with a fixed-order reduction, so the result does not depend on threads.
/// Throws std::invalid_argument if the mapping does not have graph.size() ranks or names a leaf
/// outside [0, topology.leaf_count()).
MappingCost evaluate_cost(const CommGraph& graph, const Topology& topology, const Mapping& mapping);

/// Sequential reference twin of evaluate_cost (same block decomposition: bit-identical results).
MappingCost evaluate_cost_seq(const CommGraph& graph, const Topology& topology,
                              const Mapping& mapping);

/// evaluate_cost split where the rows live (MPI ranks): the partial cost of each kCostBlockRanks
/// block of the rows `rows` holds, from `first_row` (a multiple of kCostBlockRanks; rows.n = p).
/// sum_block_costs over every block of the matrix, in block order, equals evaluate_cost exactly.
std::vector<MappingCost> block_costs(kernels::CsrView rows, Index first_row,
                                     const Topology& topology, const Mapping& mapping);
MappingCost sum_block_costs(std::span<const MappingCost> blocks, double cost_scale);

/// "" when every cost of any mapping of a matrix of `total_volume` (the sum of its entries over
/// i != j) onto `topology` stays finite, else one sentence saying why not: the volume itself
/// overflows, or times the largest distance between two leaves it does (hop-bytes or weighted).
/// Costs that overflow to inf (or NaN) cannot be compared, so such inputs are refused.
std::string cost_overflow_problem(double total_volume, const Topology& topology);

/// Volume crossing each tree level: result[h] = sum over i != j of C[i][j] whose lowest common
/// ancestor is h levels above the leaves (h = 0: same leaf); depth() + 1 entries summing to
/// graph.total_volume(). Same conventions, checks and fixed-order reduction as evaluate_cost.
std::vector<double> traffic_by_height(const CommGraph& graph, const Topology& topology,
                                      const Mapping& mapping);

/// Sequential reference twin of traffic_by_height (bit-identical results).
std::vector<double> traffic_by_height_seq(const CommGraph& graph, const Topology& topology,
                                          const Mapping& mapping);

}  // namespace treematch
