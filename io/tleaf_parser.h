// Parses Scotch/TreeMatch "tleaf" architectures and Scotch "sub" architectures into a Topology.
#pragma once

#include <string>
#include <string_view>

#include "io/topology_options.h"
#include "io/topology_reader.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// True when the first word of `text` is "tleaf" or "sub" (a Scotch architecture we can read).
bool is_scotch_architecture(std::string_view text);

/// Parses "tleaf n a0 c0 ... a(n-1) c(n-1)": n levels, root first, each an arity (integer >= 1)
/// and the cost of a link from that level to its parent (number >= 0). Tokens may span lines.
/// Only the first definition counts: lines after the one holding its last number are ignored, but
/// more tokens on that line are an error (n does not match). Levels are named "level 0", ...;
/// machine_level() is 0. Levels of arity 1 are dropped and their link cost is added to the nearest
/// level above them with arity > 1 (every path through their link also crosses that one), so
/// weighted distances are those of the full tree: "tleaf 3 2 10 1 5 2 1" reads as
/// "tleaf 2 2 15 2 1". With options.leaves_needed, a larger tree is read as the part a job of
/// that many leaves uses (prefix_levels; whole machines of options.machine_leaves). Throws
/// InputError(source, ...) for a missing or non-numeric number, an arity < 1, a negative cost,
/// an n that does not match the numbers, or text not starting with "tleaf".
Topology parse_tleaf(std::string_view text, const std::string& source,
                     const TopologyOptions& options = {});

/// Parses a tleaf (as parse_tleaf, `allowed` empty) or a Scotch sub-architecture
/// "sub <count> <leaf id> ... tleaf ...": the tleaf topology, and its leaves listed by the sub
/// architecture (logical ids, left to right) sorted in `allowed`. Throws InputError(source, ...)
/// also for a count that does not match the ids, a repeated id or an id outside the tleaf.
ConstrainedTopology parse_scotch_architecture(std::string_view text, const std::string& source,
                                              const TopologyOptions& options = {});

/// Reads a *.tgt / *.scotch file (or any file starting with "tleaf" or "sub") with
/// parse_scotch_architecture; errors name `path`.
ConstrainedTopology read_scotch_architecture_file(const std::string& path,
                                                  const TopologyOptions& options = {});

}  // namespace treematch::io
