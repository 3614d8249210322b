// A synthetic irregular pattern: the block graph of a random geometric graph cut into parts.
#pragma once

#include <cstdint>

#include "src/model/comm_graph.h"
#include "src/patterns/point_cloud.h"

namespace treematch {

/// How the points of the graph are joined.
enum class NeighbourRule {
  kRadius,   ///< closer than r, with (volume of the ball of radius r) x points = degree
  kNearest,  ///< each point to its `degree` nearest (a k-nearest-neighbour mesh)
};

/// What make_geometric_pattern draws.
struct GeometricPatternSpec {
  Index ranks = 4096;          ///< parts (one per rank)
  Index points = 1 << 20;      ///< vertices of the geometric graph
  double degree = 8.0;         ///< expected neighbours of a point (kNearest: k, rounded)
  int hotspots = 8;            ///< regions of concentrated work (0 = uniform work)
  double hotspot_work = 20.0;  ///< extra work at a hotspot's centre, relative to 1 elsewhere
  int dimensions = 2;          ///< 2 (unit square) or 3 (unit cube)
  PointLayout layout = PointLayout::kUniform;
  NeighbourRule neighbours = NeighbourRule::kRadius;
  /// > 2: each point gets a weight w with P(w > x) = x^(1 - exponent) (x >= 1, capped at
  /// points^(1 / (exponent - 1))) and kRadius joins u, v closer than r0 (w_u w_v)^(1/d): degrees
  /// follow a power law of this exponent, neighbourhoods stay local. 0 = no weights.
  double degree_exponent = 0.0;
  std::uint64_t seed = 1;
};

/// The communication of a partitioned mesh-like computation with uneven work:
///  1. `points` points in the unit square or cube (draw_points), joined by `neighbours`
///     (point_neighbours.h): with the defaults, closer than r with pi r^2 points = degree;
///  2. each point's work is 1 + hotspot_work x sum over hotspots of exp(-d^2 / 2 s^2) (draw_work):
///     an adaptively refined region;
///  3. recursive coordinate bisection into `ranks` parts of equal work (bisect_coordinates);
///     parts in heavy regions are small;
///  4. the graph between parts, entry = edges cut between them (symmetric), each part run by a
///     rank drawn from a seeded random permutation, so the rank order says nothing of the geometry.
/// Deterministic for a given spec (std::mt19937_64 raw outputs; no std distribution), drawn in the
/// order points, hotspots, weights, rank permutation.
/// O(points x (degree + log points x log ranks)) time, O(points x degree) memory.
/// Throws std::invalid_argument for ranks < 1, points < ranks, a degree <= 0 (kNearest: k < 1 or
/// k >= points), dimensions other than 2 or 3, or a degree_exponent in (0, 2].
CommGraph make_geometric_pattern(const GeometricPatternSpec& spec);

}  // namespace treematch
