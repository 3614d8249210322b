// One step of candidate growth: the group's state spread into dense scratch, a row added, the
// next members chosen, the state gathered back.
#include "kernels/stepped_growth.h"

#include <algorithm>

#include "kernels/candidate_groups.h"

namespace treematch::kernels {

GrowthStepper::GrowthStepper(std::span<const Weight> rowsum, std::span<const std::uint8_t> free,
                             std::span<const Index> fillers, Index k)
    : rowsum_(rowsum),
      free_(free),
      fillers_(fillers),
      k_(k),
      conn_(free.size(), 0.0),
      state_(free.size(), kUntouched) {}

namespace {

void finish(SteppedGroup& group) {
  group.done = true;
  group.frontier.clear();
  group.frontier.shrink_to_fit();
  std::sort(group.members.begin(), group.members.end());
}

}  // namespace

SteppedGroup start_group(std::vector<Index> seed, Index k) {
  SteppedGroup group;
  group.members = std::move(seed);
  if (static_cast<Index>(group.members.size()) >= k) finish(group);
  return group;
}

void GrowthStepper::add_row(SteppedGroup& group, std::span<const Index> targets,
                            std::span<const Weight> weights) {
  for (const Index v : group.members) state_[at(v)] = kMember;
  for (const auto& [x, weight] : group.frontier) {
    state_[at(x)] = kFrontier;
    conn_[at(x)] = weight;
  }
  // The member's row, summed into the group's weights in the same order as GrowthScratch.
  for (std::size_t e = 0; e < targets.size(); ++e) {
    const Index u = targets[e];
    if (!free_[at(u)] || state_[at(u)] == kMember) continue;
    if (state_[at(u)] == kUntouched) {
      state_[at(u)] = kFrontier;
      group.frontier.emplace_back(u, 0.0);
    }
    conn_[at(u)] += weights[e];
  }
  ++group.rows_added;
  bool stuck = false;
  // The last member's row could only matter to a member after it: grow while every row is in.
  while (group.rows_added == group.members.size() &&
         static_cast<Index>(group.members.size()) < k_) {
    Index best = -1;
    for (const auto& entry : group.frontier) {
      const Index x = entry.first;
      if (state_[at(x)] != kFrontier) continue;
      if (best < 0 || joins_before(x, conn_[at(x)], best, conn_[at(best)], rowsum_)) best = x;
    }
    if (best < 0) {  // no free partner left: the lightest unused vertex
      while (group.next_filler < fillers_.size() &&
             (state_[at(fillers_[group.next_filler])] == kMember ||
              !free_[at(fillers_[group.next_filler])])) {
        ++group.next_filler;
      }
      if (group.next_filler == fillers_.size()) {
        stuck = true;
        break;
      }
      best = fillers_[group.next_filler];
    }
    state_[at(best)] = kMember;
    group.members.push_back(best);
  }
  // Gather the frontier back (members leave it) and reset the scratch.
  std::size_t kept = 0;
  for (const auto& [x, weight] : group.frontier) {
    if (state_[at(x)] == kFrontier) group.frontier[kept++] = {x, conn_[at(x)]};
    state_[at(x)] = kUntouched;
    conn_[at(x)] = 0.0;
  }
  group.frontier.resize(kept);
  for (const Index v : group.members) state_[at(v)] = kUntouched;
  if (stuck || static_cast<Index>(group.members.size()) == k_) finish(group);
}

}  // namespace treematch::kernels
