#include "io/simgrid_platform.h"

#include <cmath>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace treematch::io {
namespace {

/// Vertices of `topology` at `depth` (0: the root).
Index vertices_at(const Topology& topology, int depth) {
  return topology.leaf_count() / topology.leaves_below(depth);
}

}  // namespace

std::string simgrid_platform_xml(const Topology& topology, const LinkModel& model,
                                 double host_flops) {
  const int depth = topology.depth();
  if (model.links.size() != static_cast<std::size_t>(depth)) {
    throw std::invalid_argument(
        fmt::format("SimGrid platform: the link model has {} levels, the "
                    "tree {}",
                    model.links.size(), depth));
  }
  fmt::memory_buffer xml;
  auto out = std::back_inserter(xml);
  fmt::format_to(out,
                 "<?xml version='1.0'?>\n"
                 "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                 "<platform version=\"4.1\">\n"
                 "<zone id=\"machine\" routing=\"DijkstraCache\">\n");
  for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
    if (topology.is_present(leaf))
      fmt::format_to(out, "  <host id=\"h{}\" speed=\"{:.17g}f\"/>\n", leaf, host_flops);
  }
  for (int d = 0; d < depth; ++d) {
    for (Index v = 0; v < vertices_at(topology, d); ++v)
      fmt::format_to(out, "  <router id=\"r{}_{}\"/>\n", d, v);
  }
  for (int d = 1; d <= depth; ++d) {
    const LinkSpec& spec = model.links[static_cast<std::size_t>(d - 1)];
    const double bandwidth = std::isinf(spec.bandwidth) ? kFreeLinkBandwidth : spec.bandwidth;
    for (Index v = 0; v < vertices_at(topology, d); ++v) {
      fmt::format_to(out,
                     "  <link id=\"l{}_{}\" bandwidth=\"{:.17g}Bps\" latency=\"{:.17g}s\" "
                     "sharing_policy=\"SPLITDUPLEX\"/>\n",
                     d, v, bandwidth, spec.latency);
    }
  }
  // Each vertex's route up to its parent; the zone's shortest paths are then the tree's paths.
  for (int d = 1; d <= depth; ++d) {
    const Index arity = vertices_at(topology, d) / vertices_at(topology, d - 1);
    for (Index v = 0; v < vertices_at(topology, d); ++v) {
      if (d == depth && !topology.is_present(v)) continue;
      fmt::format_to(out,
                     "  <route src=\"{}{}\" dst=\"r{}_{}\"><link_ctn id=\"l{}_{}\" "
                     "direction=\"UP\"/></route>\n",
                     d == depth ? "h" : fmt::format("r{}_", d), v, d - 1, v / arity, d, v);
    }
  }
  fmt::format_to(out, "</zone>\n</platform>\n");
  return fmt::to_string(xml);
}

std::string simgrid_hostfile(const Mapping& mapping) {
  fmt::memory_buffer text;
  for (const Index leaf : mapping.leaf_of_rank)
    fmt::format_to(std::back_inserter(text), "h{}\n", leaf);
  return fmt::to_string(text);
}

}  // namespace treematch::io
