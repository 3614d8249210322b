// MapGroups: turns the per-level groups into leaf positions, top-down.
#pragma once

#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;

/// The groups formed at one level, bottom-up: `groups` partitions `order` vertices (multiple of k)
/// of which the first `real` are (virtual) processes and the rest artificial.
struct GroupLevel {
  kernels::Groups groups;
  Index real = 0;
};

/// Leaf position (logical, in the tree the levels were built on) of each of the levels[0].real
/// processes: the single group at the top is the root; member j of a group placed at position P
/// goes to child P * k + j; artificial members leave their subtree empty.
std::vector<Index> map_groups(const std::vector<GroupLevel>& levels);

}  // namespace treematch
