// Costs of a mapping on a topology: hop-bytes and the link-cost-weighted cost.
#pragma once

#include "src/comm_graph.h"
#include "src/mapping.h"
#include "src/topology.h"

namespace tm {

struct MappingCost {
  double hop_bytes = 0.0;  ///< sum over i != j of C[i][j] x tree edges between their leaves
  double weighted = 0.0;   ///< sum over i != j of C[i][j] x sum of link costs on that path
};

/// Cost of `mapping` (one leaf per rank, logical indexes) for the input matrix behind `graph`.
/// Parallel over ranks with a fixed-order reduction, so the result does not depend on threads.
MappingCost evaluate_cost(const CommGraph& graph, const Topology& topology, const Mapping& mapping);

/// Sequential reference twin of evaluate_cost.
MappingCost evaluate_cost_seq(const CommGraph& graph, const Topology& topology, const Mapping& mapping);

/// Volume crossing each tree level: result[h] = sum over i != j of C[i][j] whose lowest common
/// ancestor is h levels above the leaves (h = 0: same leaf).
std::vector<double> traffic_by_height(const CommGraph& graph, const Topology& topology, const Mapping& mapping);

}  // namespace tm
