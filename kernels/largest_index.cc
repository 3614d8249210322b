// Branch and bound for the "largest value last" heuristic: disjoint groups using only top-ranked
// ones.
#include "kernels/largest_index.h"

#include <algorithm>

namespace treematch::kernels {
namespace {

class Occupancy {
 public:
  explicit Occupancy(Index n) : taken_(at(n), 0) {}
  bool fits(std::span<const Index> group) const {
    return std::none_of(group.begin(), group.end(), [&](Index v) { return taken_[at(v)] != 0; });
  }
  void set(std::span<const Index> group, std::uint8_t state) {
    for (Index v : group) taken_[at(v)] = state;
  }

 private:
  std::vector<std::uint8_t> taken_;
};

}  // namespace

std::vector<Index> min_largest_rank_set(const Groups& candidates, std::span<const Index> order,
                                        Index vertex_count, Index target, std::int64_t budget) {
  const Index count = static_cast<Index>(order.size());
  if (target <= 0) return {};
  // The greedy solution is the first bound.
  Occupancy occupancy(vertex_count);
  std::vector<Index> best;  // ranks
  for (Index r = 0; r < count && static_cast<Index>(best.size()) < target; ++r) {
    if (occupancy.fits(candidates.group(order[at(r)]))) {
      occupancy.set(candidates.group(order[at(r)]), 1);
      best.push_back(r);
    }
  }
  if (static_cast<Index>(best.size()) < target) return {};
  for (Index r : best) occupancy.set(candidates.group(order[at(r)]), 0);

  // Depth-first search for `target` disjoint candidates all ranked below the current bound.
  Index limit = best.back();
  std::vector<Index> stack;
  Index r = 0;
  for (std::int64_t steps = 0; steps < budget; ++steps) {
    const Index needed = target - static_cast<Index>(stack.size());
    if (needed == 0) {
      best = stack;
      limit = stack.back();
      occupancy.set(candidates.group(order[at(stack.back())]), 0);
      stack.pop_back();
      // Anything else at this depth ranks above the popped one, hence above the new bound.
      if (stack.empty()) break;
      r = stack.back() + 1;
      occupancy.set(candidates.group(order[at(stack.back())]), 0);
      stack.pop_back();
      continue;
    }
    if (r >= limit || limit - r < needed) {
      if (stack.empty()) break;
      r = stack.back() + 1;
      occupancy.set(candidates.group(order[at(stack.back())]), 0);
      stack.pop_back();
      continue;
    }
    const auto group = candidates.group(order[at(r)]);
    if (occupancy.fits(group)) {
      occupancy.set(group, 1);
      stack.push_back(r);
    }
    ++r;
  }
  std::vector<Index> chosen;
  chosen.reserve(best.size());
  for (Index rank : best) chosen.push_back(order[at(rank)]);
  return chosen;
}

}  // namespace treematch::kernels
