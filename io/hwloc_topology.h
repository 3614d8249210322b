// Reads topologies through hwloc (XML exports, this machine, synthetic strings) into a Topology.
#pragma once

#include <stdexcept>
#include <string>

#include "src/topology.h"

namespace treematch::io {

/// An hwloc call failed for a reason that is not the user's input (out of memory, ...); the
/// message names the call.
class HwlocError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads an hwloc XML export. PUs the exporting process was not allowed to use are included: the
/// file describes a whole machine, even when exported inside a job allocation. The tree walk is
/// the one of every hwloc source: levels from the root to the PUs, arity-1 levels dropped,
/// NUMA nodes (memory children in hwloc 2) ignored, leaves = PUs left to right with their OS
/// index, level names from hwloc ("Package", "L3Cache", "Group0", ...), link costs 1,
/// machine_level() 0. Throws InputError(path, ...) when hwloc cannot load the file, and
/// InputError(path, "asymmetric tree: level 'Core' (depth 3) has nodes of arity 4 and 6") when
/// the nodes of one depth differ in arity (or skip a level).
Topology read_hwloc_xml(const std::string& path);

/// The machine this process runs on, restricted to the PUs this process may use (a job launched
/// from here gets the same cgroup). Same walk and errors as read_hwloc_xml, source "this machine".
Topology read_this_machine();

/// Builds an hwloc synthetic description with hwloc itself and converts it (same walk as
/// read_hwloc_xml). Slow for big trees (about 1.5 s for 16384 PUs): read_synthetic() calls it
/// only for descriptions its own parser does not handle. machine_level() = the number of Group
/// levels above the topmost Package, Die, L3Cache or NUMA-holding level, when every level above it
/// is a Group, else 0. Throws InputError(source, ...) when hwloc rejects the description.
Topology read_hwloc_synthetic(const std::string& description, const std::string& source);

}  // namespace treematch::io
