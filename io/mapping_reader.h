// Reads a mapping file as `treematch map` writes it (perm, rankfile or JSON) back into positions.
#pragma once

#include <string>
#include <vector>

#include "io/mapping_writer.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch::io {

struct MappingFileOptions {
  /// How perm and rankfile numbers read (a JSON file and a rankfile written by treematch say it
  /// themselves).
  Numbering numbering = Numbering::kLogical;
  /// Host names of the machines in tree order, to place rankfile lines; empty = node0, node1, ...
  std::vector<std::string> hosts;
};

/// Reads the mapping in `path`, recognised by its content: a JSON object (its "mapping" array and
/// "numbering"), an Open MPI rankfile ("rank r=host slot=n": the host names a machine, the slot
/// is that machine's own logical index or OS index) or perm (one leaf id per line, '#' comments
/// and blank lines skipped). Logical ids count the present leaves (Topology::logical_index);
/// physical ones are OS indexes of a leaf or of one of its PUs. Returns positions of `topology`.
/// Throws InputError naming the file for a malformed line, a host that is not a machine of the
/// topology, or an id that names no leaf.
Mapping read_mapping(const std::string& path, const Topology& topology,
                     const MappingFileOptions& options);

}  // namespace treematch::io
