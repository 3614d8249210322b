// Reads the link model a user gives: a preset name or a file, and per-level bandwidths and
// latencies.
#pragma once

#include <string>
#include <vector>

#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// What --link-model, --link-bandwidth and --link-latency say.
struct LinkModelOptions {
  /// A preset (parse_link_preset) or a file of lines "preset NAME", "bandwidth LIST" and
  /// "latency LIST" ('#' starts a comment); the options below override the file's lists.
  std::string model = "fat-tree";
  std::string
      bandwidth;        ///< "10G:20G:12.5G:25G": bytes/s per level, bottom-up; empty = the model's
  std::string latency;  ///< "100ns:100ns:1us:500ns": per level, bottom-up; empty = the model's
};

/// Bytes per second, bottom-up, from "10G:20G:12.5e9:inf": numbers with an optional SI suffix
/// k, M, G or T (powers of 1000). Throws InputError(source, ...) for anything else or a value <= 0.
std::vector<double> parse_bandwidths(const std::string& list, const std::string& source);

/// Seconds, bottom-up, from "100ns:1.5us:0": numbers with an optional unit ns, us, ms or s
/// (none: seconds). Throws InputError(source, ...) for anything else or a negative value.
std::vector<double> parse_latencies(const std::string& list, const std::string& source);

/// Link costs, bottom-up, from "1:10:100": finite numbers >= 0 without unit. Throws
/// InputError(source, ...) for anything else.
std::vector<double> parse_link_costs(const std::string& list, const std::string& source);

/// The link model `options` give on `topology`. Throws InputError naming the option or the file
/// (with its line) for an unknown preset that is not a readable file, a bad value, or a count of
/// values that does not match the topology's levels.
LinkModel read_link_model(const LinkModelOptions& options, const Topology& topology);

}  // namespace treematch::io
