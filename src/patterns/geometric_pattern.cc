// The block graph of a geometric graph on a point cloud cut by recursive coordinate bisection.
#include "src/patterns/geometric_pattern.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/patterns/permutation.h"
#include "src/patterns/point_neighbours.h"

namespace treematch {
namespace {

using kernels::at;

/// Volume of the ball of radius 1 in `dimensions` (2 or 3).
double unit_ball(int dimensions) {
  return dimensions == 2 ? std::numbers::pi : 4.0 / 3.0 * std::numbers::pi;
}

/// x^(1/d), exactly rounded for d = 2 and 3.
double root(double x, int dimensions) {
  return dimensions == 2 ? std::sqrt(x) : std::cbrt(x);
}

/// Power-law weights, P(w > x) = x^(1 - exponent), capped at n^(1 / (exponent - 1)).
std::vector<double> draw_weights(std::size_t n, double exponent, std::mt19937_64& rng) {
  const double cap = std::pow(static_cast<double>(n), 1.0 / (exponent - 1.0));
  std::vector<double> weights(n);
  for (double& w : weights)
    w = std::min(std::pow(1.0 - draw_unit(rng), -1.0 / (exponent - 1.0)), cap);
  return weights;
}

std::vector<std::pair<Index, Index>> graph_edges(const GeometricPatternSpec& spec,
                                                 const std::vector<CloudPoint>& points,
                                                 std::mt19937_64& rng) {
  const auto n = static_cast<double>(points.size());
  const int d = spec.dimensions;
  switch (spec.neighbours) {
    case NeighbourRule::kNearest:
      return nearest_pairs(points, d, static_cast<int>(std::lround(spec.degree)));
    case NeighbourRule::kRadius:
      break;
  }
  if (spec.degree_exponent == 0.0)
    return pairs_within(points, d, root(spec.degree / (n * unit_ball(d)), d));
  const std::vector<double> weights = draw_weights(points.size(), spec.degree_exponent, rng);
  double mean = 0.0;
  for (const double w : weights) mean += w / n;
  // Expected degree of v ~ n x ball(r0) x w_v x mean weight: the average is `degree`.
  const double r0 = root(spec.degree / (n * unit_ball(d) * mean * mean), d);
  return pairs_within_weighted(points, d, weights, r0);
}

}  // namespace

CommGraph make_geometric_pattern(const GeometricPatternSpec& spec) {
  if (spec.ranks < 1 || spec.points < spec.ranks || !(spec.degree > 0.0)) {
    throw std::invalid_argument(
        "make_geometric_pattern: need ranks >= 1, points >= ranks and a "
        "positive degree (got " +
        std::to_string(spec.ranks) + ", " + std::to_string(spec.points) + ", " +
        std::to_string(spec.degree) + ")");
  }
  if (spec.degree_exponent != 0.0 && !(spec.degree_exponent > 2.0)) {
    throw std::invalid_argument(
        "make_geometric_pattern: a degree exponent must be above 2 (a finite mean degree), got " +
        std::to_string(spec.degree_exponent));
  }
  std::mt19937_64 rng(spec.seed);
  const std::vector<CloudPoint> points =
      draw_points(spec.points, spec.dimensions, spec.layout, rng);
  const std::vector<double> work =
      draw_work(points, spec.dimensions, spec.hotspots, spec.hotspot_work, rng);
  const std::vector<Index> part_of = bisect_coordinates(points, spec.dimensions, work, spec.ranks);

  // (part, part) of each cut edge, smaller first.
  std::vector<std::pair<Index, Index>> cut;
  for (const auto& [u, v] : graph_edges(spec, points, rng)) {
    const Index a = part_of[at(u)];
    const Index b = part_of[at(v)];
    if (a != b) cut.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(cut.begin(), cut.end());
  // Parts run on ranks drawn at random, from the same engine after everything else.
  const std::vector<Index> rank_of_part = draw_permutation(spec.ranks, rng);
  std::vector<Triplet> triplets;
  for (std::size_t i = 0; i < cut.size();) {
    std::size_t j = i;
    while (j < cut.size() && cut[j] == cut[i]) ++j;
    const Index a = rank_of_part[at(cut[i].first)];
    const Index b = rank_of_part[at(cut[i].second)];
    const auto edges = static_cast<Weight>(j - i);
    triplets.push_back(Triplet{a, b, edges});
    triplets.push_back(Triplet{b, a, edges});
    i = j;
  }
  return CommGraph::from_triplets(spec.ranks, std::move(triplets));
}

}  // namespace treematch
