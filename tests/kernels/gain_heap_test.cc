// The FM queue: pops in (key descending, vertex ascending) order whatever the insertions, key
// changes and removals before, and a bulk fill gives the same order as one insertion at a time.
#include "kernels/gain_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace treematch::kernels {
namespace {

/// The order a heap must pop `keys` (vertex -> key) in: key descending, then vertex ascending.
std::vector<Index> expected_order(const std::map<Index, Weight>& keys) {
  std::vector<std::pair<Weight, Index>> entries;
  for (const auto& [v, key] : keys) entries.emplace_back(-key, v);
  std::sort(entries.begin(), entries.end());
  std::vector<Index> order;
  for (const auto& entry : entries) order.push_back(entry.second);
  return order;
}

std::vector<Index> pop_all(GainHeap& heap) {
  std::vector<Index> order;
  while (!heap.empty()) {
    order.push_back(heap.top());
    heap.pop();
  }
  return order;
}

TEST(GainHeap, EqualKeysPopSmallerVertexFirst) {
  GainHeap heap(6);
  for (const Index v : {5, 2, 4, 0}) heap.set(v, 1.0);
  heap.set(3, 2.0);
  EXPECT_EQ(pop_all(heap), (std::vector<Index>{3, 0, 2, 4, 5}));
}

TEST(GainHeap, RandomInsertionsKeyChangesAndPopsKeepTheOrder) {
  constexpr Index kN = 500;
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 20; ++trial) {
    GainHeap heap(kN);
    std::map<Index, Weight> keys;
    for (int step = 0; step < 3000; ++step) {
      const Index v = static_cast<Index>(random() % kN);
      // Few distinct keys, so that ties are common.
      const Weight key = static_cast<Weight>(static_cast<int>(random() % 21) - 10);
      if (random() % 8 == 0 && !heap.empty()) {
        const Index top = heap.top();
        ASSERT_EQ(top, expected_order(keys).front());
        heap.pop();
        keys.erase(top);
        EXPECT_FALSE(heap.contains(top));
      } else {
        heap.set(v, key);
        keys[v] = key;
        EXPECT_TRUE(heap.contains(v));
      }
    }
    EXPECT_EQ(pop_all(heap), expected_order(keys));
  }
}

TEST(GainHeap, BulkFillPopsAsInsertionsDo) {
  std::mt19937_64 random(11);
  for (const Index n : {0, 1, 2, 4, 5, 17, 64, 1000}) {
    std::vector<std::pair<Weight, Index>> entries;
    std::map<Index, Weight> keys;
    for (Index v = n - 1; v >= 0; --v) {
      if (random() % 3 == 0) continue;
      const Weight key = static_cast<Weight>(random() % 7);
      entries.emplace_back(key, v);
      keys[v] = key;
    }
    GainHeap heap(std::max<Index>(n, 1));
    heap.set(0, 100.0);  // cleared by the fill
    heap.assign(entries);
    EXPECT_EQ(pop_all(heap), expected_order(keys)) << n << " vertices";
  }
}

TEST(GainHeap, ClearEmptiesAndForgetsEveryVertex) {
  GainHeap heap(4);
  heap.set(1, 3.0);
  heap.set(2, -1.0);
  heap.clear();
  EXPECT_TRUE(heap.empty());
  EXPECT_FALSE(heap.contains(1));
  heap.set(2, 5.0);
  EXPECT_EQ(pop_all(heap), (std::vector<Index>{2}));
}

}  // namespace
}  // namespace treematch::kernels
