// Random point clouds in the unit square or cube, the raw material of the irregular patterns.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;

/// A point of the unit square (z = 0) or cube.
struct CloudPoint {
  std::array<double, 3> c{};
};

/// How the points spread.
enum class PointLayout {
  kUniform,    ///< uniform in [0, 1)^d
  kClustered,  ///< 70% in 24 Gaussian clusters (towns), 30% uniform (countryside)
};

/// Uniform in [0, 1) from the 53 high bits of a raw output (no std distribution, whose algorithm
/// differs between standard libraries).
double draw_unit(std::mt19937_64& rng);

/// `n` points in `dimensions` (2 or 3) drawn from `rng` in `layout`, coordinates drawn in order
/// x, y[, z] point after point for kUniform. Throws std::invalid_argument for other dimensions.
std::vector<CloudPoint> draw_points(Index n, int dimensions, PointLayout layout,
                                    std::mt19937_64& rng);

/// Work per point: 1 + hotspot_work x sum over `hotspots` hotspots of exp(-d^2 / 2 s^2), centres
/// uniform in [0.1, 0.9]^d, s uniform in [0.03, 0.12] (centre coordinates, then s, per hotspot).
std::vector<double> draw_work(const std::vector<CloudPoint>& points, int dimensions, int hotspots,
                              double hotspot_work, std::mt19937_64& rng);

/// Parts of equal work by recursive coordinate bisection: each point set is split across the
/// longest side of its bounding box (the first such axis on ties) where the work reaches the share
/// of its first half of the parts (ties by point index); every part gets at least one point.
/// Returns each point's part in [0, parts). Requires 1 <= parts <= points.size().
std::vector<Index> bisect_coordinates(const std::vector<CloudPoint>& points, int dimensions,
                                      const std::vector<double>& work, Index parts);

}  // namespace treematch
