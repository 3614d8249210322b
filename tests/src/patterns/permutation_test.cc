// Tests of the seeded permutations the patterns share: a permutation, per seed, engine continued.
#include "src/patterns/permutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace treematch {
namespace {

TEST(SeededPermutation, IsAPermutationFixedByTheSeed) {
  std::vector<Index> sorted = seeded_permutation(100, 5);
  EXPECT_EQ(seeded_permutation(100, 5), sorted);
  EXPECT_NE(seeded_permutation(100, 6), sorted);
  std::sort(sorted.begin(), sorted.end());
  std::vector<Index> identity(100);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_TRUE(seeded_permutation(0, 5).empty());
  EXPECT_EQ(seeded_permutation(1, 5), std::vector<Index>{0});
  EXPECT_THROW((void)seeded_permutation(-1, 5), std::invalid_argument);
}

TEST(SeededPermutation, DrawPermutationContinuesTheEngine) {
  std::mt19937_64 rng(9);
  EXPECT_EQ(draw_permutation(50, rng), seeded_permutation(50, 9));
  // The engine moved on: a second draw is another permutation.
  EXPECT_NE(draw_permutation(50, rng), seeded_permutation(50, 9));
}

}  // namespace
}  // namespace treematch
