// JSON and text forms of a mapping's link loads.
#include "apps/link_loads_output.h"

#include <cmath>
#include <cstddef>

#include <fmt/format.h>

namespace treematch::apps {
namespace {

nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

std::string level_name(const Topology& topology, int depth) {
  return depth <= 0 ? std::string("-") : treematch::level_name(topology.levels(), depth);
}

nlohmann::json link_loads_json(const LinkLoads& loads, const Topology& topology) {
  nlohmann::json levels = nlohmann::json::array();
  for (const LevelLinkLoad& level : loads.levels) {
    levels.push_back({{"depth", level.depth},
                      {"name", level_name(topology, level.depth)},
                      {"links", level.links},
                      {"bandwidth", finite_or_null(level.spec.bandwidth)},
                      {"latency", level.spec.latency},
                      {"max_bytes", level.max_bytes},
                      {"max_seconds", level.max_seconds},
                      {"total_bytes", level.total_bytes},
                      {"hot_links", level.hot_links}});
  }
  return {{"predicted_seconds", loads.predicted_seconds},
          {"bottleneck_seconds", loads.bottleneck_seconds},
          {"bottleneck_level", level_name(topology, loads.bottleneck_depth)},
          {"latency_seconds", loads.latency_seconds},
          {"congestion_norm", loads.congestion_norm},
          {"levels", levels}};
}

std::string link_loads_text(const LinkLoads& loads, const Topology& topology) {
  std::string text;
  for (const LevelLinkLoad& level : loads.levels) {
    text += fmt::format(
        "links of {} (depth {}): {} of {}, {:.3g} us, busiest {:.17g} bytes = {:.6g} s, {} "
        "hot\n",
        level_name(topology, level.depth), level.depth, level.links,
        bandwidth_text(level.spec.bandwidth), level.spec.latency * 1e6, level.max_bytes,
        level.max_seconds, level.hot_links);
  }
  text += fmt::format("congestion norm {:.17g}\n", loads.congestion_norm);
  text +=
      fmt::format("predicted seconds {:.17g} (bottleneck {:.6g} s on {} links, latency {:.6g} s)\n",
                  loads.predicted_seconds, loads.bottleneck_seconds,
                  level_name(topology, loads.bottleneck_depth), loads.latency_seconds);
  return text;
}

std::string link_loads_brief(const LinkLoads& loads, const Topology& topology) {
  if (loads.bottleneck_depth == 0) return "no traffic crosses a link";
  const LevelLinkLoad& level = loads.levels[static_cast<std::size_t>(loads.bottleneck_depth - 1)];
  return fmt::format("bottleneck {:.4g} s on {} links ({} of {} hot), latency {:.3g} us",
                     loads.bottleneck_seconds, level_name(topology, loads.bottleneck_depth),
                     level.hot_links, level.links, loads.latency_seconds * 1e6);
}

}  // namespace treematch::apps
