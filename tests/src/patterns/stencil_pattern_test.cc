// Tests of the stencil's nested block mapping: its shape, its leaves, and its optimality where it
// can be checked by brute force.
#include "src/patterns/stencil_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "src/model/cost.h"
#include "src/patterns/permutation.h"
#include "src/tree/topology.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::tree_of;

//   The benchmark's boxes on a 32 x 16 x 16 grid: 64 switches of 4 x 4 x 8 cells, 16 nodes of
//   2 x 2 x 2, 2 packages of 2 x 2 x 1, 4 cores of one cell. Every leaf gets exactly one rank.
TEST(NestedBlockMapping, IsAPermutationOfTheLeavesOfTheBoxesTree) {
  const std::vector<CellBox> boxes = {{4, 4, 8}, {2, 2, 2}, {2, 2, 1}, {1, 1, 1}};
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const StencilSpec spec{.nx = 32, .ny = 16, .nz = 16, .seed = seed};
    EXPECT_EQ(nested_block_arities(spec, boxes), (std::vector<Index>{64, 16, 2, 4}));

    std::vector<Index> leaves = nested_block_mapping(spec, boxes).leaf_of_rank;

    std::sort(leaves.begin(), leaves.end());
    std::vector<Index> all(32 * 16 * 16);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(leaves, all) << "seed " << seed;
  }
}

//   An 8 x 4 x 4 grid cut into 8 boxes of 4 x 2 x 2, each into 4 of 2 x 2 x 1, each into 4 cells:
//   two cells share a node at depth d exactly when they lie in the same box of level d, so their
//   leaves' common ancestor is as high as the first level whose boxes differ.
TEST(NestedBlockMapping, CellsShareANodeExactlyWhenTheyShareItsBox) {
  const StencilSpec spec{.nx = 8, .ny = 4, .nz = 4, .seed = 7};
  const std::vector<CellBox> boxes = {{4, 2, 2}, {2, 2, 1}, {1, 1, 1}};
  ASSERT_EQ(nested_block_arities(spec, boxes), (std::vector<Index>{8, 4, 4}));
  const Topology tree = tree_of({8, 4, 4});
  const Mapping mapping = nested_block_mapping(spec, boxes);
  const std::vector<Index> rank_of_cell = seeded_permutation(8 * 4 * 4, spec.seed);
  const auto leaf_of_cell = [&](Index x, Index y, Index z) {
    const Index rank = rank_of_cell[static_cast<std::size_t>(x + 8 * (y + 4 * z))];
    return mapping.leaf_of_rank[static_cast<std::size_t>(rank)];
  };
  const auto same_box = [](const CellBox& box, Index a[3], Index b[3]) {
    return a[0] / box.x == b[0] / box.x && a[1] / box.y == b[1] / box.y &&
           a[2] / box.z == b[2] / box.z;
  };
  for (Index ca = 0; ca < 128; ++ca) {
    for (Index cb = 0; cb < 128; ++cb) {
      Index a[3] = {ca % 8, ca / 8 % 4, ca / 32};
      Index b[3] = {cb % 8, cb / 8 % 4, cb / 32};
      int shared = 0;  // levels, from the top, whose box holds both cells
      while (shared < 3 && same_box(boxes[static_cast<std::size_t>(shared)], a, b)) ++shared;
      EXPECT_EQ(tree.common_ancestor_height(leaf_of_cell(a[0], a[1], a[2]),
                                            leaf_of_cell(b[0], b[1], b[2])),
                3 - shared)
          << "cells " << ca << " and " << cb;
    }
  }
}

/// The least weighted cost over every one-to-one mapping of the graph's 8 ranks onto 8 leaves.
double brute_force_optimum(const CommGraph& graph, const Topology& tree) {
  Mapping mapping;
  mapping.leaf_of_rank = {0, 1, 2, 3, 4, 5, 6, 7};
  double best = std::numeric_limits<double>::infinity();
  do {
    best = std::min(best, evaluate_cost(graph, tree, mapping).weighted);
  } while (std::next_permutation(mapping.leaf_of_rank.begin(), mapping.leaf_of_rank.end()));
  return best;
}

