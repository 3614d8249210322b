// Reads topologies through hwloc (XML exports, this machine, synthetic strings) into a Topology.
#pragma once

#include <stdexcept>
#include <string>

#include "io/topology_options.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// An hwloc call failed for a reason that is not the user's input (out of memory, ...); the
/// message names the call.
class HwlocError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads an hwloc XML export. PUs the exporting process was not allowed to use are included: the
/// file describes a whole machine, even when exported inside a job allocation (an export made
/// with `lstopo --restrict` holds only the PUs kept). The tree walk is the one of every hwloc
/// source: levels from the root down to the cores (or to the PUs with
/// options.hardware_threads, or when the machine has no core level), NUMA nodes (memory
/// children in hwloc 2) ignored, leaves left to right, each standing for the PUs of its cpuset
/// (Topology::cpus) with its smallest PU OS index as its OS index, level names from hwloc
/// ("Package", "L3Cache", "Group0", ...), link costs 1, machine_level() 0. Nodes of one level may
/// differ in arity and a branch may skip a level (restricted topologies, hybrid CPUs, disabled
/// cores): the tree is the balanced superset with holes of src/tree/unbalanced_tree.h, whose
/// logical leaf numbering is hwloc's logical index of the cores (PUs). Throws InputError(path, ...)
/// when hwloc cannot load the file.
Topology read_hwloc_xml(const std::string& path, const TopologyOptions& options = {});

/// The machine this process runs on, restricted to the PUs this process may use (a job launched
/// from here gets the same cgroup). Same walk and errors as read_hwloc_xml, source "this machine".
Topology read_this_machine(const TopologyOptions& options = {});

/// Builds an hwloc synthetic description with hwloc itself and converts it (same walk as
/// read_hwloc_xml). Slow for big trees (about 1.5 s for 16384 PUs): read_synthetic() calls it
/// only for descriptions its own parser does not handle. machine_level() = the number of Group
/// levels above the topmost Package, Die, L3Cache or NUMA-holding level, when every level above it
/// is a Group, else 0. Throws InputError(source, ...) when hwloc rejects the description.
Topology read_hwloc_synthetic(const std::string& description, const std::string& source,
                              const TopologyOptions& options = {});

}  // namespace treematch::io
