// Reads hwloc synthetic descriptions ("pack:2 core:4 pu:1") without paying for an hwloc build.
#pragma once

#include <optional>
#include <string>

#include "io/topology_options.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// What the project's own parser made of a synthetic description.
struct SyntheticParse {
  std::optional<Topology> topology;  ///< set when the parser understood the whole description
  std::string unsupported;           ///< otherwise, the first thing it does not handle
};

/// Parses, without hwloc, the common forms of an hwloc synthetic description: levels separated by
/// spaces, each "type:arity" with optional "(key=value ...)" attributes. Types are hwloc's,
/// case-insensitive, with its abbreviations: group (group0, ...), numa/node/numanode,
/// package/pack/socket, die, l1..l5 with optional i/d/u and "cache", core, pu. Attributes:
/// memory= and size= are ignored; indexes= on the last (PU) level gives the leaves' OS indexes,
/// as an explicit list ("0,2,4,1,3,5") or an interleaving ("2*3:1*2" or "core:pack"), with
/// hwloc's semantics, including hwloc's reordering of siblings by their smallest OS index;
/// indexes= on other levels do not change the leaves and are ignored. Levels of arity 1 are
/// dropped, link costs are 1, machine_level() is the number of Group levels above the topmost
/// Package, NUMA, Die or L3 level when every level above it is a Group, else 0. With a 'core'
/// level and without options.hardware_threads, the leaves are the cores, each standing for its
/// PUs (Topology::cpus; OS index = its smallest PU OS index), as hwloc's own reader makes them.
/// Anything else (untyped levels "2 2 2", attached "[numa]", root attributes, octal or hex
/// arities, several levels of a type hwloc allows once, ...) leaves `topology` unset and says why
/// in `unsupported`: hwloc may accept it (read_synthetic then asks hwloc) or reject it.
/// Throws InputError("--topology", ...) for indexes= that do not give every leaf a distinct OS
/// index (hwloc silently ignores such indexes) and for more than 2^31 - 1 leaves.
SyntheticParse parse_synthetic_without_hwloc(const std::string& description,
                                             const TopologyOptions& options = {});

/// parse_synthetic_without_hwloc, falling back on hwloc (read_hwloc_synthetic) when the parser
/// does not handle the description. Throws InputError("--topology", "cannot parse '<description>':
/// <why>") when neither can read it.
Topology read_synthetic(const std::string& description, const TopologyOptions& options = {});

}  // namespace treematch::io
