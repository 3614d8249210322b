// The machine's links: the bandwidth and latency of the link from each tree vertex to its parent.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/tree/topology.h"

namespace treematch {

/// The link from a vertex of one tree level to its parent: full duplex (each direction carries
/// `bandwidth` on its own), shared by everything below the vertex.
struct LinkSpec {
  double bandwidth = std::numeric_limits<double>::infinity();  ///< bytes per second; inf = free
  double latency = 0.0;                                        ///< seconds per message crossing it
};

/// Documented link models for common machines (docs: src/README.md, "The link model").
enum class LinkPreset {
  kFatTree,      ///< 2:1 oversubscribed switch uplinks (the default)
  kFatTreeFull,  ///< non-blocking fat tree: every uplink carries all its children can send
  kDragonfly,    ///< switch levels non-blocking inside a group, group (top) links 4:1 tapered
  kUniform,      ///< every link 1 byte/s and no latency: link loads in bytes
};

/// A link per level of a Topology, root first like Topology::levels(): links[k] joins a vertex of
/// level k (depth k + 1) to its parent.
struct LinkModel {
  std::vector<LinkSpec> links;
  std::string name;  ///< the preset, or "custom" once values were given
};

/// Bandwidths of the presets' links inside a machine and at its network card (bytes/s), and their
/// latencies (s). A machine's levels below its card: the leaves' links (a core to its cache or
/// socket) kLeafBandwidth, the others (a socket to the node's memory fabric) kInsideBandwidth.
inline constexpr double kLeafBandwidth = 10e9;
inline constexpr double kInsideBandwidth = 20e9;
inline constexpr double kCardBandwidth = 12.5e9;  ///< 100 Gb/s (InfiniBand HDR100, Slingshot-10)
inline constexpr double kInsideLatency = 100e-9;
inline constexpr double kCardLatency = 1e-6;
inline constexpr double kSwitchLatency = 500e-9;

/// "fat-tree", "fat-tree-full", "dragonfly", "uniform"; nullopt for another name.
std::optional<LinkPreset> parse_link_preset(std::string_view name);
std::string_view link_preset_name(LinkPreset preset);
/// The preset names, comma-separated, for messages.
std::string link_preset_names();

/// The links of `preset` on `topology`. Levels inside one machine (below machine_level()) take the
/// inside values; the machines' own links (depth machine_level(), when it is > 0) are network
/// cards; a switch uplink (above the machines) carries its children's summed bandwidth divided by
/// the preset's oversubscription (fat-tree 2, fat-tree-full 1, dragonfly 1 below the top level
/// and 4 at it). A tree that is one machine (machine_level() 0) has no card and no switch.
LinkModel preset_link_model(const Topology& topology, LinkPreset preset);

/// `model` with the bandwidths `bottom_up` (one per level, the leaves' links first, as
/// --link-costs); values > 0, inf allowed (a free link). Throws std::invalid_argument naming the
/// levels when the count differs or a value is not > 0.
LinkModel with_bandwidths(LinkModel model, const Topology& topology,
                          const std::vector<double>& bottom_up);
/// `model` with the latencies `bottom_up` (seconds, finite, >= 0), as with_bandwidths.
LinkModel with_latencies(LinkModel model, const Topology& topology,
                         const std::vector<double>& bottom_up);

/// "12.5 GB/s" (4 significant digits), or "free" for an infinite bandwidth.
std::string bandwidth_text(double bytes_per_second);

/// "10 GB/s 100 ns | 20 GB/s 100 ns | ..." bottom-up, for summaries and --verbose.
std::string describe(const LinkModel& model);

}  // namespace treematch
