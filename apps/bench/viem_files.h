// Input files for VieM (the research process mapper) and the reader of its permutation.
#pragma once

#include <optional>
#include <string>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch::bench {

/// VieM's view of a balanced tree: --hierarchy_parameter_string (arities, cores first) and
/// --distance_parameter_string (the distance between two cores whose smallest common group is
/// that level, cores first), integers.
struct ViemMachine {
  std::string hierarchy;
  std::string distances;
  long long largest_distance = 1;
};

/// The VieM machine of `topology`, distances from Topology::weighted_distance (rounded when they
/// are integers up to 10^6, else scaled so that the largest is 10^6: VieM takes integers); nullopt
/// with `why` set when VieM cannot take it (a tree with holes, or a single leaf).
std::optional<ViemMachine> viem_machine(const Topology& topology, std::string& why);

/// How the matrix weights were turned into VieM's edge weights.
struct ViemWeights {
  double scale = 1.0;  ///< weight = max(1, round(stored weight x scale))
  bool exact = true;   ///< every weight equals its stored weight (integers, no scaling)
};

/// Largest sum over all arcs of edge weight x largest distance: VieM sums its objective in 32-bit
/// integers (an objective above 2^32 wraps), so weights are scaled to keep 2 x that sum below 2^31.
inline constexpr long long kViemObjectiveLimit = 1LL << 30;

/// Writes `graph` (symmetric) as VieM's METIS graph ("n m 1", 1-based, integer edge weights of at
/// least 1: VieM crashes on zero weights, so stored zeros are left out), weights scaled as
/// ViemWeights says. Throws std::runtime_error if the file cannot be written.
ViemWeights write_viem_graph(const std::string& path, const CommGraph& graph,
                             long long largest_distance);

/// Reads VieM's permutation: line i holds the core (0-based) of process i, for `processes`
/// processes, each core once. Throws std::runtime_error naming the file and line otherwise.
Mapping read_viem_mapping(const std::string& path, Index processes);

}  // namespace treematch::bench
