// Tests of the heat-map binning: hand-computed cells, the mapped order as a permutation, bounds.
#include "src/report/binned_matrix.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

namespace treematch {
namespace {

// Symmetric 5 x 5 matrix, every pair given both ways:
//
//        0   1   2   3   4
//   0    .   1   .   .   2
//   1    1   .  16   .   .
//   2    .  16   .   4   .
//   3    .   .   4   .   8
//   4    2   .   .   8   .
//
// At most 2 cells a side: runs of 3 ranks, {0, 1, 2} and {3, 4}.
CommGraph five_ranks() {
  std::vector<Triplet> entries;
  for (const auto& [i, j, w] : {Triplet{0, 1, 1}, Triplet{0, 4, 2}, Triplet{2, 3, 4},
                                Triplet{3, 4, 8}, Triplet{1, 2, 16}}) {
    entries.push_back({i, j, w});
    entries.push_back({j, i, w});
  }
  return CommGraph::from_triplets(5, entries);
}

TEST(CellWidth, IsTheSmallestRunThatFitsTheBound) {
  EXPECT_EQ(cell_width_for(/*order=*/0, /*max_cells=*/512), 1);
  EXPECT_EQ(cell_width_for(512, 512), 1);
  EXPECT_EQ(cell_width_for(513, 512), 2);
  EXPECT_EQ(cell_width_for(16384, 512), 32);
  EXPECT_EQ(cell_width_for(5, 2), 3);
  EXPECT_THROW(cell_width_for(5, 0), std::invalid_argument);
  EXPECT_THROW(cell_width_for(-1, 4), std::invalid_argument);
}

TEST(BinMatrix, SumsAreExactOnAHandComputedCase) {
  const BinnedMatrix binned = bin_in_rank_order(five_ranks(), /*max_cells=*/2);
  EXPECT_EQ(binned.order, 5);
  EXPECT_EQ(binned.cell_width, 3);
  ASSERT_EQ(binned.cells, 2);
  EXPECT_EQ(binned.at(0, 0), 1 + 1 + 16 + 16);  // (0,1), (1,2) both ways
  EXPECT_EQ(binned.at(0, 1), 2 + 4);            // (0,4), (2,3)
  EXPECT_EQ(binned.at(1, 0), 2 + 4);
  EXPECT_EQ(binned.at(1, 1), 8 + 8);  // (3,4) both ways
}

TEST(BinMatrix, OneCellPerRankIsTheMatrixItself) {
  const CommGraph graph = five_ranks();
  const BinnedMatrix binned = bin_in_rank_order(graph, /*max_cells=*/512);
  ASSERT_EQ(binned.cells, 5);
  EXPECT_EQ(binned.at(1, 2), 16);
  EXPECT_EQ(binned.at(4, 0), 2);
  EXPECT_EQ(binned.at(2, 2), 0);
  EXPECT_EQ(std::accumulate(binned.sums.begin(), binned.sums.end(), 0.0), graph.total_volume());
}

TEST(BinMatrix, DirectedInputIsShownAsItsSymmetricHalf) {
  // 0 sends 4 to 1, nothing back: stored as C + C^T, drawn as (C + C^T) / 2.
  const CommGraph graph = CommGraph::from_triplets(2, {Triplet{0, 1, 4}});
  ASSERT_TRUE(graph.was_symmetrised());
  const BinnedMatrix binned = bin_in_rank_order(graph, /*max_cells=*/8);
  EXPECT_EQ(binned.at(0, 1), 2);
  EXPECT_EQ(binned.at(1, 0), 2);
  EXPECT_EQ(binned.at(0, 0) + binned.at(0, 1) + binned.at(1, 0) + binned.at(1, 1),
            graph.total_volume());
}

TEST(BinMatrix, MappedOrderIsThePermutationOfTheRankOrder) {
  // Rank i on leaf perm[i] of 5 leaves: mapped(perm[i], perm[j]) = rank(i, j).
  const CommGraph graph = five_ranks();
  const Mapping mapping{{3, 0, 4, 1, 2}};
  const BinnedMatrix by_rank = bin_in_rank_order(graph, /*max_cells=*/512);
  const BinnedMatrix by_leaf = bin_in_mapped_order(graph, mapping, /*leaves=*/5, 512);
  ASSERT_EQ(by_leaf.cells, 5);
  for (Index i = 0; i < 5; ++i) {
    for (Index j = 0; j < 5; ++j) {
      EXPECT_EQ(by_leaf.at(mapping.leaf_of_rank[i], mapping.leaf_of_rank[j]), by_rank.at(i, j))
          << i << ", " << j;
    }
  }
  // Spelled out: ranks 1 and 2 (16) sit on leaves 0 and 4; ranks 3 and 4 (8) on leaves 1 and 2.
  EXPECT_EQ(by_leaf.at(0, 4), 16);
  EXPECT_EQ(by_leaf.at(1, 2), 8);
  EXPECT_EQ(by_leaf.at(0, 1), 0);
}

TEST(BinMatrix, SharedAndUnusedLeavesInMappedOrder) {
  // Ranks 1 and 2 share leaf 0 (their 16 lands on the diagonal); leaves 1, 2 stay empty.
  const CommGraph graph = five_ranks();
  const BinnedMatrix by_leaf =
      bin_in_mapped_order(graph, Mapping{{5, 0, 0, 3, 4}}, /*leaves=*/6, /*max_cells=*/512);
  ASSERT_EQ(by_leaf.cells, 6);
  EXPECT_EQ(by_leaf.at(0, 0), 32);
  EXPECT_EQ(by_leaf.at(5, 0), 1);  // ranks 0 and 1
  EXPECT_EQ(by_leaf.at(1, 1) + by_leaf.at(2, 2), 0);
  EXPECT_EQ(std::accumulate(by_leaf.sums.begin(), by_leaf.sums.end(), 0.0), graph.total_volume());
}

/// A ring with chords over p ranks: nnz = 4p, integer weights (sums stay exact).
CommGraph ring(Index p) {
  std::vector<Triplet> entries;
  for (Index i = 0; i < p; ++i) {
    entries.push_back({i, (i + 1) % p, 1.0 + i % 7});
    entries.push_back({i, (i + 97) % p, 3.0});
  }
  return CommGraph::from_triplets(p, entries);
}

TEST(BinMatrix, LargeOrdersStayWithinTheCellBound) {
  const CommGraph graph = ring(20000);
  const BinnedMatrix by_rank = bin_in_rank_order(graph, kHeatMapCells);
  EXPECT_EQ(by_rank.cell_width, 40);
  EXPECT_EQ(by_rank.cells, 500);
  EXPECT_EQ(by_rank.sums.size(), 500u * 500u);
  EXPECT_EQ(std::accumulate(by_rank.sums.begin(), by_rank.sums.end(), 0.0), graph.total_volume());

  // 20000 ranks spread over 65536 leaves: 512 cells of 128 leaves.
  Mapping spread;
  for (Index i = 0; i < 20000; ++i) spread.leaf_of_rank.push_back(i * 3);
  const BinnedMatrix by_leaf = bin_in_mapped_order(graph, spread, 65536, kHeatMapCells);
  EXPECT_EQ(by_leaf.cell_width, 128);
  EXPECT_EQ(by_leaf.cells, 512);
  EXPECT_EQ(by_leaf.sums.size(), 512u * 512u);
  EXPECT_EQ(std::accumulate(by_leaf.sums.begin(), by_leaf.sums.end(), 0.0), graph.total_volume());
}

TEST(BinMatrix, ParallelAgreesWithSequentialForAnyThreadCount) {
  std::mt19937_64 random(/*seed=*/7);
  const Index p = 3000;
  std::vector<Triplet> entries;
  std::uniform_int_distribution<Index> rank(0, p - 1);
  std::uniform_real_distribution<double> weight(0.1, 1000.0);
  for (int e = 0; e < 40000; ++e) entries.push_back({rank(random), rank(random), weight(random)});
  const CommGraph graph = CommGraph::from_triplets(p, entries);
  std::vector<Index> position(static_cast<std::size_t>(p));
  std::iota(position.begin(), position.end(), 0);
  std::shuffle(position.begin(), position.end(), random);

  const BinnedMatrix reference = bin_matrix_seq(graph, position, p, /*max_cells=*/97);
  for (const int threads : {1, 2, 4}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const BinnedMatrix parallel = bin_matrix(graph, position, p, /*max_cells=*/97);
    ASSERT_EQ(parallel.sums.size(), reference.sums.size());
    EXPECT_EQ(std::memcmp(parallel.sums.data(), reference.sums.data(),
                          reference.sums.size() * sizeof(double)),
              0)
        << threads << " threads";
  }
}

TEST(BinMatrix, EmptyGraphAndBadPositions) {
  const BinnedMatrix empty = bin_in_rank_order(CommGraph::from_triplets(0, {}), 512);
  EXPECT_EQ(empty.cells, 0);
  EXPECT_TRUE(empty.sums.empty());

  const CommGraph graph = five_ranks();
  EXPECT_THROW(bin_matrix(graph, {0, 1, 2}, 5, 512), std::invalid_argument);
  EXPECT_THROW(bin_matrix(graph, {0, 1, 2, 3, 5}, 5, 512), std::invalid_argument);
  EXPECT_THROW(bin_matrix(graph, {0, 1, 2, 3, -1}, 5, 512), std::invalid_argument);
  EXPECT_THROW(bin_matrix(graph, {0, 1, 2, 3, 4}, 5, 0), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
