// parallel_filter lists what a plain loop lists, in the same order, for any thread count.
#include "kernels/parallel_filter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/utility.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

TEST(ParallelFilter, ListsWhatALoopListsAcrossBlocksAndThreadCounts) {
  // Sizes around the block size (8192) and several blocks, with a hashed test so that every
  // block keeps a different number of indices.
  for (const Index n : {0, 1, 8191, 8192, 8193, 50000}) {
    const auto keep = [](Index i) {
      return splitmix64(7 ^ static_cast<std::uint64_t>(i)) % 3 == 0;
    };
    std::vector<Index> expected;  // what a plain loop lists
    for (Index i = 0; i < n; ++i) {
      if (keep(i)) expected.push_back(i);
    }
    for (const std::vector<Index>& got :
         testing::under_thread_counts([&] { return parallel_filter(n, keep); })) {
      EXPECT_EQ(got, expected) << "n = " << n;
    }
    EXPECT_EQ(filter_indices(n, keep, /*parallel=*/false), expected) << "n = " << n;
    EXPECT_EQ(filter_indices(n, keep, /*parallel=*/true), expected) << "n = " << n;
  }
}

}  // namespace
}  // namespace treematch::kernels
