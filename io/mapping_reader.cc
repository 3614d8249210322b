// Reader of "perm" mapping files: one leaf per line.
#include "io/mapping_reader.h"

#include <charconv>
#include <fstream>

#include "io/input_error.h"

namespace treematch::io {

Mapping read_mapping(const std::string& path, const Topology& topology, Numbering numbering,
                     Index ranks) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the mapping file");
  Mapping mapping;
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    Index leaf = -1;
    const char* begin = line.data() + first;
    const char* end = line.data() + last + 1;
    const auto [ptr, ec] = std::from_chars(begin, end, leaf);
    if (ec != std::errc() || ptr != end) {
      throw InputError(path, "line " + std::to_string(line_number) +
                                 ": expected one leaf id, got '" +
                                 line.substr(first, last - first + 1) + "'");
    }
    const Index logical =
        numbering == Numbering::kPhysical ? topology.leaf_of_os_index(leaf) : leaf;
    if (leaf < 0 || logical < 0 || logical >= topology.leaf_count()) {
      throw InputError(path, "line " + std::to_string(line_number) + ": leaf " +
                                 std::to_string(leaf) + " does not exist (the topology has " +
                                 std::to_string(topology.leaf_count()) + " leaves)");
    }
    mapping.leaf_of_rank.push_back(logical);
  }
  if (static_cast<Index>(mapping.leaf_of_rank.size()) != ranks) {
    throw InputError(path, "maps " + std::to_string(mapping.leaf_of_rank.size()) +
                               " ranks but the matrix has " + std::to_string(ranks));
  }
  return mapping;
}

}  // namespace treematch::io
