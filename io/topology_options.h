// How a topology reader turns a machine into leaves: cores (the default) or hardware threads.
#pragma once

#include <cstdint>

namespace treematch::io {

struct TopologyOptions {
  /// Leaves are PUs (hardware threads) instead of cores: Open MPI's --use-hwthread-cpus. A core
  /// leaf stands for all its PUs (Topology::cpus). Trees without a core level (tleaf files,
  /// synthetic strings without 'core') have their leaves as given either way.
  bool hardware_threads = false;
  /// Leaves a mapping will use (processes / --oversubscribe); 0 = unknown. tleaf and synthetic
  /// trees larger than that are read as the part used (prefix_levels in src/tree/topology.h), so a
  /// description of a huge cluster costs what the job takes.
  std::int64_t leaves_needed = 0;
  /// Leaves per machine (--node-size): whole machines are kept; 0 = unknown (1).
  std::int64_t machine_leaves = 0;
};

}  // namespace treematch::io
