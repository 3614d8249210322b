// Tests of the CommGraph builders: symmetry detection, C + C^T, triplets, dense reference.
#include "src/model/comm_graph.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

namespace treematch {
namespace {

using Dense = std::vector<std::vector<double>>;

/// The directed CSR rows (off-diagonal non-zeros) of a dense matrix.
struct Rows {
  std::vector<Offset> offsets{0};
  std::vector<Index> targets;
  std::vector<Weight> weights;
};

Rows rows_of(const Dense& m) {
  Rows rows;
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (i != j && m[i][j] > 0.0) {
        rows.targets.push_back(static_cast<Index>(j));
        rows.weights.push_back(m[i][j]);
      }
    }
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
  }
  return rows;
}

CommGraph build(const Dense& m) {
  Rows rows = rows_of(m);
  return CommGraph::from_directed_rows(static_cast<Index>(m.size()), std::move(rows.offsets),
                                       std::move(rows.targets), std::move(rows.weights));
}

/// The stored graph as a dense matrix.
Dense dense_of(const CommGraph& g) {
  const kernels::CsrView v = g.view();
  Dense m(static_cast<std::size_t>(g.size()),
          std::vector<double>(static_cast<std::size_t>(g.size()), 0.0));
  for (Index i = 0; i < v.n; ++i) {
    for (Offset e = v.row_begin(i); e < v.row_end(i); ++e) {
      m[static_cast<std::size_t>(i)]
       [static_cast<std::size_t>(v.targets[static_cast<std::size_t>(e)])] =
           v.weights[static_cast<std::size_t>(e)];
    }
  }
  return m;
}

/// Reference: keep a symmetric matrix, else C + C^T; diagonal dropped.
Dense reference_symmetric(const Dense& c) {
  const std::size_t n = c.size();
  bool symmetric = true;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) symmetric = symmetric && (i == j || c[i][j] == c[j][i]);
  }
  Dense s(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j) s[i][j] = symmetric ? c[i][j] : c[i][j] + c[j][i];
    }
  }
  return s;
}

/// Rows sorted strictly by column, no diagonal, positive weights, symmetric values.
void expect_canonical(const CommGraph& g) {
  const kernels::CsrView v = g.view();
  ASSERT_EQ(v.offsets.size(), static_cast<std::size_t>(g.size()) + 1);
  for (Index i = 0; i < v.n; ++i) {
    for (Offset e = v.row_begin(i); e < v.row_end(i); ++e) {
      const auto k = static_cast<std::size_t>(e);
      EXPECT_NE(v.targets[k], i);
      EXPECT_GT(v.weights[k], 0.0);
      if (e > v.row_begin(i)) {
        EXPECT_LT(v.targets[k - 1], v.targets[k]);
      }
    }
  }
  const Dense m = dense_of(g);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) EXPECT_EQ(m[i][j], m[j][i]) << i << "," << j;
  }
}

double off_diagonal_sum(const Dense& c) {
  double sum = 0.0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    for (std::size_t j = 0; j < c.size(); ++j) sum += i == j ? 0.0 : c[i][j];
  }
  return sum;
}

TEST(CommGraph, SymmetricInputIsKeptAsIs) {
  // 0 2 0 1
  // 2 0 5 0
  // 0 5 0 0
  // 1 0 0 0
  const Dense c = {{0, 2, 0, 1}, {2, 0, 5, 0}, {0, 5, 0, 0}, {1, 0, 0, 0}};

  const CommGraph g = build(c);

  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(g.cost_scale(), 1.0);
  EXPECT_EQ(g.size(), 4);
  const kernels::CsrView v = g.view();
  EXPECT_EQ(std::vector<Offset>(v.offsets.begin(), v.offsets.end()),
            (std::vector<Offset>{0, 2, 4, 5, 6}));
  EXPECT_EQ(std::vector<Index>(v.targets.begin(), v.targets.end()),
            (std::vector<Index>{1, 3, 0, 2, 1, 0}));
  EXPECT_EQ(std::vector<Weight>(v.weights.begin(), v.weights.end()),
            (std::vector<Weight>{2, 1, 2, 5, 5, 1}));
  EXPECT_EQ(g.total_volume(), 16.0);
}

TEST(CommGraph, AsymmetricInputBecomesCPlusCTranspose) {
  // C:        stored S = C + C^T:
  // 0 3 0     0 4 4
  // 1 0 0     4 0 0
  // 4 0 0     4 0 0
  const Dense c = {{0, 3, 0}, {1, 0, 0}, {4, 0, 0}};

  const CommGraph g = build(c);

  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(g.cost_scale(), 0.5);
  const kernels::CsrView v = g.view();
  EXPECT_EQ(std::vector<Offset>(v.offsets.begin(), v.offsets.end()),
            (std::vector<Offset>{0, 2, 3, 4}));
  EXPECT_EQ(std::vector<Index>(v.targets.begin(), v.targets.end()),
            (std::vector<Index>{1, 2, 0, 0}));
  EXPECT_EQ(std::vector<Weight>(v.weights.begin(), v.weights.end()),
            (std::vector<Weight>{4, 4, 4, 4}));
  EXPECT_EQ(g.total_volume(), 8.0);  // 3 + 1 + 4: the input's off-diagonal sum
}

