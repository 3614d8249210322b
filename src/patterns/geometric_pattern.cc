// The block graph of a random geometric graph cut by recursive coordinate bisection.
#include "src/patterns/geometric_pattern.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/patterns/permutation.h"

namespace treematch {
namespace {

using kernels::at;

/// Uniform in [0, 1) from the 53 high bits of a raw output.
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

struct Point {
  double x = 0.0;
  double y = 0.0;
};

/// Splits points[first, last) into `parts` parts of equal work (part ids from `part0`).
void bisect(std::vector<Index>& order, std::size_t first, std::size_t last, Index parts,
            Index part0, const std::vector<Point>& points, const std::vector<double>& work,
            std::vector<Index>& part_of) {
  if (parts == 1 || last - first <= 1) {
    for (std::size_t i = first; i < last; ++i) part_of[at(order[i])] = part0;
    return;
  }
  double min_x = 1.0;
  double max_x = 0.0;
  double min_y = 1.0;
  double max_y = 0.0;
  double total = 0.0;
  for (std::size_t i = first; i < last; ++i) {
    const Point& p = points[at(order[i])];
    min_x = std::min(min_x, p.x);
    max_x = std::max(max_x, p.x);
    min_y = std::min(min_y, p.y);
    max_y = std::max(max_y, p.y);
    total += work[at(order[i])];
  }
  const bool along_x = max_x - min_x >= max_y - min_y;
  const auto key = [&](Index v) {
    return std::make_pair(along_x ? points[at(v)].x : points[at(v)].y, v);
  };
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
  // Every part keeps at least one point on each side.
  const std::size_t split = std::clamp(lo, first + at(left_parts), last - at(parts - left_parts));
  std::nth_element(it(first), it(split), it(last), less);
  bisect(order, first, split, left_parts, part0, points, work, part_of);
  bisect(order, split, last, parts - left_parts, part0 + left_parts, points, work, part_of);
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
  std::mt19937_64 rng(spec.seed);
  const Index n = spec.points;
  std::vector<Point> points(at(n));
  for (Point& p : points) {
    p.x = uniform(rng);
    p.y = uniform(rng);
  }
  // Work: a few smooth hotspots over a uniform background.
  std::vector<double> work(at(n), 1.0);
  for (int h = 0; h < spec.hotspots; ++h) {
    const Point centre{0.1 + 0.8 * uniform(rng), 0.1 + 0.8 * uniform(rng)};
    const double s = 0.03 + 0.09 * uniform(rng);
    for (Index v = 0; v < n; ++v) {
      const double dx = points[at(v)].x - centre.x;
      const double dy = points[at(v)].y - centre.y;
      work[at(v)] += spec.hotspot_work * std::exp(-(dx * dx + dy * dy) / (2.0 * s * s));
    }
  }
  // Parts of equal work.
  std::vector<Index> order(at(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<Index> part_of(at(n), 0);
  bisect(order, 0, at(n), spec.ranks, 0, points, work, part_of);

  // Edges of the geometric graph, through cells of side >= r: neighbours are in the 3x3 cells.
  const double r = std::sqrt(spec.degree / (static_cast<double>(n) * std::numbers::pi));
  const auto cells = static_cast<Index>(std::clamp(std::floor(1.0 / r), 1.0, 65536.0));
  const auto cell_of = [&](double c) { return std::min(static_cast<Index>(c * cells), cells - 1); };
  std::vector<Index> cell_start(at(cells) * at(cells) + 1, 0);
  for (const Point& p : points) ++cell_start[at(cell_of(p.y)) * at(cells) + at(cell_of(p.x)) + 1];
  std::partial_sum(cell_start.begin(), cell_start.end(), cell_start.begin());
  std::vector<Index> by_cell(at(n));
  {
    std::vector<Index> fill(cell_start.begin(), cell_start.end() - 1);
    for (Index v = 0; v < n; ++v) {
      const std::size_t c = at(cell_of(points[at(v)].y)) * at(cells) + at(cell_of(points[at(v)].x));
      by_cell[at(fill[c]++)] = v;
    }
  }
  std::vector<std::pair<Index, Index>> cut;  // (part, part) of each cut edge, smaller first
  for (Index v = 0; v < n; ++v) {
    const Point& p = points[at(v)];
    const Index cx = cell_of(p.x);
    const Index cy = cell_of(p.y);
    for (Index y = std::max<Index>(cy - 1, 0); y <= std::min(cy + 1, cells - 1); ++y) {
      for (Index x = std::max<Index>(cx - 1, 0); x <= std::min(cx + 1, cells - 1); ++x) {
        const std::size_t c = at(y) * at(cells) + at(x);
        for (Index i = cell_start[c]; i < cell_start[c + 1]; ++i) {
          const Index u = by_cell[at(i)];
          if (u <= v || part_of[at(u)] == part_of[at(v)]) continue;
          const double dx = points[at(u)].x - p.x;
          const double dy = points[at(u)].y - p.y;
          if (dx * dx + dy * dy >= r * r) continue;
          cut.emplace_back(std::min(part_of[at(u)], part_of[at(v)]),
                           std::max(part_of[at(u)], part_of[at(v)]));
        }
      }
    }
  }
  std::sort(cut.begin(), cut.end());
  // Parts run on ranks drawn at random, from the same engine after the points and hotspots.
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
