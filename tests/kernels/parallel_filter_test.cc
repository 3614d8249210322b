// parallel_filter lists what a plain loop lists, in the same order, for any thread count.
#include "kernels/parallel_filter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/utility.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

std::vector<Index> loop_filter(Index n, std::uint64_t seed) {
  std::vector<Index> out;
  for (Index i = 0; i < n; ++i) {
    if (splitmix64(seed ^ static_cast<std::uint64_t>(i)) % 3 == 0) out.push_back(i);
  }
  return out;
}

TEST(ParallelFilter, ListsWhatALoopListsAcrossBlocksAndThreadCounts) {
  // Sizes around the block size (8192) and several blocks, with a hashed test so that every
  // block keeps a different number of indices.
  for (const Index n : {0, 1, 8191, 8192, 8193, 50000}) {
    const std::vector<Index> expected = loop_filter(n, 7);
    const auto keep = [](Index i) {
      return splitmix64(7 ^ static_cast<std::uint64_t>(i)) % 3 == 0;
    };
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
