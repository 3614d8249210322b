// Builds the Topology model from a --topology SPEC (hwloc XML, tleaf, synthetic, or this host).
#pragma once

#include <string>
#include <vector>

#include "io/topology_options.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// SPEC is: a path to an hwloc XML file (*.xml); a Scotch/TreeMatch tleaf file (*.tgt, *.scotch or
/// any file whose first word is "tleaf"); an inline "tleaf n a0 c0 ... a(n-1) c(n-1)" (root first);
/// any other string is an hwloc synthetic description ("pack:2 core:4 pu:1", with
/// "(indexes=...)" for OS numbering of the leaves). Empty SPEC = the machine this runs on.
/// Levels of arity 1 are dropped. Leaves are cores unless options.hardware_threads (hwloc and
/// synthetic sources); an unbalanced hwloc tree comes as a balanced superset with holes
/// (Topology::has_holes).
Topology read_topology(const std::string& spec, const TopologyOptions& options = {});

/// A topology and the leaves a job may use, as a Scotch "sub" architecture gives them.
struct ConstrainedTopology {
  Topology topology;
  std::vector<Index> allowed;  ///< sorted, distinct logical leaf ids; empty = every leaf
};

/// As read_topology, and also accepts a Scotch sub-architecture file or inline text
/// ("sub\n<count> <leaf ids...>\ntleaf ..."), whose leaf ids become `allowed`. For every other
/// kind of SPEC `allowed` is empty.
ConstrainedTopology read_topology_with_constraints(const std::string& spec,
                                                   const TopologyOptions& options = {});

}  // namespace treematch::io
