// Link loads as the commands print them: JSON objects and text lines.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "src/model/link_load.h"
#include "src/tree/topology.h"

namespace treematch::apps {

/// {"predicted_seconds", "bottleneck_seconds", "bottleneck_level", "latency_seconds",
/// "congestion_norm", "levels": [{"depth", "name", "links", "bandwidth", "latency", "max_bytes",
/// "max_seconds", "total_bytes", "hot_links"}, ...]} (levels root first; a free link's bandwidth
/// is null).
nlohmann::json link_loads_json(const LinkLoads& loads, const Topology& topology);

/// Name of the level whose vertices are at `depth` ("depth d" when unnamed, "-" for 0).
std::string level_name(const Topology& topology, int depth);

/// One line per level (root first) and one for the prediction, each ending in '\n', for eval:
/// "links of node (depth 2): 16 of 12.5 GB/s, 1 us, busiest 1250000000 bytes = 0.1 s, 3 hot".
std::string link_loads_text(const LinkLoads& loads, const Topology& topology);

/// "bottleneck 0.1 s on node links (3 hot), latency 2.2 us" for the summary.
std::string link_loads_brief(const LinkLoads& loads, const Topology& topology);

}  // namespace treematch::apps
