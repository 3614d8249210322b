// Input files of the hierarchical process mappers the bench compares with, VieM and SharedMap (both
// take a METIS graph, the machine as arities and distances from the cores up, and print one core
// per process), and the reader of their output.
#pragma once

#include <optional>
#include <string>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch::bench {

/// A balanced tree as these mappers take it: the arities, cores first (VieM's
/// --hierarchy_parameter_string, SharedMap's --hierarchy) and the distance between two cores whose
/// smallest common group is that level, cores first (--distance_parameter_string, --distance),
/// integers.
struct PeerMachine {
  std::string hierarchy;
  std::string distances;
  long long largest_distance = 1;
};

/// The machine of `topology`, distances from Topology::weighted_distance (rounded when they are
/// integers up to 10^6, else scaled so that the largest is 10^6: the mappers take integers);
/// nullopt with `why` set when they cannot take it (a tree with holes, or a single leaf).
std::optional<PeerMachine> peer_machine(const Topology& topology, std::string& why);

/// How the matrix weights were turned into the graph's integer edge weights.
struct PeerWeights {
  double scale = 1.0;  ///< weight = max(1, round(stored weight x scale))
  bool exact = true;   ///< every weight equals its stored weight (integers, no scaling)
};

/// Largest sum over all arcs of edge weight x largest distance: VieM sums its objective in 32-bit
/// integers (an objective above 2^32 wraps), so weights are scaled to keep 2 x that sum below 2^31.
/// Both mappers get the same file, so they see the same weights.
inline constexpr long long kPeerObjectiveLimit = 1LL << 30;

/// Writes `graph` (symmetric) as a METIS graph ("n m 001", 1-based, integer edge weights of at
/// least 1: VieM crashes on zero weights, so stored zeros are left out), weights scaled as
/// PeerWeights says. Throws std::runtime_error if the file cannot be written.
PeerWeights write_peer_graph(const std::string& path, const CommGraph& graph,
                             long long largest_distance);

/// Reads a mapper's output: line i holds the core (0-based) of process i, for `processes`
/// processes, each core once. Throws std::runtime_error naming the file and line otherwise.
Mapping read_peer_mapping(const std::string& path, Index processes);

}  // namespace treematch::bench
