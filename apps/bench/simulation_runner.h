// Simulating mappings with SimGrid's SMPI: each mapping's job run on a platform made from the
// case's tree and link model, by a replay of the pattern and by a halo exchange with computation.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "apps/bench/spawner.h"
#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch::bench {

/// How --simulate runs SMPI (programs built with TM_SIMGRID, apps/bench/smpi/).
struct SimulationOptions {
  std::string smpirun;  ///< path of smpirun
  std::string replay;   ///< the pattern_replay program
  std::string halo;     ///< the halo_exchange program
  int halo_iterations = 3;
  /// Floating-point operations per rank and iteration of the halo's computation phase, injected
  /// (hosts compute kSimulatedHostFlops per second: 1 ms).
  double halo_flops = 1e6;
  unsigned timeout_seconds = 900;  ///< per simulation
};

/// Speed of every simulated host (flop/s); the computation is injected, so only the ratio to
/// halo_flops matters.
inline constexpr double kSimulatedHostFlops = 1e9;

/// One mapping of a case: what treematch's model predicts and what SMPI simulates.
struct SimulatedMapping {
  std::string name;              ///< treematch-sum, treematch-congestion, scotch, packed, random
  double weighted = 0.0;         ///< the weighted sum of the case's link costs
  double congestion = 0.0;       ///< the congestion norm (s), volumes x byte_scale
  double predicted = 0.0;        ///< predicted communication time (s), volumes x byte_scale
  double replay_seconds = -1.0;  ///< pattern_replay's simulated time (< 0: failed)
  double halo_seconds = -1.0;    ///< halo_exchange's simulated loop
  double halo_communication_seconds = -1.0;  ///< ... of which the slowest rank communicated
  double wall_seconds = 0.0;                 ///< both simulations, on this machine
  std::string failure;                       ///< why a simulation gave no time; empty = ok
};

/// A named mapping to simulate.
struct NamedMapping {
  std::string name;
  Mapping mapping;
};

/// Writes the pattern file of `graph` (every stored entry (i, j) as a message of weight x
/// cost_scale x byte_scale bytes from i to j, rounded, at least 1) and the platform of `topology`
/// with `links` into `dir`, then for each mapping: its link loads and costs, its hostfile, and
/// `smpirun` of the replay and the halo. SimGrid's settings: the CM02 network model (plain
/// max-min sharing, no TCP-calibrated factors) without crosstraffic (SimGrid otherwise adds a
/// reverse flow of 5% per flow for TCP's acknowledgements, which made a 2-rank exchange 5% slower
/// than its bytes over bandwidth), computation not measured, no privatisation, and event times
/// merged within 1 us (surf/precision 1e-6 instead of SMPI's 1e-9: a 1024-rank replay 17 s
/// instead of 56 s, its time 0.003% off). A mapping whose simulation fails has
/// SimulatedMapping::failure set; throws std::runtime_error only when the files cannot be written.
std::vector<SimulatedMapping> simulate_mappings(const std::vector<NamedMapping>& mappings,
                                                const CommGraph& graph, const Topology& topology,
                                                const LinkModel& links, double byte_scale,
                                                const SimulationOptions& options,
                                                const std::filesystem::path& dir, Spawner& spawner,
                                                std::ostream& progress);

}  // namespace treematch::bench
