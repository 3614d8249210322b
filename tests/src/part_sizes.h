// The size of each part of a split: what the partitioners' tests check is kept.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/types.h"

namespace treematch::testing {

/// How many vertices each of parts 0 .. k - 1 holds; a vertex in no such part fails the test.
inline std::vector<kernels::Index> part_sizes(const std::vector<kernels::Index>& part,
                                              std::size_t k) {
  std::vector<kernels::Index> count(k, 0);
  for (kernels::Index p : part) {
    EXPECT_GE(p, 0);
    EXPECT_LT(static_cast<std::size_t>(p), k);
    if (p >= 0 && static_cast<std::size_t>(p) < k) ++count[static_cast<std::size_t>(p)];
  }
  return count;
}

}  // namespace treematch::testing
