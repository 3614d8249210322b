// Sends a --topology SPEC to the reader of its kind: file, inline tleaf, synthetic or this host.
#include "io/topology_reader.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "io/hwloc_topology.h"
#include "io/input_error.h"
#include "io/synthetic_parser.h"
#include "io/tleaf_parser.h"

namespace treematch::io {

namespace {

const char* const kSource = "--topology";

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return text;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The start of a file, enough to tell XML from a Scotch architecture.
std::string file_head(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, "cannot open the file");
  std::array<char, 4096> buffer{};
  file.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  if (file.bad()) throw InputError(path, "cannot read the file");
  return std::string(buffer.data(), static_cast<std::size_t>(file.gcount()));
}

ConstrainedTopology read_file(const std::string& path, const TopologyOptions& options) {
  const std::string extension = lowercase(std::filesystem::path(path).extension().string());
  if (extension == ".xml") return {read_hwloc_xml(path, options), {}};
  const std::string head = file_head(path);
  if (extension == ".tgt" || extension == ".scotch" || is_scotch_architecture(head)) {
    return read_scotch_architecture_file(path, options);
  }
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && head[first] == '<') return {read_hwloc_xml(path, options), {}};
  throw InputError(path,
                   "unknown topology file format: expected an hwloc XML export (*.xml) or a Scotch "
                   "architecture starting with 'tleaf' or 'sub' (*.tgt, *.scotch)");
}

}  // namespace

ConstrainedTopology read_topology_with_constraints(const std::string& spec,
                                                   const TopologyOptions& options) {
  if (spec.empty()) return {read_this_machine(options), {}};
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(spec, error);
  if (!error && std::filesystem::exists(status)) {
    if (!std::filesystem::is_regular_file(status)) throw InputError(spec, "not a regular file");
    return read_file(spec, options);
  }
  if (is_scotch_architecture(spec)) return parse_scotch_architecture(spec, kSource, options);
  const std::string lower = lowercase(spec);
  if (spec.find('/') != std::string::npos || ends_with(lower, ".xml") || ends_with(lower, ".tgt") ||
      ends_with(lower, ".scotch")) {
    throw InputError(spec, "no such file");
  }
  return {read_synthetic(spec, options), {}};
}

Topology read_topology(const std::string& spec, const TopologyOptions& options) {
  return read_topology_with_constraints(spec, options).topology;
}

}  // namespace treematch::io
