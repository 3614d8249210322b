// Builds the Topology model from a user's --topology SPEC (hwloc XML, tleaf, synthetic, or this host).
#pragma once

#include <string>

#include "src/topology.h"

namespace tm::io {

/// SPEC is: a path to an hwloc XML file (*.xml); a Scotch/TreeMatch tleaf file (*.tgt, *.scotch or
/// any file whose first word is "tleaf"); an inline "tleaf n a0 c0 ... a(n-1) c(n-1)" (root first);
/// any other string is an hwloc synthetic description ("pack:2 core:4 pu:1", with
/// "(indexes=...)" for OS numbering of the leaves). Empty SPEC = the machine this runs on.
/// Levels of arity 1 are dropped. An asymmetric tree throws InputError naming the level and the two
/// differing arities.
Topology read_topology(const std::string& spec);

}  // namespace tm::io
