// Tests of evaluate_cost and traffic_by_height: hand-computed costs and thread-independent sums.
#include "src/model/cost.h"

#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

// The 2x2x2 tree, link costs 5 (package), 3 (core pair), 1 (core):
//
//                      root
//             5 /              \ 5
//            P0                  P1
//        3 /    \ 3          3 /    \ 3
//        Q0      Q1          Q2      Q3
//     1 / \ 1  1 / \ 1    1 / \ 1  1 / \ 1
//      0   1    2   3      4   5    6   7      <- leaves
//
// LCA height h:          0   1   2   3
// hops (2h):             0   2   4   6
// weighted (2 x lowest): 0   2   8  18
Topology tree_2x2x2() {
  return Topology({TreeLevel{2, 5.0, "pack"}, TreeLevel{2, 3.0, "pair"}, TreeLevel{2, 1.0, "core"}},
                  /*leaf_os_index=*/{});
}

// Ranks 0, 1, 2, 3 on leaves 0, 1, 2, 7: pair heights (0,1)=1, (0,2)=2, (1,2)=2, (x,3)=3.
Mapping four_ranks() {
  return Mapping{{0, 1, 2, 7}};
}

std::uint64_t bits(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

TEST(EvaluateCost, SymmetricMatrixSumsOverBothDirections) {
  // Arrange: symmetric C
  //        0   1   2   3
  //   0 [  0  10   2   1 ]
  //   1 [ 10   0   3   0 ]
  //   2 [  2   3   0   5 ]
  //   3 [  1   0   5   0 ]
  const CommGraph graph = testing::symmetric_4x4();
  ASSERT_FALSE(graph.was_symmetrised());

  // Act
  const MappingCost cost = evaluate_cost(graph, tree_2x2x2(), four_ranks());

  // Assert: 2 x (10*2 + 2*4 + 1*6 + 3*4 + 5*6) and 2 x (10*2 + 2*8 + 1*18 + 3*8 + 5*18)
  EXPECT_EQ(cost.hop_bytes, 152.0);
  EXPECT_EQ(cost.weighted, 336.0);
}

TEST(EvaluateCost, AsymmetricMatrixIsChargedAsTheInput) {
  // Arrange: asymmetric C, stored as C + C^T with cost_scale 0.5
  //        0   1   2   3
  //   0 [  0   4   0   1 ]
  //   1 [  6   0   3   0 ]
  //   2 [  0   0   0   2 ]
  //   3 [  0   0   7   0 ]
  const CommGraph graph = CommGraph::from_triplets(
      4, {{0, 1, 4}, {0, 3, 1}, {1, 0, 6}, {1, 2, 3}, {2, 3, 2}, {3, 2, 7}});
  ASSERT_TRUE(graph.was_symmetrised());
  ASSERT_EQ(graph.cost_scale(), 0.5);

  // Act
  const MappingCost cost = evaluate_cost(graph, tree_2x2x2(), four_ranks());

  // Assert: sum of C_ij x d over the original entries
  //   hops:     4*2 + 1*6 + 6*2 + 3*4 + 2*6 + 7*6      = 92
  //   weighted: 4*2 + 1*18 + 6*2 + 3*8 + 2*18 + 7*18   = 224
  EXPECT_EQ(cost.hop_bytes, 92.0);
  EXPECT_EQ(cost.weighted, 224.0);
}

TEST(EvaluateCost, RanksOnTheSameLeafAreAtDistanceZero) {
  // Arrange: two processes per core, so the oversubscribed tree has a cost-0 bottom level;
  // ranks 0 and 1 share leaf 0, rank 2 is on leaf 1 (the other process slot of core 0).
  const Topology oversubscribed = tree_2x2x2().with_oversubscription(2);
  const CommGraph graph = CommGraph::from_triplets(3, {{0, 1, 7}, {1, 0, 7}, {0, 2, 1}, {2, 0, 1}});

  // Act
  const MappingCost cost = evaluate_cost(graph, oversubscribed, Mapping{{0, 0, 1}});

  // Assert: the 0-1 pair costs nothing; the 0-2 pair is 2 hops over a link of cost 0.
  EXPECT_EQ(cost.hop_bytes, 2.0 * 1.0 * 2.0);
  EXPECT_EQ(cost.weighted, 0.0);
}

TEST(EvaluateCost, EdgeCasesCostNothingInBothVersions) {
  // Arrange: no process; one process (its diagonal entry is dropped); ranks that do not talk.
  const Topology tree = tree_2x2x2();
  const CommGraph empty = CommGraph::from_triplets(0, {});
  const CommGraph single = CommGraph::from_triplets(1, {{0, 0, 9}});
  const CommGraph silent = CommGraph::from_triplets(3, {});

  for (const bool parallel : {true, false}) {
    SCOPED_TRACE(parallel);
    const auto cost = parallel ? evaluate_cost : evaluate_cost_seq;
    const auto traffic = parallel ? traffic_by_height : traffic_by_height_seq;

    // Act
    const MappingCost none = cost(empty, tree, Mapping{});
    const MappingCost one = cost(single, tree, Mapping{{3}});
    const MappingCost quiet = cost(silent, tree, Mapping{{0, 4, 7}});

    // Assert
    EXPECT_EQ(none.hop_bytes, 0.0);
    EXPECT_EQ(none.weighted, 0.0);
    EXPECT_EQ(one.hop_bytes, 0.0);
    EXPECT_EQ(one.weighted, 0.0);
    EXPECT_EQ(quiet.hop_bytes, 0.0);
    EXPECT_EQ(traffic(empty, tree, Mapping{}), (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
    EXPECT_EQ(traffic(silent, tree, Mapping{{0, 4, 7}}), (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
  }
}

TEST(EvaluateCost, RejectsAMappingOfTheWrongSizeOrOutsideTheTree) {
  const CommGraph graph = CommGraph::from_triplets(2, {{0, 1, 1}, {1, 0, 1}});
  const Topology tree = tree_2x2x2();

  EXPECT_THROW(evaluate_cost(graph, tree, Mapping{{0}}), std::invalid_argument);
  EXPECT_THROW(evaluate_cost_seq(graph, tree, Mapping{{0, 8}}), std::invalid_argument);
  EXPECT_THROW(traffic_by_height(graph, tree, Mapping{{-1, 0}}), std::invalid_argument);
}

TEST(TrafficByHeight, SplitsTheVolumeByCommonAncestorHeight) {
  // Arrange: the asymmetric C of AsymmetricMatrixIsChargedAsTheInput.
  const CommGraph graph = CommGraph::from_triplets(
      4, {{0, 1, 4}, {0, 3, 1}, {1, 0, 6}, {1, 2, 3}, {2, 3, 2}, {3, 2, 7}});

  // Act
  const std::vector<double> traffic = traffic_by_height(graph, tree_2x2x2(), four_ranks());

  // Assert: h=1: 4+6, h=2: 3, h=3: 1+2+7; the levels add up to the whole volume.
  EXPECT_EQ(traffic, (std::vector<double>{0.0, 10.0, 3.0, 10.0}));
  EXPECT_EQ(std::accumulate(traffic.begin(), traffic.end(), 0.0), graph.total_volume());
}

TEST(TrafficByHeight, SymmetricMatrixAddsUpToTheTotalVolume) {
  const CommGraph graph = testing::symmetric_4x4();

  const std::vector<double> traffic = traffic_by_height(graph, tree_2x2x2(), four_ranks());

  EXPECT_EQ(traffic, (std::vector<double>{0.0, 20.0, 10.0, 12.0}));
  EXPECT_EQ(std::accumulate(traffic.begin(), traffic.end(), 0.0), 42.0);
  EXPECT_EQ(graph.total_volume(), 42.0);
}

// A random asymmetric graph of 3000 processes with non-integer weights (so the order of the sum
// matters), mapped at random on a 4x4x4x4x4x4 tree (4096 leaves).
struct RandomCase {
  CommGraph graph;
  Topology topology;
  Mapping mapping;
};

RandomCase random_case() {
  constexpr Index kRanks = 3000;
  std::mt19937_64 generator(20240611);
  std::uniform_int_distribution<Index> rank(0, kRanks - 1);
  std::uniform_real_distribution<double> weight(0.001, 1000.0);
  std::vector<Triplet> triplets;
  for (int e = 0; e < 40000; ++e)
    triplets.push_back(Triplet{rank(generator), rank(generator), weight(generator)});

  std::vector<TreeLevel> levels;
  for (int l = 0; l < 6; ++l) levels.push_back(TreeLevel{4, 1.0 + 0.37 * l, "level"});
  Topology topology(levels, /*leaf_os_index=*/{});

  std::vector<Index> leaves(static_cast<std::size_t>(topology.leaf_count()));
  std::iota(leaves.begin(), leaves.end(), Index{0});
  std::shuffle(leaves.begin(), leaves.end(), generator);
  leaves.resize(kRanks);
  return RandomCase{CommGraph::from_triplets(kRanks, std::move(triplets)), std::move(topology),
                    Mapping{leaves}};
}

TEST(EvaluateCost, ParallelEqualsSequentialBitForBitWithAnyThreadCount) {
  // Arrange
  const RandomCase input = random_case();
  ASSERT_GT(input.graph.size(), 2 * kCostBlockRanks);  // several blocks, or the test proves nothing
  const MappingCost reference = evaluate_cost_seq(input.graph, input.topology, input.mapping);
  const std::vector<double> reference_traffic =
      traffic_by_height_seq(input.graph, input.topology, input.mapping);
  ASSERT_GT(reference.hop_bytes, 0.0);

  for (const int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));

    // Act
    const MappingCost cost = evaluate_cost(input.graph, input.topology, input.mapping);
    const std::vector<double> traffic =
        traffic_by_height(input.graph, input.topology, input.mapping);

    // Assert
    EXPECT_EQ(bits(cost.hop_bytes), bits(reference.hop_bytes));
    EXPECT_EQ(bits(cost.weighted), bits(reference.weighted));
    ASSERT_EQ(traffic.size(), reference_traffic.size());
    for (std::size_t h = 0; h < traffic.size(); ++h)
      EXPECT_EQ(bits(traffic[h]), bits(reference_traffic[h])) << h;
  }
}

TEST(TrafficByHeight, RandomGraphAddsUpToTheTotalVolume) {
  const RandomCase input = random_case();

  const std::vector<double> traffic = traffic_by_height(input.graph, input.topology, input.mapping);

  ASSERT_EQ(traffic.size(), static_cast<std::size_t>(input.topology.depth()) + 1);
  EXPECT_EQ(traffic[0], 0.0);  // one rank per leaf
  const double total = std::accumulate(traffic.begin(), traffic.end(), 0.0);
  EXPECT_NEAR(total, input.graph.total_volume(), 1e-9 * input.graph.total_volume());
}

}  // namespace
}  // namespace treematch

namespace treematch {
namespace {

TEST(CostOverflowProblem, RefusesVolumesWhoseCostsWouldBeInfinite) {
  const Topology tree({{2, 1.0, "pack"}, {4, 1.0, "core"}}, {});  // farthest leaves: 4 hops
  EXPECT_EQ(cost_overflow_problem(1e300, tree), "");
  EXPECT_NE(cost_overflow_problem(1e308, tree).find("overflows"), std::string::npos);
  EXPECT_NE(cost_overflow_problem(std::numeric_limits<double>::infinity(), tree).find("add up"),
            std::string::npos);
  // Costly links count too: 1e300 x 2 x (1 + 1e10) overflows.
  const Topology costly({{2, 1e10, "pack"}, {4, 1.0, "core"}}, {});
  EXPECT_NE(cost_overflow_problem(1e300, costly), "");
}

}  // namespace
}  // namespace treematch