TEST(CommGraph, SamePatternDifferentWeightsIsAsymmetric) {
  // 0 2
  // 3 0   -> 0 5 / 5 0, total volume 5
  const CommGraph g = build({{0, 2}, {3, 0}});

  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(dense_of(g), (Dense{{0, 5}, {5, 0}}));
  EXPECT_EQ(g.total_volume(), 5.0);
}

TEST(CommGraph, TripletsWithDuplicatesDiagonalAndZerosAreMerged) {
  // (0,1) 2 + 3, (1,0) 5, (1,1) 7 dropped, (2,0) 0 dropped, (2,1) 1 and (1,2) 1 in any order.
  std::vector<Triplet> triplets = {{1, 2, 1}, {0, 1, 2}, {1, 1, 7}, {2, 0, 0},
                                   {1, 0, 5}, {0, 1, 3}, {2, 1, 1}};

  const CommGraph g = CommGraph::from_triplets(3, std::move(triplets));

  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(dense_of(g), (Dense{{0, 5, 0}, {5, 0, 1}, {0, 1, 0}}));
  EXPECT_EQ(g.total_volume(), 12.0);
}

TEST(CommGraph, AsymmetricTripletsAreSymmetrised) {
  // (0,2) 4 twice and (2,1) 1: directed, stored as C + C^T.
  const CommGraph g = CommGraph::from_triplets(3, {{0, 2, 4}, {2, 1, 1}, {0, 2, 4}});

  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(dense_of(g), (Dense{{0, 0, 8}, {0, 0, 1}, {8, 1, 0}}));
  EXPECT_EQ(g.total_volume(), 9.0);
}

TEST(CommGraph, EmptyGraphs) {
  const CommGraph none;
  const CommGraph zero = CommGraph::from_directed_rows(0, {0}, {}, {});
  const CommGraph isolated = CommGraph::from_triplets(5, {{2, 2, 4.0}});

  EXPECT_EQ(none.size(), 0);
  EXPECT_EQ(none.nnz(), 0);
  EXPECT_EQ(none.view().offsets.size(), 1u);
  EXPECT_EQ(zero.size(), 0);
  EXPECT_EQ(zero.total_volume(), 0.0);
  EXPECT_EQ(isolated.size(), 5);
  EXPECT_EQ(isolated.nnz(), 0);
  EXPECT_FALSE(isolated.was_symmetrised());
  EXPECT_EQ(isolated.view().offsets.size(), 6u);
  EXPECT_EQ(isolated.total_volume(), 0.0);
}

TEST(CommGraph, MalformedArgumentsAreRejected) {
  EXPECT_THROW(CommGraph::from_directed_rows(2, {0, 1}, {1}, {1.0}), std::invalid_argument);
  EXPECT_THROW(CommGraph::from_directed_rows(1, {0, 2}, {0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(CommGraph::from_triplets(2, {{0, 2, 1.0}}), std::invalid_argument);
  EXPECT_THROW(CommGraph::from_triplets(2, {{0, 1, -1.0}}), std::invalid_argument);
}

/// Random 200-vertex matrices: directed, symmetric, and symmetric but for one weight.
TEST(CommGraph, RandomMatchesDenseReference) {
  std::mt19937 rng(20240521);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> volume(1, 1000);
  constexpr std::size_t kN = 200;
  for (int trial = 0; trial < 6; ++trial) {
    const double density = trial % 2 == 0 ? 0.05 : 0.3;
    Dense c(kN, std::vector<double>(kN, 0.0));
    for (std::size_t i = 0; i < kN; ++i) {
      for (std::size_t j = 0; j < kN; ++j) {
        if (coin(rng) < density) c[i][j] = volume(rng);
      }
    }
    if (trial >= 2) {  // symmetric
      for (std::size_t i = 0; i < kN; ++i) {
        for (std::size_t j = 0; j < i; ++j) c[j][i] = c[i][j];
      }
    }
    if (trial >= 4) c[17][42] = c[42][17] + 1.0;  // one weight differs
    const bool symmetric_input = trial == 2 || trial == 3;

    const CommGraph g = build(c);

    expect_canonical(g);
    EXPECT_EQ(g.was_symmetrised(), !symmetric_input) << "trial " << trial;
    EXPECT_EQ(dense_of(g), reference_symmetric(c)) << "trial " << trial;
    EXPECT_DOUBLE_EQ(g.total_volume(), off_diagonal_sum(c)) << "trial " << trial;
  }
}

TEST(CommGraph, RandomTripletsMatchDenseReference) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<Index> vertex(0, 199);
  std::uniform_int_distribution<int> volume(0, 50);
  Dense c(200, std::vector<double>(200, 0.0));
  std::vector<Triplet> triplets;
  for (int k = 0; k < 6000; ++k) {  // duplicates, diagonal and zeros included
    const Triplet t{vertex(rng), vertex(rng), static_cast<Weight>(volume(rng))};
    triplets.push_back(t);
    c[static_cast<std::size_t>(t.row)][static_cast<std::size_t>(t.col)] += t.weight;
  }

  const CommGraph g = CommGraph::from_triplets(200, std::move(triplets));

  expect_canonical(g);
  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(dense_of(g), reference_symmetric(c));
  EXPECT_DOUBLE_EQ(g.total_volume(), off_diagonal_sum(c));
}

}  // namespace
}  // namespace treematch
