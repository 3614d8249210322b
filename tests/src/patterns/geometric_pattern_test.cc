// Tests of the geometric pattern: a symmetric, connected block graph of integer cuts, per seed.
#include "src/patterns/geometric_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace treematch {
namespace {

TEST(GeometricPattern, IsSymmetricConnectedAndDeterministic) {
  GeometricPatternSpec spec;
  spec.ranks = 64;
  spec.points = 6000;
  spec.seed = 3;
  const CommGraph graph = make_geometric_pattern(spec);
  EXPECT_EQ(graph.size(), 64);
  EXPECT_FALSE(graph.was_symmetrised());
  const kernels::CsrView m = graph.view();
  for (Index v = 0; v < m.n; ++v) {
    EXPECT_GT(m.row_end(v) - m.row_begin(v), 0) << "part " << v << " has no neighbour";
    for (Offset e = m.row_begin(v); e < m.row_end(v); ++e)
      EXPECT_EQ(m.weights[static_cast<std::size_t>(e)],
                std::floor(m.weights[static_cast<std::size_t>(e)]));  // edges cut: integers
  }
  const CommGraph again = make_geometric_pattern(spec);
  EXPECT_TRUE(std::equal(m.targets.begin(), m.targets.end(), again.view().targets.begin()));
  EXPECT_TRUE(std::equal(m.weights.begin(), m.weights.end(), again.view().weights.begin()));
  spec.seed = 4;
  const CommGraph other = make_geometric_pattern(spec);
  EXPECT_FALSE(other.nnz() == graph.nnz() &&
               std::equal(m.targets.begin(), m.targets.end(), other.view().targets.begin()));
  spec.points = 10;
  EXPECT_THROW((void)make_geometric_pattern(spec), std::invalid_argument);
}

/// Every family of the corpus: a symmetric graph with an entry in every row, deterministic.
TEST(GeometricPattern, EveryFamilyGivesASymmetricGraph) {
  GeometricPatternSpec knn3d;
  knn3d.dimensions = 3;
  knn3d.neighbours = NeighbourRule::kNearest;
  knn3d.degree = 10;
  GeometricPatternSpec roads;
  roads.layout = PointLayout::kClustered;
  roads.neighbours = NeighbourRule::kNearest;
  roads.degree = 3;
  GeometricPatternSpec scale_free;
  scale_free.degree_exponent = 2.5;
  for (GeometricPatternSpec spec : {knn3d, roads, scale_free}) {
    spec.ranks = 64;
    spec.points = 8000;
    const CommGraph graph = make_geometric_pattern(spec);
    ASSERT_EQ(graph.size(), 64);
    EXPECT_FALSE(graph.was_symmetrised());  // both directions given, equal
    const kernels::CsrView m = graph.view();
    for (Index v = 0; v < m.n; ++v)
      EXPECT_GT(m.row_end(v) - m.row_begin(v), 0) << "part " << v << " has no neighbour";
    const CommGraph again = make_geometric_pattern(spec);
    EXPECT_TRUE(std::equal(m.weights.begin(), m.weights.end(), again.view().weights.begin()));
  }
  scale_free.degree_exponent = 1.5;
  EXPECT_THROW((void)make_geometric_pattern(scale_free), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
