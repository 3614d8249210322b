// The presets of the link model and the checks on values a user gives.
#include "src/tree/link_model.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treematch {
namespace {

/// printf-style formatting into a string (messages and descriptions only).
template <typename... Args>
std::string format(const char* pattern, Args... args) {
  std::array<char, 256> text{};
  std::snprintf(text.data(), text.size(), pattern, args...);
  return text.data();
}

constexpr std::pair<LinkPreset, std::string_view> kPresetNames[] = {
    {LinkPreset::kFatTree, "fat-tree"},
    {LinkPreset::kFatTreeFull, "fat-tree-full"},
    {LinkPreset::kDragonfly, "dragonfly"},
    {LinkPreset::kUniform, "uniform"},
};

/// How many times more its children can send than a switch uplink at `depth` carries.
double oversubscription(LinkPreset preset, int depth) {
  switch (preset) {
    case LinkPreset::kFatTree:
      return 2.0;
    case LinkPreset::kFatTreeFull:
      return 1.0;
    case LinkPreset::kDragonfly:
      // The top switch level's vertices are the groups: their global links are the scarce ones.
      return depth == 1 ? 4.0 : 1.0;
    case LinkPreset::kUniform:
      return 1.0;
  }
  return 1.0;
}

/// Sets one value per level from `bottom_up` (the leaves' links first) with `set`, which checks it.
template <typename Set>
void set_bottom_up(LinkModel& model, const Topology& topology, const std::vector<double>& bottom_up,
                   const char* what, Set&& set) {
  topology.check_per_level_count(bottom_up.size(), std::string("link ") + what);
  const std::size_t levels = bottom_up.size();
  for (std::size_t i = 0; i < levels; ++i) set(model.links[i], bottom_up[levels - 1 - i]);
  model.name = "custom";
}

}  // namespace

std::string bandwidth_text(double bytes_per_second) {
  if (std::isinf(bytes_per_second)) return "free";
  return format("%.4g GB/s", bytes_per_second / 1e9);
}

std::optional<LinkPreset> parse_link_preset(std::string_view name) {
  for (const auto& [preset, preset_name] : kPresetNames) {
    if (name == preset_name) return preset;
  }
  return std::nullopt;
}

std::string_view link_preset_name(LinkPreset preset) {
  for (const auto& [known, name] : kPresetNames) {
    if (known == preset) return name;
  }
  return "?";
}

std::string link_preset_names() {
  std::string names;
  for (const auto& [preset, name] : kPresetNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

LinkModel preset_link_model(const Topology& topology, LinkPreset preset) {
  const int depth = topology.depth();
  const int machine = topology.machine_level();
  LinkModel model;
  model.name = std::string(link_preset_name(preset));
  model.links.resize(static_cast<std::size_t>(depth));
  if (preset == LinkPreset::kUniform) {
    for (LinkSpec& link : model.links) link = LinkSpec{1.0, 0.0};
    return model;
  }
  // Bottom-up, since a switch uplink's bandwidth follows from its children's links.
  for (int d = depth; d >= 1; --d) {
    LinkSpec& link = model.links[static_cast<std::size_t>(d - 1)];
    if (d > machine) {
      link = d == depth ? LinkSpec{kLeafBandwidth, kInsideLatency}
                        : LinkSpec{kInsideBandwidth, kInsideLatency};
    } else if (d == machine) {
      link = LinkSpec{kCardBandwidth, kCardLatency};
    } else {
      const double children =
          static_cast<double>(topology.levels()[static_cast<std::size_t>(d)].arity);
      const double below = model.links[static_cast<std::size_t>(d)].bandwidth;
      link = LinkSpec{children * below / oversubscription(preset, d), kSwitchLatency};
    }
  }
  return model;
}

LinkModel with_bandwidths(LinkModel model, const Topology& topology,
                          const std::vector<double>& bottom_up) {
  set_bottom_up(model, topology, bottom_up, "bandwidths", [](LinkSpec& link, double value) {
    if (!(value > 0.0)) {
      throw std::invalid_argument(format(
          "link bandwidth %g; bandwidths must be > 0 (inf: a link that never limits)", value));
    }
    link.bandwidth = value;
  });
  return model;
}

LinkModel with_latencies(LinkModel model, const Topology& topology,
                         const std::vector<double>& bottom_up) {
  set_bottom_up(model, topology, bottom_up, "latencies", [](LinkSpec& link, double value) {
    if (!std::isfinite(value) || value < 0.0) {
      throw std::invalid_argument(
          format("link latency %g; latencies must be finite and >= 0", value));
    }
    link.latency = value;
  });
  return model;
}

std::string describe(const LinkModel& model) {
  std::string text = model.name;
  text += ", bottom-up:";
  for (std::size_t i = model.links.size(); i-- > 0;) {
    const LinkSpec& link = model.links[i];
    text.append(" ")
        .append(bandwidth_text(link.bandwidth))
        .append(format(" %.3g us", link.latency * 1e6))
        .append(i == 0 ? "" : " |");
  }
  return text;
}

}  // namespace treematch
