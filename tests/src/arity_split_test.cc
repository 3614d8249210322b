// Arity splitting: the thresholds of Table 2 (seed 001) and the resulting walked arities.
#include "src/walk/arity_split.h"

#include <gtest/gtest.h>

namespace treematch {
namespace {

TEST(ArityThreshold, MatchesTable2) {
  // (k, p*) pairs read off Table 2 of seed 001.
  const std::vector<std::pair<Index, Index>> table{
      {4, 8},   {6, 10},   {8, 12},    {9, 14},    {10, 14},  {12, 16},
      {16, 20}, {25, 32},  {35, 42},   {49, 58},   {50, 54},  {64, 68},
      {77, 86}, {91, 100}, {119, 128}, {125, 132}, {128, 132}};
  for (const auto& [k, p_star] : table) EXPECT_EQ(split_threshold(k), p_star) << "k = " << k;
}

TEST(ArityThreshold, PrimeAritiesNeverSplit) {
  EXPECT_EQ(split_threshold(7), 0);
  EXPECT_EQ(split_arity(7, 1000), (std::vector<Index>{7}));
}

TEST(SplitArity, SplitsOnlyAboveTheThreshold) {
  EXPECT_EQ(split_arity(4, 7), (std::vector<Index>{4}));     // p < p*(4) = 8
  EXPECT_EQ(split_arity(4, 8), (std::vector<Index>{2, 2}));  // C(8,4)=70 > 2 C(8,2)=56
  EXPECT_EQ(split_arity(16, 2048), (std::vector<Index>{2, 2, 2, 2}));
  EXPECT_EQ(split_arity(128, 128), (std::vector<Index>{128}));  // one group: C(128,128) = 1
  EXPECT_EQ(split_arity(6, 1000), (std::vector<Index>{2, 3}));
}

}  // namespace
}  // namespace treematch
