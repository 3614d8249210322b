// Per-level traffic of two mappings side by side, for the report.
#include "src/report/mapping_report.h"

#include <cstddef>
#include <string>
#include <vector>

namespace treematch {

std::vector<LevelTraffic> level_traffic(const CommGraph& graph, const Topology& topology,
                                        const Mapping& reference, const Mapping& mapped) {
  const std::vector<double> before = traffic_by_height(graph, topology, reference);
  const std::vector<double> after = traffic_by_height(graph, topology, mapped);
  const int depth = topology.depth();
  std::vector<LevelTraffic> rows;
  Index nodes = topology.leaf_count();
  for (int height = 0; height <= depth; ++height) {
    // The common ancestor sits at depth (depth - height); level d - 1 holds the nodes of depth d.
    const int at = depth - height;
    LevelTraffic row;
    row.height = height;
    if (at == 0) {
      row.meets_in = "root";
    } else {
      const std::string& name = topology.levels()[static_cast<std::size_t>(at - 1)].name;
      row.meets_in = name.empty() ? "depth " + std::to_string(at) : name;
    }
    if (height > 0) nodes /= topology.levels()[static_cast<std::size_t>(at)].arity;
    row.nodes = nodes;
    // Leaf 0 and the first leaf of the next subtree at depth (at + 1) meet `height` levels up.
    const Index other = height == 0 ? 0 : topology.leaves_below(at + 1);
    row.hops = topology.hops(0, other);
    row.weighted_distance = topology.weighted_distance(0, other);
    row.reference = before[static_cast<std::size_t>(height)];
    row.mapped = after[static_cast<std::size_t>(height)];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace treematch
