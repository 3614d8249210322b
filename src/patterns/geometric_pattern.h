// A synthetic irregular pattern: the block graph of a random geometric graph cut into parts.
#pragma once

#include <cstdint>

#include "src/model/comm_graph.h"

namespace treematch {

/// What make_geometric_pattern draws.
struct GeometricPatternSpec {
  Index ranks = 4096;          ///< parts (one per rank)
  Index points = 1 << 20;      ///< vertices of the geometric graph
  double degree = 8.0;         ///< expected neighbours of a point
  int hotspots = 8;            ///< regions of concentrated work (0 = uniform work)
  double hotspot_work = 20.0;  ///< extra work at a hotspot's centre, relative to 1 elsewhere
  std::uint64_t seed = 1;
};

/// The communication of a partitioned mesh-like computation with uneven work:
///  1. `points` points uniform in the unit square, joined when closer than r with
///     pi r^2 points = degree (a random geometric graph, found through a grid of cells of side r);
///  2. each point's work is 1 + hotspot_work x sum over hotspots of exp(-d^2 / 2 s^2) (centres
///     uniform in [0.1, 0.9]^2, s uniform in [0.03, 0.12]): an adaptively refined region;
///  3. recursive coordinate bisection into `ranks` parts of equal work: the point set is split
///     across the longer side of its bounding box where the work reaches the share of the first
///     half of the parts (ties by point index), recursively; parts in heavy regions are small;
///  4. the graph between parts, entry = edges cut between them (symmetric), each part run by a
///     rank drawn from a seeded random permutation, so the rank order says nothing of the geometry.
/// Deterministic for a given spec (std::mt19937_64 raw outputs; no std distribution).
/// O(points x (degree + log points x log ranks)) time, O(points x degree) memory.
/// Throws std::invalid_argument for ranks < 1, points < ranks or a degree <= 0.
CommGraph make_geometric_pattern(const GeometricPatternSpec& spec);

}  // namespace treematch
