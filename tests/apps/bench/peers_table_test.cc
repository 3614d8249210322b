// The best peer of a case and the peers table built on it.
#include "apps/bench/peers_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace treematch::bench {
namespace {

ToolResult ran(double weighted, Index max_load = 1, double seconds = 1.0) {
  ToolResult t;
  t.attempted = true;
  t.cost.weighted = weighted;
  t.max_load = max_load;
  t.min_wall_seconds = seconds;
  return t;
}

CaseResult case_with_peers() {
  CaseResult c;
  c.name = "irregular";
  c.processes = 256;
  c.scotch = ran(90.0, /*max_load=*/2);  // cheapest, but two processes on one core
  c.scotch_cq = ran(120.0);
  c.viem = ran(110.0, 1, 2.0);
  c.sharedmap = ran(100.0, 1, 4.0);
  return c;
}

TEST(PeersTable, BestPeerIsTheCheapestThatPutsOneProcessPerCore) {
  const CaseResult c = case_with_peers();
  const ToolResult* best = best_peer(c);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(peer_name(c, best), "sharedmap");
  CaseResult without = c;
  without.sharedmap.failure = "n/a: no --sharedmap";
  EXPECT_EQ(peer_name(without, best_peer(without)), "viem");
  CaseResult none;
  EXPECT_EQ(best_peer(none), nullptr);
  EXPECT_EQ(peer_name(none, nullptr), "-");
}

TEST(PeersTable, PresetsAreGivenAgainstTheBestPeerAndTimedAgainstVieM) {
  CaseResult c = case_with_peers();
  c.presets.push_back(PresetResult{"default", ran(95.0, 1, 0.5), "digest"});
  const std::string table = render_peers({c});
  // 95 / 100 (SharedMap's cost), 0.5 s / 2 s (VieM's time).
  EXPECT_NE(table.find("sharedmap"), std::string::npos) << table;
  EXPECT_NE(table.find("0.9500"), std::string::npos) << table;
  EXPECT_NE(table.find("0.250"), std::string::npos) << table;
  EXPECT_NE(table.find("geometric mean 0.9500 over 1 case(s), at or below it on 1"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace treematch::bench
