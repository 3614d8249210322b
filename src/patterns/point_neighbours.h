// The edges of a graph on a point cloud: by distance, by distance scaled by weights, or nearest.
#pragma once

#include <utility>
#include <vector>

#include "src/patterns/point_cloud.h"

namespace treematch {

/// Every pair {u, v}, u < v, with |u - v| < r (a random geometric graph), found through a grid of
/// cells of side >= r. Sorted.
std::vector<std::pair<Index, Index>> pairs_within(const std::vector<CloudPoint>& points,
                                                  int dimensions, double r);

/// Every pair {u, v}, u < v, with |u - v| < r0 x (w_u w_v)^(1/d): a geometric graph whose degrees
/// follow the weights (with power-law weights, a scale-free graph that keeps locality, as in
/// geometric inhomogeneous random graphs). Each pair is searched from its heavier end. Sorted.
std::vector<std::pair<Index, Index>> pairs_within_weighted(const std::vector<CloudPoint>& points,
                                                           int dimensions,
                                                           const std::vector<double>& weights,
                                                           double r0);

/// Every pair {u, v}, u < v, where v is among the k nearest points of u or u among those of v
/// (a k-nearest-neighbour mesh; ties by index). Sorted. Requires k < points.size().
std::vector<std::pair<Index, Index>> nearest_pairs(const std::vector<CloudPoint>& points,
                                                   int dimensions, int k);

}  // namespace treematch
