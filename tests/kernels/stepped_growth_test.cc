// Candidate growth one row at a time (the distributed growth's kernel) against the sequential
// neighbourhood_candidates: the same groups whatever order the rows arrive in.
#include "kernels/stepped_growth.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "tests/kernels/kernel_fixtures.h"

namespace treematch::kernels {
namespace {

using testing::random_graph;

/// neighbourhood_candidates' groups grown step by step: every group takes one row per round, in
/// turn, sharing one stepper, as the groups in flight of src/distributed do between exchanges.
Groups stepped_candidates(CsrView graph, std::span<const Weight> rowsum,
                          std::span<const std::uint8_t> free, std::span<const Index> fillers,
                          Index k, int seeds) {
  const auto stored = static_cast<Index>(graph.offsets.size()) - 1;
  // Artificial processes (past the stored rows) have no row.
  const auto targets_of = [&](Index v) {
    return v < stored ? graph.row_targets(v) : std::span<const Index>{};
  };
  const auto weights_of = [&](Index v) {
    return v < stored ? graph.row_weights(v) : std::span<const Weight>{};
  };
  std::vector<SteppedGroup> groups;
  std::vector<std::pair<Weight, Index>> partners;
  std::vector<std::vector<Index>> pairs;
  for (Index v = 0; v < stored; ++v) {
    const auto targets = targets_of(v);
    if (!free[at(v)] ||
        std::none_of(targets.begin(), targets.end(), [&](Index u) { return free[at(u)] != 0; }))
      continue;
    seed_pairs(targets, weights_of(v), free, v, seeds, partners, pairs);
    for (auto& pair : pairs) groups.push_back(start_group(std::move(pair), k));
  }
  GrowthStepper stepper(rowsum, free, fillers, k);
  for (bool growing = true; growing;) {
    growing = false;
    for (SteppedGroup& group : groups) {
      if (group.done) continue;
      const Index v = group.needs();
      stepper.add_row(group, targets_of(v), weights_of(v));
      growing = true;
    }
  }
  std::vector<Index> flat;
  for (const SteppedGroup& group : groups) {
    if (group.complete(k)) flat.insert(flat.end(), group.members.begin(), group.members.end());
  }
  return unique_sorted_groups(std::move(flat), k, /*parallel=*/false);
}

TEST(SteppedGrowth, SameGroupsAsNeighbourhoodCandidates) {
  for (const Index k : {2, 3, 4, 8}) {
    for (const int seeds : {1, 4}) {
      // Rows past 560 are not stored (artificial processes); every 7th process is taken.
      const Csr graph = random_graph(600, 5, 3, 42u + static_cast<unsigned>(k), /*active=*/560);
      CsrView view = graph.view();
      view.offsets = view.offsets.subspan(0, 561);
      const std::vector<Weight> rowsum = row_sums_seq(graph.view());
      std::vector<std::uint8_t> free(600, 1);
      for (Index v = 0; v < 600; v += 7) free[at(v)] = 0;
      const std::vector<Index> fillers = filler_order(rowsum, free);
      const Groups reference = neighbourhood_candidates_seq(view, rowsum, free, fillers, k, seeds);
      ASSERT_GT(reference.count(), 0);
      EXPECT_EQ(stepped_candidates(view, rowsum, free, fillers, k, seeds).members,
                reference.members)
          << "k=" << k << " seeds=" << seeds;
    }
  }
}

TEST(SteppedGrowth, SameGroupsOnCutRowsWithFillersAndStuckGroups) {
  // Few free processes with few free partners: groups run out of neighbours and take fillers;
  // at k = 16 some run out of fillers too and are dropped.
  const Csr whole = random_graph(400, 6, 50, 9);
  const Csr cut = strongest_neighbours_seq(whole.view(), 3);
  const std::vector<Weight> rowsum = row_sums_seq(whole.view());
  std::vector<std::uint8_t> free(400, 0);
  for (Index v = 0; v < 400; v += 5) free[at(v)] = 1;
  const std::vector<Index> fillers = filler_order(rowsum, free);
  for (const Index k : {3, 5, 16}) {
    const Groups reference = neighbourhood_candidates_seq(cut.view(), rowsum, free, fillers, k, 2);
    EXPECT_EQ(stepped_candidates(cut.view(), rowsum, free, fillers, k, 2).members,
              reference.members)
        << "k=" << k;
  }
}

TEST(SteppedGrowth, ASeedOfKMembersIsDoneAtOnce) {
  const SteppedGroup group = start_group({5, 2}, 2);
  EXPECT_TRUE(group.complete(2));
  EXPECT_EQ(group.members, (std::vector<Index>{2, 5}));
  EXPECT_EQ(group.needs(), -1);
}

}  // namespace
}  // namespace treematch::kernels
