// Link model options and files: presets, SI bandwidths and latencies with units.
#include "io/link_model_reader.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// The items of a ':'-separated list, each split into its number and the suffix after it.
template <typename Scale>
std::vector<double> parse_list(const std::string& list, const std::string& source,
                               const char* expected, Scale&& scale) {
  std::vector<double> values;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(':', begin), list.size());
    const std::string item = list.substr(begin, end - begin);
    double number = 0.0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), number);
    const std::string_view suffix(ptr, static_cast<std::size_t>(item.data() + item.size() - ptr));
    const double factor = ec == std::errc() ? scale(suffix) : -1.0;
    if (item.empty() || factor < 0.0 || std::isnan(number)) {
      throw InputError(
          source, quoted_excerpt(item) + " in " + quoted_excerpt(list, 80) + " is not " + expected);
    }
    values.push_back(number * factor);
    begin = end + 1;
  }
  return values;
}

/// Strips a '#' comment and surrounding blanks.
std::string_view trimmed(std::string_view line) {
  line = line.substr(0, line.find('#'));
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

/// The lists and preset a link model file holds.
struct LinkModelFile {
  std::string preset;
  std::string bandwidth;
  std::string latency;
};

LinkModelFile read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw InputError("--link-model", quoted_excerpt(path, 80) + " is neither a preset (" +
                                         link_preset_names() + ") nor a readable file");
  }
  LinkModelFile file;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trimmed(line);
    if (text.empty()) continue;
    const std::size_t blank = text.find_first_of(" \t");
    const std::string_view key = text.substr(0, blank);
    const std::string value(blank == std::string_view::npos ? std::string_view{}
                                                            : trimmed(text.substr(blank)));
    std::string* field = key == "preset"      ? &file.preset
                         : key == "bandwidth" ? &file.bandwidth
                         : key == "latency"   ? &file.latency
                                              : nullptr;
    if (field == nullptr || value.empty()) {
      throw InputError(path, "line " + std::to_string(number) +
                                 ": expected 'preset NAME', "
                                 "'bandwidth LIST' or 'latency LIST', not " +
                                 quoted_excerpt(text, 60));
    }
    *field = value;
  }
  return file;
}

}  // namespace

std::vector<double> parse_bandwidths(const std::string& list, const std::string& source) {
  std::vector<double> values =
      parse_list(list, source, "a bandwidth > 0 in bytes/s (e.g. 12.5G, 1e10, inf)",
                 [](std::string_view suffix) {
                   if (suffix.empty()) return 1.0;
                   if (suffix == "k") return 1e3;
                   if (suffix == "M") return 1e6;
                   if (suffix == "G") return 1e9;
                   if (suffix == "T") return 1e12;
                   return -1.0;
                 });
  for (const double value : values) {
    if (!(value > 0.0)) {
      throw InputError(source, "bandwidths must be > 0 (inf: a link that never limits), not in " +
                                   quoted_excerpt(list, 80));
    }
  }
  return values;
}

std::vector<double> parse_link_costs(const std::string& list, const std::string& source) {
  std::vector<double> values =
      parse_list(list, source,
                 "a finite number >= 0 (expected e.g. 1:10:100, one cost per level, cores first)",
                 [](std::string_view suffix) { return suffix.empty() ? 1.0 : -1.0; });
  for (const double value : values) {
    if (!std::isfinite(value) || value < 0.0) {
      throw InputError(source, "link costs must be finite and >= 0, not in " +
                                   quoted_excerpt(list, 80) +
                                   " (expected e.g. 1:10:100, one cost per level, cores first)");
    }
  }
  return values;
}

std::vector<double> parse_latencies(const std::string& list, const std::string& source) {
  std::vector<double> values = parse_list(list, source, "a latency >= 0 (e.g. 1.5us, 100ns, 2e-6)",
                                          [](std::string_view suffix) {
                                            if (suffix.empty() || suffix == "s") return 1.0;
                                            if (suffix == "ms") return 1e-3;
                                            if (suffix == "us") return 1e-6;
                                            if (suffix == "ns") return 1e-9;
                                            return -1.0;
                                          });
  for (const double value : values) {
    if (!std::isfinite(value) || value < 0.0) {
      throw InputError(source,
                       "latencies must be finite and >= 0, not in " + quoted_excerpt(list, 80));
    }
  }
  return values;
}

LinkModel read_link_model(const LinkModelOptions& options, const Topology& topology) {
  LinkModelFile file;
  std::string preset_source = "--link-model";
  std::string bandwidth_source = "--link-bandwidth";
  std::string latency_source = "--link-latency";
  if (parse_link_preset(options.model)) {
    file.preset = options.model;
  } else {
    file = read_file(options.model);
    if (file.preset.empty()) file.preset = "fat-tree";
    preset_source = bandwidth_source = latency_source = options.model;
  }
  const std::optional<LinkPreset> preset = parse_link_preset(file.preset);
  if (!preset) {
    throw InputError(preset_source, "unknown link model preset " + quoted_excerpt(file.preset) +
                                        " (" + link_preset_names() + ")");
  }
  LinkModel model = preset_link_model(topology, *preset);
  const auto apply = [&](const std::string& given, const std::string& from_file,
                         const std::string& file_source, const char* option, auto parse,
                         auto with) {
    const bool from_option = !given.empty();
    const std::string& list = from_option ? given : from_file;
    if (list.empty()) return;
    const std::string source = from_option ? option : file_source;
    try {
      model = with(std::move(model), topology, parse(list, source));
    } catch (const std::invalid_argument& e) {
      throw InputError(source, e.what());
    }
  };
  apply(options.bandwidth, file.bandwidth, bandwidth_source, "--link-bandwidth", parse_bandwidths,
        with_bandwidths);
  apply(options.latency, file.latency, latency_source, "--link-latency", parse_latencies,
        with_latencies);
  return model;
}

}  // namespace treematch::io
