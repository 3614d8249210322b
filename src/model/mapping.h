// A mapping: for each rank, the logical index of the leaf (core) it runs on.
#pragma once

#include <vector>

#include "kernels/types.h"

namespace treematch {

/// leaf_of_rank[i] = logical leaf index of rank i. With oversubscription several ranks may share a
/// leaf; otherwise it is one-to-one.
struct Mapping {
  std::vector<kernels::Index> leaf_of_rank;
};

}  // namespace treematch
