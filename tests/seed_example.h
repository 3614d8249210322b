// The worked example of seed 001 (Fig. 9): its 8x8 communication matrix, shared by the tests.
#pragma once

#include <vector>

#include "kernels/types.h"

namespace treematch::testing {

/// Seed 001, Fig. 9(a): pairs (0,1) (2,3) (4,5) (6,7) talk 1000, and so on. Row 3, column 3 is 0.
inline constexpr double kSeedMatrix[8][8] = {
    {0, 1000, 10, 1, 100, 1, 1, 1},    {1000, 0, 1000, 1, 1, 100, 1, 1},
    {10, 1000, 0, 1000, 1, 1, 100, 1}, {1, 1, 1000, 0, 1, 1, 1, 100},
    {100, 1, 1, 1, 0, 1000, 10, 1},    {1, 100, 1, 1, 1000, 0, 1000, 1},
    {1, 1, 100, 1, 10, 1000, 0, 1000}, {1, 1, 1, 100, 1, 1, 1000, 0}};

/// The seed matrix as dense rows.
inline std::vector<std::vector<double>> seed_rows() {
  std::vector<std::vector<double>> rows;
  for (const auto& row : kSeedMatrix) rows.emplace_back(std::begin(row), std::end(row));
  return rows;
}

/// The seed matrix as a CSR (it is symmetric).
inline kernels::Csr seed_csr() {
  kernels::Csr out;
  out.n = 8;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      if (kSeedMatrix[i][j] != 0) {
        out.targets.push_back(j);
        out.weights.push_back(kSeedMatrix[i][j]);
      }
    }
    out.offsets.push_back(static_cast<kernels::Offset>(out.targets.size()));
  }
  return out;
}

}  // namespace treematch::testing
