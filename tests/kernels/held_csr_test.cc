// HeldCsr: an owned graph is freed by release and moved out by take; a borrowed one is never
// freed, and take copies it.
#include "kernels/held_csr.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace treematch::kernels {
namespace {

/// The path 0 - 1 - 2, weights 5 and 7.
Csr path_of_three() {
  Csr g;
  g.n = 3;
  g.offsets = {0, 1, 3, 4};
  g.targets = {1, 0, 2, 1};
  g.weights = {5, 5, 7, 7};
  return g;
}

void expect_path_of_three(CsrView g) {
  ASSERT_EQ(g.n, 3);
  EXPECT_EQ(std::vector<Offset>(g.offsets.begin(), g.offsets.end()),
            (std::vector<Offset>{0, 1, 3, 4}));
  EXPECT_EQ(std::vector<Index>(g.targets.begin(), g.targets.end()),
            (std::vector<Index>{1, 0, 2, 1}));
  EXPECT_EQ(std::vector<Weight>(g.weights.begin(), g.weights.end()),
            (std::vector<Weight>{5, 5, 7, 7}));
}

TEST(HeldCsr, AnOwnedGraphSurvivesMovesAndIsFreedByRelease) {
  HeldCsr held(path_of_three());
  HeldCsr moved(std::move(held));
  HeldCsr assigned;
  assigned = std::move(moved);
  expect_path_of_three(assigned.view());
  EXPECT_EQ(moved.view().n, 0);  // NOLINT(bugprone-use-after-move): a moved holder is empty
  assigned.release();
  EXPECT_EQ(assigned.view().n, 0);
  EXPECT_TRUE(assigned.view().targets.empty());
}

TEST(HeldCsr, ABorrowedGraphIsNeverFreedAndTakeCopiesIt) {
  const Csr owner = path_of_three();
  HeldCsr held = HeldCsr::borrowed(owner.view());
  HeldCsr moved(std::move(held));
  EXPECT_EQ(moved.view().targets.data(), owner.targets.data());  // no copy
  const Csr copy = moved.take();
  expect_path_of_three(copy.view());
  EXPECT_NE(copy.targets.data(), owner.targets.data());
  EXPECT_EQ(moved.view().n, 0);
  HeldCsr again = HeldCsr::borrowed(owner.view());
  again.release();
  expect_path_of_three(owner.view());
}

TEST(HeldCsr, TakeMovesAnOwnedGraphOut) {
  Csr g = path_of_three();
  const Index* const targets = g.targets.data();
  HeldCsr held(std::move(g));
  const Csr out = held.take();
  EXPECT_EQ(out.targets.data(), targets);  // moved, not copied
  expect_path_of_three(out.view());
  EXPECT_EQ(held.view().n, 0);
}

}  // namespace
}  // namespace treematch::kernels
