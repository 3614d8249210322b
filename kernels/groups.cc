// Reordering and inverting Groups, in parallel.
#include <algorithm>
#include <numeric>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/types.h"

namespace treematch::kernels {

Groups ordered_by_first_member(const Groups& groups) {
  std::vector<Index> order(at(groups.count()));
  std::iota(order.begin(), order.end(), 0);
  // Disjoint groups have distinct first members: the order is unique, whatever the sort.
  tbb::parallel_sort(order.begin(), order.end(),
                     [&](Index x, Index y) { return groups.group(x)[0] < groups.group(y)[0]; });
  Groups out;
  out.k = groups.k;
  out.members.resize(groups.members.size());
  tbb::parallel_for(std::size_t{0}, order.size(), [&](std::size_t i) {
    const auto group = groups.group(order[i]);
    std::copy(group.begin(), group.end(),
              out.members.begin() + static_cast<std::ptrdiff_t>(i * at(groups.k)));
  });
  return out;
}

std::vector<Index> group_owner(const Groups& groups, Index n) {
  std::vector<Index> owner(at(n), -1);
  // Each vertex is in one group at most: every slot is written by one task.
  tbb::parallel_for(Index{0}, groups.count(), [&](Index g) {
    for (Index v : groups.group(g)) owner[at(v)] = g;
  });
  return owner;
}

}  // namespace treematch::kernels
