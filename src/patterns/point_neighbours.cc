// Neighbour pairs of a point cloud, found through a uniform grid of cells.
#include "src/patterns/point_neighbours.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace treematch {
namespace {

using kernels::at;

/// The points bucketed into `side`^d cells of the unit square or cube.
class CellGrid {
 public:
  CellGrid(const std::vector<CloudPoint>& points, int dimensions, Index side)
      : points_(points), dimensions_(dimensions), side_(std::max<Index>(side, 1)) {
    std::size_t cells = 1;
    for (int d = 0; d < dimensions_; ++d) cells *= at(side_);
    start_.assign(cells + 1, 0);
    for (const CloudPoint& p : points_) ++start_[cell_index(p) + 1];
    std::partial_sum(start_.begin(), start_.end(), start_.begin());
    members_.resize(points_.size());
    std::vector<Index> fill(start_.begin(), start_.end() - 1);
    for (std::size_t v = 0; v < points_.size(); ++v)
      members_[at(fill[cell_index(points_[v])]++)] = static_cast<Index>(v);
  }

  [[nodiscard]] Index side() const { return side_; }
  [[nodiscard]] Index coordinate(double x) const {
    return std::min(static_cast<Index>(x * static_cast<double>(side_)), side_ - 1);
  }

  /// Calls visit(u) for every point u in the cells within Chebyshev distance `ring` of v's cell.
  template <typename Visit>
  void for_each_near(const CloudPoint& p, Index ring, Visit&& visit) const {
    std::array<Index, 3> low{0, 0, 0};
    std::array<Index, 3> high{0, 0, 0};
    for (int d = 0; d < dimensions_; ++d) {
      const Index c = coordinate(p.c[at(d)]);
      low[at(d)] = std::max<Index>(c - ring, 0);
      high[at(d)] = std::min(c + ring, side_ - 1);
    }
    for (Index z = low[2]; z <= high[2]; ++z) {
      for (Index y = low[1]; y <= high[1]; ++y) {
        for (Index x = low[0]; x <= high[0]; ++x) {
          const std::size_t cell = (at(z) * at(side_) + at(y)) * at(side_) + at(x);
          for (Index i = start_[cell]; i < start_[cell + 1]; ++i) visit(members_[at(i)]);
        }
      }
    }
  }

 private:
  [[nodiscard]] std::size_t cell_index(const CloudPoint& p) const {
    std::size_t cell = 0;
    for (int d = dimensions_ - 1; d >= 0; --d) cell = cell * at(side_) + at(coordinate(p.c[at(d)]));
    return cell;
  }

  const std::vector<CloudPoint>& points_;
  int dimensions_;
  Index side_;
  std::vector<Index> start_;
  std::vector<Index> members_;
};

double squared_distance(const CloudPoint& a, const CloudPoint& b, int dimensions) {
  double d2 = 0.0;
  for (int d = 0; d < dimensions; ++d) {
    const double delta = a.c[at(d)] - b.c[at(d)];
    d2 += delta * delta;
  }
  return d2;
}

/// Cells per side for cells of side at least `reach`, at most about one cell per point.
Index cells_per_side(double reach, std::size_t points, int dimensions) {
  const double by_reach = std::floor(1.0 / reach);
  const double by_count = std::floor(std::pow(static_cast<double>(points), 1.0 / dimensions));
  return static_cast<Index>(std::clamp(std::min(by_reach, by_count), 1.0, 65536.0));
}

void sort_unique(std::vector<std::pair<Index, Index>>& pairs) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

}  // namespace

std::vector<std::pair<Index, Index>> pairs_within(const std::vector<CloudPoint>& points,
                                                  int dimensions, double r) {
  const CellGrid grid(points, dimensions, cells_per_side(r, points.size(), dimensions));
  std::vector<std::pair<Index, Index>> pairs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto v = static_cast<Index>(i);
    grid.for_each_near(points[i], 1, [&](Index u) {
      if (u > v && squared_distance(points[at(u)], points[i], dimensions) < r * r)
        pairs.emplace_back(v, u);
    });
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<std::pair<Index, Index>> pairs_within_weighted(const std::vector<CloudPoint>& points,
                                                           int dimensions,
                                                           const std::vector<double>& weights,
                                                           double r0) {
  const CellGrid grid(points, dimensions, cells_per_side(r0, points.size(), dimensions));
  const double cell = 1.0 / static_cast<double>(grid.side());
  const double power = 1.0 / dimensions;
  std::vector<std::pair<Index, Index>> pairs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto v = static_cast<Index>(i);
    const double wv = weights[i];
    // Pairs are searched from their heavier end (ties: the larger index), whose reach bounds
    // theirs.
    const double reach = r0 * std::pow(wv * wv, power);
    const auto ring = static_cast<Index>(std::min(std::ceil(reach / cell), 65536.0));
    grid.for_each_near(points[i], ring, [&](Index u) {
      const double wu = weights[at(u)];
      if (wu > wv || (wu == wv && u >= v)) return;
      const double limit = r0 * std::pow(wu * wv, power);
      if (squared_distance(points[at(u)], points[i], dimensions) < limit * limit)
        pairs.emplace_back(std::min(u, v), std::max(u, v));
    });
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<std::pair<Index, Index>> nearest_pairs(const std::vector<CloudPoint>& points,
                                                   int dimensions, int k) {
  if (k < 1 || at(k) >= points.size()) {
    throw std::invalid_argument(
        "nearest_pairs: need 1 <= k < points (got k = " + std::to_string(k) + ")");
  }
  // About k points per cell: the first ring of cells usually holds the k nearest.
  const double reach =
      std::pow(static_cast<double>(k) / static_cast<double>(points.size()), 1.0 / dimensions);
  const CellGrid grid(points, dimensions, cells_per_side(reach, points.size(), dimensions));
  const double cell = 1.0 / static_cast<double>(grid.side());
  std::vector<std::pair<Index, Index>> pairs;
  std::vector<std::pair<double, Index>> candidates;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto v = static_cast<Index>(i);
    for (Index ring = 1;; ++ring) {
      candidates.clear();
      grid.for_each_near(points[i], ring, [&](Index u) {
        if (u != v)
          candidates.emplace_back(squared_distance(points[at(u)], points[i], dimensions), u);
      });
      const bool whole = ring >= grid.side();
      if (candidates.size() < at(k) && !whole) continue;
      const auto kth = candidates.begin() + (k - 1);
      std::nth_element(candidates.begin(), kth, candidates.end());
      // Everything within ring x cell of the point lies in the searched cells.
      const double safe = static_cast<double>(ring) * cell;
      if (!whole && kth->first >= safe * safe) continue;
      for (auto it = candidates.begin(); it <= kth; ++it)
        pairs.emplace_back(std::min(v, it->second), std::max(v, it->second));
      break;
    }
  }
  sort_unique(pairs);
  return pairs;
}

}  // namespace treematch
