// Random point clouds, work over them, and recursive coordinate bisection into parts.
#include "src/patterns/point_cloud.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace treematch {
namespace {

using kernels::at;

constexpr int kTowns = 24;
constexpr double kShareInTowns = 0.7;

/// A standard normal value (Box-Muller on two draws).
double draw_normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - draw_unit(rng);  // in (0, 1]
  const double u2 = draw_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// Splits points[order[first, last)] into `parts` parts of equal work (ids from `part0`).
void bisect(std::vector<Index>& order, std::size_t first, std::size_t last, Index parts,
            Index part0, const std::vector<CloudPoint>& points, int dimensions,
            const std::vector<double>& work, std::vector<Index>& part_of) {
  if (parts == 1 || last - first <= 1) {
    for (std::size_t i = first; i < last; ++i) part_of[at(order[i])] = part0;
    return;
  }
  std::array<double, 3> low{1.0, 1.0, 1.0};
  std::array<double, 3> high{0.0, 0.0, 0.0};
  double total = 0.0;
  for (std::size_t i = first; i < last; ++i) {
    const CloudPoint& p = points[at(order[i])];
    for (int d = 0; d < dimensions; ++d) {
      low[at(d)] = std::min(low[at(d)], p.c[at(d)]);
      high[at(d)] = std::max(high[at(d)], p.c[at(d)]);
    }
    total += work[at(order[i])];
  }
  int axis = 0;
  for (int d = 1; d < dimensions; ++d) {
    if (high[at(d)] - low[at(d)] > high[at(axis)] - low[at(axis)]) axis = d;
  }
  const auto key = [&](Index v) { return std::make_pair(points[at(v)].c[at(axis)], v); };
  const auto less = [&](Index a, Index b) { return key(a) < key(b); };
  const auto it = [&](std::size_t i) { return order.begin() + static_cast<std::ptrdiff_t>(i); };
  const Index left_parts = parts / 2;
  const double share = total * static_cast<double>(left_parts) / static_cast<double>(parts);
  // Weighted selection: [first, lo) holds the smallest keys and at most `share` of the work, the
  // split lies in [lo, hi]; each step halves [lo, hi), so O(last - first) expected in all.
  std::size_t lo = first;
  std::size_t hi = last;
  double below_lo = 0.0;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    std::nth_element(it(lo), it(mid), it(hi), less);
    double w = 0.0;
    for (std::size_t i = lo; i < mid; ++i) w += work[at(order[i])];
    if (below_lo + w <= share) {
      below_lo += w;
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const std::size_t split = std::clamp(lo, first + at(left_parts), last - at(parts - left_parts));
  std::nth_element(it(first), it(split), it(last), less);
  bisect(order, first, split, left_parts, part0, points, dimensions, work, part_of);
  bisect(order, split, last, parts - left_parts, part0 + left_parts, points, dimensions, work,
         part_of);
}

}  // namespace

double draw_unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

std::vector<CloudPoint> draw_points(Index n, int dimensions, PointLayout layout,
                                    std::mt19937_64& rng) {
  if (dimensions != 2 && dimensions != 3) {
    throw std::invalid_argument("draw_points: dimensions must be 2 or 3 (got " +
                                std::to_string(dimensions) + ")");
  }
  std::vector<CloudPoint> points(at(n));
  switch (layout) {
    case PointLayout::kUniform:
      for (CloudPoint& p : points) {
        for (int d = 0; d < dimensions; ++d) p.c[at(d)] = draw_unit(rng);
      }
      break;
    case PointLayout::kClustered: {
      std::array<CloudPoint, kTowns> centres{};
      std::array<double, kTowns> spread{};
      for (int t = 0; t < kTowns; ++t) {
        for (int d = 0; d < dimensions; ++d) centres[at(t)].c[at(d)] = 0.05 + 0.9 * draw_unit(rng);
        spread[at(t)] = 0.01 + 0.05 * draw_unit(rng);
      }
      for (CloudPoint& p : points) {
        const bool in_town = draw_unit(rng) < kShareInTowns;
        const auto town = static_cast<std::size_t>(draw_unit(rng) * kTowns);
        for (int d = 0; d < dimensions; ++d) {
          const double x =
              in_town ? centres[town].c[at(d)] + spread[town] * draw_normal(rng) : draw_unit(rng);
          p.c[at(d)] = std::clamp(x, 0.0, std::nextafter(1.0, 0.0));
        }
      }
      break;
    }
  }
  return points;
}

std::vector<double> draw_work(const std::vector<CloudPoint>& points, int dimensions, int hotspots,
                              double hotspot_work, std::mt19937_64& rng) {
  std::vector<double> work(points.size(), 1.0);
  for (int h = 0; h < hotspots; ++h) {
    CloudPoint centre;
    for (int d = 0; d < dimensions; ++d) centre.c[at(d)] = 0.1 + 0.8 * draw_unit(rng);
    const double s = 0.03 + 0.09 * draw_unit(rng);
    for (std::size_t v = 0; v < points.size(); ++v) {
      double d2 = 0.0;
      for (int d = 0; d < dimensions; ++d) {
        const double delta = points[v].c[at(d)] - centre.c[at(d)];
        d2 += delta * delta;
      }
      work[v] += hotspot_work * std::exp(-d2 / (2.0 * s * s));
    }
  }
  return work;
}

std::vector<Index> bisect_coordinates(const std::vector<CloudPoint>& points, int dimensions,
                                      const std::vector<double>& work, Index parts) {
  std::vector<Index> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<Index> part_of(points.size(), 0);
  bisect(order, 0, points.size(), parts, 0, points, dimensions, work, part_of);
  return part_of;
}

}  // namespace treematch