//   8 cells, every mapping tried: the nested blocks cost the least, on a 2 x 2 x 2 cube split in
//   two 2 x 2 x 1 halves of 4 cores, and on a 4 x 2 x 1 slab split 2 x 2 x 1, 1 x 2 x 1, 1 cell
//   on a 2 x 2 x 2 tree whose links cost 100 (top), 10 and 1 (the cores).
TEST(NestedBlockMapping, CostsTheLeastOfEveryMappingOnEightCells) {
  struct Case {
    StencilSpec spec;
    std::vector<CellBox> boxes;
    Topology tree;
  };
  const std::vector<Case> cases = {
      {StencilSpec{.nx = 2, .ny = 2, .nz = 2, .seed = 3}, {{2, 2, 1}, {1, 1, 1}}, tree_of({2, 4})},
      {StencilSpec{.nx = 4, .ny = 2, .nz = 1, .seed = 5},
       {{2, 2, 1}, {1, 2, 1}, {1, 1, 1}},
       tree_of({2, 2, 2}).with_link_costs({1.0, 10.0, 100.0})},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(nested_block_arities(c.spec, c.boxes).size(),
              static_cast<std::size_t>(c.tree.depth()));
    const CommGraph graph = make_stencil_27(c.spec);

    const double blocks =
        evaluate_cost(graph, c.tree, nested_block_mapping(c.spec, c.boxes)).weighted;

    EXPECT_DOUBLE_EQ(blocks, brute_force_optimum(graph, c.tree))
        << c.spec.nx << "x" << c.spec.ny << "x" << c.spec.nz;
  }
}

//   A 4 x 2 x 1 slab on two halves of 4 cores: halves of 2 x 2 x 1 cut 2 faces and 2 edges, rows of
//   4 x 1 x 1 cut 4 faces and 6 edges. Both are valid mappings; only the first is optimal.
TEST(NestedBlockMapping, OtherBoxesGiveAValidCostlierMapping) {
  const StencilSpec spec{.nx = 4, .ny = 2, .nz = 1, .seed = 3};
  const Topology tree = tree_of({2, 4});
  const CommGraph graph = make_stencil_27(spec);

  const Mapping squares = nested_block_mapping(spec, {{2, 2, 1}, {1, 1, 1}});
  const Mapping rows = nested_block_mapping(spec, {{4, 1, 1}, {1, 1, 1}});

  std::vector<Index> leaves = rows.leaf_of_rank;
  std::sort(leaves.begin(), leaves.end());
  EXPECT_EQ(leaves, (std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Pairs in one half are 2 links apart, pairs cut by the halves 4 (2 up, 2 down), each pair
  // counted as (i, j) and (j, i): the rows cost 2 x 2 x (cut of the rows - cut of the squares)
  // more.
  EXPECT_DOUBLE_EQ(
      evaluate_cost(graph, tree, rows).weighted - evaluate_cost(graph, tree, squares).weighted,
      2 * 2 * ((4 * 1000.0 + 6 * 100.0) - (2 * 1000.0 + 2 * 100.0)));
  EXPECT_DOUBLE_EQ(evaluate_cost(graph, tree, squares).weighted, brute_force_optimum(graph, tree));
}

TEST(NestedBlockMapping, LevelsOfOneChildAreLeftOut) {
  const StencilSpec spec{.nx = 4, .ny = 4, .nz = 4};
  EXPECT_EQ(nested_block_arities(spec, {{4, 4, 4}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}}),
            (std::vector<Index>{8, 8}));
}

TEST(NestedBlockMapping, BoxesThatDoNotNestThrow) {
  const StencilSpec spec{.nx = 32, .ny = 16, .nz = 16};
  EXPECT_THROW((void)nested_block_mapping(spec, {}), std::invalid_argument);
  // The last box must be one cell.
  EXPECT_THROW((void)nested_block_mapping(spec, {{4, 4, 8}, {2, 2, 2}}), std::invalid_argument);
  // 3 does not divide 32.
  EXPECT_THROW((void)nested_block_mapping(spec, {{3, 4, 8}, {1, 1, 1}}), std::invalid_argument);
  // A box wider than the one above it.
  EXPECT_THROW((void)nested_block_mapping(spec, {{4, 4, 8}, {8, 2, 2}, {1, 1, 1}}),
               std::invalid_argument);
  EXPECT_THROW((void)nested_block_mapping(spec, {{0, 4, 8}, {1, 1, 1}}), std::invalid_argument);
  EXPECT_THROW((void)nested_block_mapping(StencilSpec{.nx = 0}, {{1, 1, 1}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace treematch
