// The reorder's pure steps without MPI: the occupied slots and the new ranks TreeMatch implies.
#include "apps/reorder/reorder.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "io/topology_reader.h"
#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "tests/seed_example.h"

namespace treematch::distributed {
namespace {

/// Two nodes of 2 packages x 2 cores; PU OS indexes 0-3 on each, logical leaves 0-7.
///
///                   root
///          +---------+---------+
///        node0               node1
///      +---+---+           +---+---+
///     p0       p1         p0       p1
///    +-+-+   +-+-+       +-+-+   +-+-+
///    0   1   2   3       0   1   2   3     (PU OS index on its node)
///    0   1   2   3       4   5   6   7     (logical leaf of the allocation tree)
AllocationTopology two_nodes() {
  const Topology node = io::read_topology("pack:2 core:2 pu:1");
  return build_allocation_topology({{"n0", node}, {"n1", node}}, NetworkShape{});
}

TEST(OccupiedSlots, OneProcessPerPuUsesThePusThemselves) {
  const AllocationTopology allocation = two_nodes();
  const std::vector<ProcessPlace> places{{1, 3}, {0, 0}, {1, 0}, {0, 2},
                                         {0, 1}, {1, 1}, {0, 3}, {1, 2}};
  const ReorderSlots slots = occupied_slots(allocation, places);
  EXPECT_EQ(slots.per_pu, 1);
  EXPECT_EQ(slots.topology.to_tleaf(), allocation.topology.to_tleaf());
  EXPECT_TRUE(slots.allowed_leaves.empty());  // every PU holds a process
  EXPECT_EQ(slots.slot_of_rank, (std::vector<Index>{7, 0, 4, 2, 1, 5, 3, 6}));
}

TEST(OccupiedSlots, FreePusAreLeftOut) {
  const ReorderSlots slots = occupied_slots(two_nodes(), {{0, 1}, {1, 2}});
  EXPECT_EQ(slots.per_pu, 1);
  EXPECT_EQ(slots.allowed_leaves, (std::vector<Index>{1, 6}));
  EXPECT_EQ(slots.slot_of_rank, (std::vector<Index>{1, 6}));
}

TEST(OccupiedSlots, SharedPusBecomeOversubscription) {
  // Ranks 0, 1 and 3 share PU 0 of node 0; rank 2 is alone on PU 1: 3 virtual leaves per PU.
  const ReorderSlots slots = occupied_slots(two_nodes(), {{0, 0}, {0, 0}, {0, 1}, {0, 0}});
  EXPECT_EQ(slots.per_pu, 3);
  EXPECT_EQ(slots.topology.leaf_count(), 24);
  EXPECT_EQ(slots.slot_of_rank, (std::vector<Index>{0, 1, 3, 2}));
  EXPECT_EQ(slots.allowed_leaves, (std::vector<Index>{0, 1, 2, 3}));
}

TEST(OccupiedSlots, RejectsAPuOutsideTheAllocation) {
  try {
    occupied_slots(two_nodes(), {{0, 0}, {1, 9}});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("rank 1 runs on PU 9 of node 'n1'"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(occupied_slots(two_nodes(), {{2, 0}}), std::invalid_argument);
}

TEST(ReorderContext, PlacesOneProcessPerOccupiedSlot) {
  Context base = default_context();
  base.placement.oversubscribe = 4;
  const ReorderSlots slots = occupied_slots(two_nodes(), {{0, 1}, {1, 2}});
  const Context ctx = reorder_context(slots, base);
  EXPECT_EQ(ctx.placement.oversubscribe, 1);
  EXPECT_EQ(ctx.placement.allowed_leaves, slots.allowed_leaves);
}

TEST(NewRanks, TheProcessOnSlotSigmaKBecomesRankK) {
  // Processes (old ranks) 0..3 sit on slots 3, 2, 1, 0; TreeMatch wants rank k on slot k.
  ReorderSlots slots = occupied_slots(two_nodes(), {{0, 3}, {0, 2}, {0, 1}, {0, 0}});
  const std::vector<int> identity = new_ranks(slots, Mapping{{0, 1, 2, 3}});
  EXPECT_EQ(identity, (std::vector<int>{3, 2, 1, 0}));
  // TreeMatch wants rank 0 on slot 1, rank 1 on slot 0, ...: old rank 2 (slot 1) becomes 0.
  EXPECT_EQ(new_ranks(slots, Mapping{{1, 0, 3, 2}}), (std::vector<int>{2, 3, 0, 1}));
}

TEST(NewRanks, RejectsAMappingThatIsNotABijectionOntoTheSlots) {
  const ReorderSlots slots = occupied_slots(two_nodes(), {{0, 0}, {0, 1}});
  EXPECT_THROW(new_ranks(slots, Mapping{{0, 0}}), std::logic_error);   // slot 0 twice
  EXPECT_THROW(new_ranks(slots, Mapping{{0, 5}}), std::logic_error);   // slot 5 is free
  EXPECT_THROW(new_ranks(slots, Mapping{{0}}), std::logic_error);      // too few ranks
  EXPECT_THROW(new_ranks(slots, Mapping{{0, 99}}), std::logic_error);  // outside the tree
}

/// The processes end up where TreeMatch put the application ranks: the cost of the placement the
/// new communicator realises equals the cost of TreeMatch's mapping.
void expect_reorder_realises_treematch(const std::vector<ProcessPlace>& places) {
  const CommGraph graph = CommGraph::from_symmetric_csr(
      8, testing::seed_csr().offsets, testing::seed_csr().targets, testing::seed_csr().weights);
  const ReorderSlots slots = occupied_slots(two_nodes(), places);
  const TreeMatchResult mapped =
      treematch_map(graph, slots.topology, reorder_context(slots, default_context()));
  const std::vector<int> new_rank_of_old = new_ranks(slots, mapped.mapping);

  Mapping realised;  // new rank k runs on the slot of the process that became rank k
  realised.leaf_of_rank.assign(8, -1);
  for (std::size_t old = 0; old < 8; ++old) {
    realised.leaf_of_rank[static_cast<std::size_t>(new_rank_of_old[old])] = slots.slot_of_rank[old];
  }
  EXPECT_EQ(realised.leaf_of_rank, mapped.mapping.leaf_of_rank);
  EXPECT_EQ(evaluate_cost(graph, slots.topology, realised).hop_bytes,
            evaluate_cost(graph, slots.topology, mapped.mapping).hop_bytes);
}

TEST(Reorder, RealisesTreeMatchOnAScrambledPlacement) {
  expect_reorder_realises_treematch(
      {{1, 3}, {0, 0}, {1, 0}, {0, 2}, {0, 1}, {1, 1}, {0, 3}, {1, 2}});
}

TEST(Reorder, RealisesTreeMatchWhenProcessesSharePus) {
  expect_reorder_realises_treematch(
      {{0, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 2}, {1, 1}, {0, 3}, {1, 0}});
}

}  // namespace
}  // namespace treematch::distributed
