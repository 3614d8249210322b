// Tests of the hierarchical pattern: values by tree level, noise, seeds, and its two variants.
#include "src/patterns/hierarchical_pattern.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "src/patterns/permutation.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::tree_of;

/// The whole matrix, row by row.
std::vector<std::vector<double>> rows_of(const HierarchicalPattern& pattern) {
  const auto n = static_cast<std::size_t>(pattern.size());
  std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
  for (std::size_t r = 0; r < n; ++r) pattern.fill_row(static_cast<Index>(r), m[r]);
  return m;
}

TEST(HierarchicalPattern, ValuesFollowTheTreeWithBoundedNoise) {
  // 2 x 2 -> depth 2:   leaves 0 1 | 2 3
  // a rank's sibling leaf (h = 1) gets 10 x (1 + noise u), the other node's leaves (h = 2) 1 x
  // (...).
  const Topology tree = tree_of({2, 2});
  HierarchicalPatternSpec spec;
  spec.noise = 0.1;
  spec.seed = 42;
  const HierarchicalPattern pattern(tree, spec);
  ASSERT_EQ(pattern.size(), 4);
  EXPECT_EQ(pattern.entries(), 12);

  const std::vector<std::vector<double>> m = rows_of(pattern);
  for (std::size_t i = 0; i < 4; ++i) {
    int tens = 0;
    int ones = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(m[i][j], m[j][i]);  // symmetric noise
      if (i == j) {
        EXPECT_GE(m[i][j], 100.0);  // kGenerate: 10^depth x (1 + noise u) on the diagonal
        continue;
      }
      if (m[i][j] >= 10.0 && m[i][j] < 11.0) ++tens;
      if (m[i][j] >= 1.0 && m[i][j] < 1.1) ++ones;
    }
    EXPECT_EQ(tens, 1) << i;
    EXPECT_EQ(ones, 2) << i;
  }
}

TEST(HierarchicalPattern, DeterministicPerSeedAndDirectedOnRequest) {
  const Topology tree = tree_of({4, 4});
  HierarchicalPatternSpec spec;
  spec.ranks = 12;
  spec.seed = 3;
  const auto row_of = [&](const HierarchicalPatternSpec& s, Index r) {
    std::vector<double> values(12, 0.0);
    HierarchicalPattern(tree, s).fill_row(r, values);
    return values;
  };
  HierarchicalPatternSpec other = spec;
  other.seed = 4;
  HierarchicalPatternSpec directed = spec;
  directed.directed = true;

  EXPECT_EQ(HierarchicalPattern(tree, spec).size(), 12);
  EXPECT_EQ(row_of(spec, 5), row_of(spec, 5));
  EXPECT_NE(row_of(spec, 5), row_of(other, 5));
  EXPECT_NE(row_of(directed, 5)[7], row_of(directed, 7)[5]);
  EXPECT_EQ(row_of(spec, 5)[7], row_of(spec, 7)[5]);
  spec.ranks = 17;
  EXPECT_THROW(HierarchicalPattern(tree, spec), std::invalid_argument);
  spec.ranks = 12;
  spec.noise = -0.5;
  EXPECT_THROW(HierarchicalPattern(tree, spec), std::invalid_argument);
}

TEST(HierarchicalPattern, BenchVariantSharesTheSlotsButNotTheNoiseNorTheDiagonal) {
  // 4 x 4: the same seeded slots in both variants; without noise only the diagonal differs.
  const Topology tree = tree_of({4, 4});
  HierarchicalPatternSpec generate;
  generate.seed = 7;
  HierarchicalPatternSpec bench = generate;
  bench.variant = HierarchicalVariant::kBenchD1;

  const HierarchicalPattern noisy_generate(tree, generate);
  const HierarchicalPattern noisy_bench(tree, bench);
  EXPECT_EQ(noisy_bench.slot_of_rank(), seeded_permutation(16, 7));
  EXPECT_EQ(noisy_generate.slot_of_rank(), noisy_bench.slot_of_rank());

  const std::vector<std::vector<double>> g = rows_of(noisy_generate);
  const std::vector<std::vector<double>> b = rows_of(noisy_bench);
  int same_noise = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(b[i][i], 0.0);
    for (std::size_t j = 0; j < 16; ++j) {
      EXPECT_EQ(b[i][j], b[j][i]);
      if (i != j && g[i][j] == b[i][j]) ++same_noise;
    }
  }
  EXPECT_EQ(same_noise, 0);  // the bench's noise key is salted

  generate.noise = 0.0;
  bench.noise = 0.0;
  const std::vector<std::vector<double>> g0 = rows_of(HierarchicalPattern(tree, generate));
  const std::vector<std::vector<double>> b0 = rows_of(HierarchicalPattern(tree, bench));
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(g0[i][i], 100.0);
    EXPECT_EQ(b0[i][i], 0.0);
    for (std::size_t j = 0; j < 16; ++j) {
      if (i == j) continue;
      EXPECT_EQ(g0[i][j], b0[i][j]) << i << ", " << j;
    }
  }
}

TEST(HierarchicalPattern, FillRowRejectsARowOrABufferThatDoesNotFit) {
  const HierarchicalPattern pattern(tree_of({2, 2}), HierarchicalPatternSpec{});
  std::vector<double> values(4, 0.0);
  std::vector<double> short_buffer(3, 0.0);
  EXPECT_THROW(pattern.fill_row(4, values), std::invalid_argument);
  EXPECT_THROW(pattern.fill_row(-1, values), std::invalid_argument);
  EXPECT_THROW(pattern.fill_row(0, short_buffer), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
