// The cases --simulate is meant for: link-bound patterns on machines whose network cards and
// oversubscribed switch uplinks the link model describes (series "simulation").
#pragma once

#include <vector>

#include "apps/bench/bench_cases.h"

namespace treematch::bench {

/// Series name selecting the simulation cases (--cases simulation).
inline constexpr const char* kSimulationSeries = "simulation";

/// MapLib's four measured 64-rank applications (LULESH, AMG, CG, BT-MZ: bytes over the run) on
/// 2 switches x 4 nodes x 8 cores, and 27-point halos (faces 1 MB, edges 100 kB, corners 10 kB)
/// of 512 and 1024 ranks numbered at random on 4 or 8 switches x 8 nodes x 2 sockets x 8 cores;
/// link costs 1:10:100(:1000) from the cores up, machines of 8 or 16 cores. Not in the default set.
std::vector<CaseSpec> simulation_cases();

}  // namespace treematch::bench
