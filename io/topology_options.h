// How a topology reader turns a machine into leaves: cores (the default) or hardware threads.
#pragma once

namespace treematch::io {

struct TopologyOptions {
  /// Leaves are PUs (hardware threads) instead of cores: Open MPI's --use-hwthread-cpus. A core
  /// leaf stands for all its PUs (Topology::cpus). Trees without a core level (tleaf files,
  /// synthetic strings without 'core') have their leaves as given either way.
  bool hardware_threads = false;
};

}  // namespace treematch::io
