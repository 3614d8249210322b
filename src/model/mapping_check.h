// Whether a mapping is a valid placement: one leaf per rank, usable leaves, load per leaf.
#pragma once

#include <string>
#include <vector>

#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch {

/// What is wrong with `mapping` as the placement of `ranks` processes on `topology`, in one
/// sentence, or "" when nothing is: a length other than `ranks`, a leaf outside the tree or on a
/// hole, a leaf not in `allowed` (sorted; empty = every present leaf), or a leaf holding more
/// than `oversubscribe` ranks. Leaves are named by their logical index. O(p log p).
std::string mapping_problem(const Mapping& mapping, Index ranks, const Topology& topology,
                            const std::vector<Index>& allowed, Index oversubscribe);

}  // namespace treematch
