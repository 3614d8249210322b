// Reads a mapping file in "perm" form (line i = leaf of rank i) for `treematch eval`.
#pragma once

#include <string>

#include "io/mapping_writer.h"
#include "src/mapping.h"
#include "src/topology.h"

namespace treematch::io {

/// Reads p leaf ids, one per line ('#' comments and blank lines skipped), in `numbering`, and
/// returns logical leaves. Throws InputError naming the file for a non-number, a leaf that does not
/// exist, or a count different from `ranks`.
Mapping read_mapping(const std::string& path, const Topology& topology, Numbering numbering,
                     Index ranks);

}  // namespace treematch::io
