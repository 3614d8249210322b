// Tests of the neighbour rules against all-pairs references, in 2-D and 3-D, plain and clustered.
#include "src/patterns/point_neighbours.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace treematch {
namespace {

using Pairs = std::vector<std::pair<Index, Index>>;

double distance(const CloudPoint& a, const CloudPoint& b) {
  double d2 = 0.0;
  for (int d = 0; d < 3; ++d) d2 += (a.c[d] - b.c[d]) * (a.c[d] - b.c[d]);
  return d2;
}

struct Cloud {
  int dimensions;
  PointLayout layout;
};

class NeighbourRules : public ::testing::TestWithParam<Cloud> {
 protected:
  std::vector<CloudPoint> draw(Index n) {
    std::mt19937_64 rng(11);
    return draw_points(n, GetParam().dimensions, GetParam().layout, rng);
  }
};

TEST_P(NeighbourRules, RadiusFindsEveryPairCloserThanR) {
  const std::vector<CloudPoint> points = draw(700);
  const double r = 0.09;
  Pairs reference;
  for (Index u = 0; u < 700; ++u)
    for (Index v = u + 1; v < 700; ++v)
      if (distance(points[u], points[v]) < r * r) reference.emplace_back(u, v);
  EXPECT_FALSE(reference.empty());
  EXPECT_EQ(pairs_within(points, GetParam().dimensions, r), reference);
}

TEST_P(NeighbourRules, WeightedRadiusScalesWithBothWeights) {
  const std::vector<CloudPoint> points = draw(700);
  std::vector<double> weights(700);
  std::mt19937_64 rng(5);
  for (double& w : weights) w = std::pow(1.0 - draw_unit(rng), -1.0 / 1.5);  // exponent 2.5
  weights[3] = weights[9];                                                   // a tie
  const double r0 = 0.02;
  const double power = 1.0 / GetParam().dimensions;
  Pairs reference;
  for (Index u = 0; u < 700; ++u) {
    for (Index v = u + 1; v < 700; ++v) {
      const double limit = r0 * std::pow(weights[u] * weights[v], power);
      if (distance(points[u], points[v]) < limit * limit) reference.emplace_back(u, v);
    }
  }
  EXPECT_FALSE(reference.empty());
  EXPECT_EQ(pairs_within_weighted(points, GetParam().dimensions, weights, r0), reference);
}

TEST_P(NeighbourRules, NearestJoinsEachPointToItsKNearest) {
  const std::vector<CloudPoint> points = draw(500);
  const int k = 5;
  Pairs reference;
  for (Index u = 0; u < 500; ++u) {
    std::vector<std::pair<double, Index>> all;
    for (Index v = 0; v < 500; ++v)
      if (v != u) all.emplace_back(distance(points[u], points[v]), v);
    std::sort(all.begin(), all.end());
    for (int i = 0; i < k; ++i)
      reference.emplace_back(std::min(u, all[i].second), std::max(u, all[i].second));
  }
  std::sort(reference.begin(), reference.end());
  reference.erase(std::unique(reference.begin(), reference.end()), reference.end());
  EXPECT_EQ(nearest_pairs(points, GetParam().dimensions, k), reference);
}

INSTANTIATE_TEST_SUITE_P(Clouds, NeighbourRules,
                         ::testing::Values(Cloud{2, PointLayout::kUniform},
                                           Cloud{3, PointLayout::kUniform},
                                           Cloud{2, PointLayout::kClustered},
                                           Cloud{3, PointLayout::kClustered}));

TEST(NeighbourRules, NearestNeedsFewerNeighboursThanPoints) {
  std::mt19937_64 rng(1);
  const std::vector<CloudPoint> points = draw_points(4, 2, PointLayout::kUniform, rng);
  EXPECT_THROW((void)nearest_pairs(points, 2, 4), std::invalid_argument);
  EXPECT_EQ(nearest_pairs(points, 2, 3).size(), 6U);  // everyone with everyone
}

TEST(PointCloud, ClusteredPointsStayInTheUnitCube) {
  std::mt19937_64 rng(2);
  for (const CloudPoint& p : draw_points(5000, 3, PointLayout::kClustered, rng))
    for (const double x : p.c) EXPECT_TRUE(x >= 0.0 && x < 1.0) << x;
  EXPECT_THROW((void)draw_points(5, 4, PointLayout::kUniform, rng), std::invalid_argument);
}

TEST(PointCloud, BisectionGivesPartsOfEqualWork) {
  std::mt19937_64 rng(3);
  const std::vector<CloudPoint> points = draw_points(4000, 3, PointLayout::kUniform, rng);
  const std::vector<double> work(points.size(), 1.0);
  const std::vector<Index> part_of = bisect_coordinates(points, 3, work, 10);
  std::vector<int> sizes(10, 0);
  for (const Index p : part_of) ++sizes[p];
  for (const int size : sizes) EXPECT_EQ(size, 400);
}

}  // namespace
}  // namespace treematch
