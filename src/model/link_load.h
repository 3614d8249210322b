// What a mapping puts on the machine's links: bytes and time per link, the congestion norm and a
// predicted communication time.
#pragma once

#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch {

/// The exponent of the congestion norm: high enough that the norm counts the links near the
/// busiest one (a mapping with one NIC at the maximum beats one with two), low enough that the
/// others still count (the plain maximum ignores them).
inline constexpr double kCongestionNormP = 8.0;
/// A link is hot when its time is at least this share of the busiest link's.
inline constexpr double kHotLinkShare = 0.9;
/// Cells of a level's picture of its link loads.
inline constexpr Index kLinkPictureCells = 256;

/// The uplinks of one tree level (the links from its vertices to their parents).
struct LevelLinkLoad {
  int depth = 1;             ///< of the vertices (1: the root's children)
  Index links = 0;           ///< vertices of the level: links in each direction
  LinkSpec spec;             ///< bandwidth and latency of each
  double max_bytes = 0.0;    ///< the busiest link's bytes, one direction
  double max_seconds = 0.0;  ///< max_bytes / bandwidth
  double total_bytes = 0.0;  ///< over the level's links, one direction
  Index hot_links = 0;       ///< links at kHotLinkShare of the busiest link of the tree or more
  /// Bytes per picture cell: cell c holds the busiest of links [c x links / cells, (c + 1) x links
  /// / cells), cells = min(links, kLinkPictureCells), in tree order.
  std::vector<double> picture_bytes;
};

/// The link loads of a mapping and what they predict.
struct LinkLoads {
  std::vector<LevelLinkLoad> levels;  ///< root first, one per level of the topology
  double bottleneck_seconds = 0.0;    ///< the busiest link's bytes / bandwidth
  int bottleneck_depth = 0;           ///< the level it is on (0: no traffic)
  /// The longest path a message takes: twice the latencies from a leaf up to the highest common
  /// ancestor any pair of communicating ranks has.
  double latency_seconds = 0.0;
  /// (sum over links and directions of (bytes / bandwidth)^p)^(1/p), p = kCongestionNormP: seconds.
  double congestion_norm = 0.0;
  /// bottleneck_seconds + latency_seconds: the pattern sent at once as one message per pair, the
  /// busiest link the limit (docs: src/README.md, "The link model").
  double predicted_seconds = 0.0;
};

/// Bytes on each uplink, one direction: [depth - 1][vertex of that depth], as link_loads sums them
/// (the same conventions, checks and thread-independent result).
std::vector<std::vector<double>> uplink_bytes_by_level(const CommGraph& graph,
                                                       const Topology& topology,
                                                       const Mapping& mapping);

/// The congestion norm of per-link bytes (as uplink_bytes_by_level gives them) under `model`:
/// (sum over links and both directions of (bytes / bandwidth)^p)^(1/p), p = kCongestionNormP,
/// computed scaled by the busiest link so that the powers neither overflow nor vanish; summed in
/// level and vertex order.
double congestion_norm(const std::vector<std::vector<double>>& bytes_by_level,
                       const LinkModel& model);

/// Link loads of `mapping` (one leaf per rank, several ranks may share one) for the matrix behind
/// `graph`. The traffic between ranks i and j crosses the uplinks from each of their leaves up to
/// (not including) their lowest common ancestor. The stored matrix is symmetric, so each direction
/// of a link carries the same bytes: sum over ranks i below it and j not below it of S_ij, times
/// graph.cost_scale() (a directed input's two directions are charged as their mean). Parallel over
/// the links of a level, each link summed in rank and row order: the result does not depend on the
/// number of threads. Throws std::invalid_argument for a mapping check_costable refuses or a model
/// with a link count other than topology.depth().
LinkLoads link_loads(const CommGraph& graph, const Topology& topology, const LinkModel& model,
                     const Mapping& mapping);

/// Sequential reference twin of link_loads (identical result).
LinkLoads link_loads_seq(const CommGraph& graph, const Topology& topology, const LinkModel& model,
                         const Mapping& mapping);

}  // namespace treematch
