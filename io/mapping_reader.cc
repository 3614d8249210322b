// Reader of mapping files: perm lines, Open MPI rankfiles and treematch's JSON output.
#include "io/mapping_reader.h"

#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/input_error.h"
#include "io/rankfile_reader.h"

namespace treematch::io {
namespace {

/// Positions from ids in one numbering, over the whole tree or within one machine.
class LeafIds {
 public:
  explicit LeafIds(const Topology& topology) : topology_(topology) {
    if (!topology.has_multi_cpu_leaves()) return;
    for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
      for (const Index cpu : topology.cpus(leaf)) {
        if (static_cast<std::size_t>(cpu) >= cpu_owner_.size())
          cpu_owner_.resize(static_cast<std::size_t>(cpu) + 1, -1);
        cpu_owner_[static_cast<std::size_t>(cpu)] = leaf;
      }
    }
  }

  /// The position an id of the whole tree names, or -1.
  [[nodiscard]] Index leaf(Index id, Numbering numbering) const {
    switch (numbering) {
      case Numbering::kLogical:
        return topology_.leaf_of_logical(id);
      case Numbering::kPhysical: {
        const Index leaf = topology_.leaf_of_os_index(id);
        if (leaf >= 0 || id < 0 || static_cast<std::size_t>(id) >= cpu_owner_.size()) return leaf;
        return cpu_owner_[static_cast<std::size_t>(id)];
      }
    }
    return -1;
  }

  /// The position a machine's own id names on machine `machine`, or -1.
  [[nodiscard]] Index leaf_on_machine(Index machine, Index id, Numbering numbering) const {
    const Index per_machine = topology_.leaves_per_machine();
    const Index first = machine * per_machine;
    Index found = -1;
    switch (numbering) {
      case Numbering::kLogical: {
        Index before = 0;  // present leaves of the machines before this one
        for (Index leaf = first; leaf < first + per_machine; ++leaf) {
          if (topology_.is_present(leaf)) {
            before = topology_.logical_index(leaf);
            break;
          }
        }
        found = topology_.leaf_of_logical(before + id);
        break;
      }
      case Numbering::kPhysical: {
        // The machine's own OS index: the tree's minus the machine's base (see mapping_writer.h).
        const Index count = topology_.leaf_count() / per_machine;
        Index base = 0;
        if (topology_.machine_os_stride() > 0) {
          base = machine * topology_.machine_os_stride();
        } else if (count > 1) {
          base = -1;
          for (Index leaf = first; leaf < first + per_machine; ++leaf) {
            if (topology_.is_present(leaf) && (base < 0 || topology_.os_index(leaf) < base))
              base = topology_.os_index(leaf);
          }
        }
        found = leaf(base + id, numbering);
        break;
      }
    }
    if (found < first || found >= first + per_machine) return -1;
    return found;
  }

 private:
  const Topology& topology_;
  std::vector<Index> cpu_owner_;  ///< [PU OS index] = its leaf, when leaves hold several PUs
};

std::string numbering_word(Numbering numbering) {
  return numbering == Numbering::kLogical ? "logical" : "OS";
}

Mapping read_perm(const std::string& text, const std::string& path, const LeafIds& ids,
                  Numbering numbering) {
  Mapping mapping;
  std::istringstream in(text);
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    Index id = -1;
    const char* begin = line.data() + first;
    const char* end = line.data() + last + 1;
    const auto [ptr, ec] = std::from_chars(begin, end, id);
    if (ec != std::errc() || ptr != end) {
      throw InputError(
          path, fmt::format("line {}: expected one leaf id, got '{}'", line_number,
                            line.substr(first, std::min<std::size_t>(last - first + 1, 40))));
    }
    const Index leaf = id < 0 ? -1 : ids.leaf(id, numbering);
    if (leaf < 0) {
      throw InputError(path, fmt::format("line {}: {} leaf {} does not exist", line_number,
                                         numbering_word(numbering), id));
    }
    mapping.leaf_of_rank.push_back(leaf);
  }
  return mapping;
}

Mapping read_json(const std::string& text, const std::string& path, const LeafIds& ids) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw InputError(path, std::string("not valid JSON: ") + error.what());
  }
  if (!doc.is_object() || !doc.contains("mapping") || !doc["mapping"].is_array()) {
    throw InputError(path, "no \"mapping\" array (write it with treematch map --format json)");
  }
  Numbering numbering = Numbering::kLogical;
  if (doc.contains("numbering")) {
    if (!doc["numbering"].is_string()) throw InputError(path, "\"numbering\" is not a string");
    numbering = parse_numbering(doc["numbering"].get<std::string>());
  }
  Mapping mapping;
  for (std::size_t rank = 0; rank < doc["mapping"].size(); ++rank) {
    const nlohmann::json& item = doc["mapping"][rank];
    if (!item.is_number_integer()) {
      throw InputError(path, fmt::format("mapping[{}] is not an integer", rank));
    }
    const auto id = item.get<std::int64_t>();
    const Index leaf = id < 0 || id > std::numeric_limits<Index>::max()
                           ? -1
                           : ids.leaf(static_cast<Index>(id), numbering);
    if (leaf < 0) {
      throw InputError(path, fmt::format("mapping[{}]: {} leaf {} does not exist", rank,
                                         numbering_word(numbering), id));
    }
    mapping.leaf_of_rank.push_back(leaf);
  }
  return mapping;
}

Mapping read_rankfile(const std::string& text, const std::string& path, const Topology& topology,
                      const LeafIds& ids, const MappingFileOptions& options) {
  const Rankfile file = parse_rankfile(text, path);
  const Numbering numbering = file.physical
                                  ? (*file.physical ? Numbering::kPhysical : Numbering::kLogical)
                                  : options.numbering;
  const Index machines = topology.leaf_count() / topology.leaves_per_machine();
  const auto host_of = [&](Index m) {
    return options.hosts.empty() ? fmt::format("node{}", m)
                                 : options.hosts[static_cast<std::size_t>(m)];
  };
  Mapping mapping;
  for (const RankfileLine& line : file.ranks) {
    Index machine = -1;
    for (Index m = 0; m < machines && machine < 0; ++m) {
      if (static_cast<std::size_t>(m) < options.hosts.size() || options.hosts.empty()) {
        if (host_of(m) == line.host) machine = m;
      }
    }
    if (machine < 0) {
      throw InputError(path, fmt::format("rank {} is on host '{}', which is no machine of the "
                                         "topology (give its hosts with --hosts)",
                                         line.rank, line.host));
    }
    const Index leaf = ids.leaf_on_machine(machine, line.slot, numbering);
    if (leaf < 0) {
      throw InputError(path, fmt::format("rank {}: host '{}' has no {} core {}", line.rank,
                                         line.host, numbering_word(numbering), line.slot));
    }
    mapping.leaf_of_rank.push_back(leaf);
  }
  return mapping;
}

}  // namespace

Mapping read_mapping(const std::string& path, const Topology& topology,
                     const MappingFileOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the mapping file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, "cannot read the mapping file");
  const LeafIds ids(topology);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return read_json(text, path, ids);
  if (looks_like_rankfile(text)) return read_rankfile(text, path, topology, ids, options);
  return read_perm(text, path, ids, options.numbering);
}

}  // namespace treematch::io
