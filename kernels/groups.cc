// Reordering, gathering and inverting Groups, in parallel.
#include <algorithm>
#include <numeric>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/parallel_tasks.h"
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
  out.members = gather_groups(groups.members, groups.k, order, /*parallel=*/true);
  return out;
}

std::vector<Index> gather_groups(const std::vector<Index>& flat, Index k,
                                 std::span<const Index> slots, bool parallel) {
  std::vector<Index> out(slots.size() * at(k));
  const auto copy = [&](std::size_t i) {
    const auto group = flat.begin() + static_cast<std::ptrdiff_t>(at(slots[i]) * at(k));
    std::copy(group, group + k, out.begin() + static_cast<std::ptrdiff_t>(i * at(k)));
  };
  if (parallel && worth_tasks(static_cast<Index>(slots.size()))) {
    tbb::parallel_for(std::size_t{0}, slots.size(), copy);
  } else {
    for (std::size_t i = 0; i < slots.size(); ++i) copy(i);
  }
  return out;
}

std::vector<Index> group_owner(const Groups& groups, Index n) {
  std::vector<Index> owner(at(n), -1);
  // Each vertex is in one group at most: every slot is written by one task.
  const auto own = [&](Index g) {
    for (Index v : groups.group(g)) owner[at(v)] = g;
  };
  if (worth_tasks(groups.count())) {
    tbb::parallel_for(Index{0}, groups.count(), own);
  } else {
    for (Index g = 0; g < groups.count(); ++g) own(g);
  }
  return owner;
}

}  // namespace treematch::kernels
