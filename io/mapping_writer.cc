// Launcher-ready renderings of a mapping: perm lines, Open MPI rankfile, Slurm, Hydra and JSON.
#include "io/mapping_writer.h"

#include <algorithm>
#include <limits>

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// Machines of the topology and the names of their hosts.
class Machines {
 public:
  Machines(const Topology& topology, const std::vector<std::string>& hosts)
      : topology_(topology),
        leaves_per_machine_(topology.leaves_per_machine()),
        count_(topology.leaf_count() / leaves_per_machine_),
        first_os_(static_cast<std::size_t>(count_), std::numeric_limits<Index>::max()),
        hosts_(hosts) {
    for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
      Index& first = first_os_[static_cast<std::size_t>(machine_of(leaf))];
      first = std::min(first, topology.os_index(leaf));
    }
  }

  /// Hosts matter only for the formats that name them.
  void check_hosts() const {
    if (!hosts_.empty() && hosts_.size() < static_cast<std::size_t>(count_)) {
      throw InputError("--hosts", fmt::format("{} host {} for {} machines", hosts_.size(),
                                              hosts_.size() == 1 ? "name" : "names", count_));
    }
  }

  [[nodiscard]] Index count() const { return count_; }
  [[nodiscard]] Index machine_of(Index leaf) const { return leaf / leaves_per_machine_; }
  [[nodiscard]] Index local_index(Index leaf) const { return leaf % leaves_per_machine_; }
  /// The OS index a machine's own hwloc would give: an allocation tree records its per-machine
  /// stride; a synthetic cluster tree numbers all PUs globally (machine m from its smallest up).
  [[nodiscard]] Index local_os_index(Index leaf) const {
    const Index machine = machine_of(leaf);
    if (topology_.machine_os_stride() > 0)
      return topology_.os_index(leaf) - machine * topology_.machine_os_stride();
    return topology_.os_index(leaf) - first_os_[static_cast<std::size_t>(machine)];
  }
  [[nodiscard]] std::string host(Index machine) const {
    return hosts_.empty() ? fmt::format("node{}", machine)
                          : hosts_[static_cast<std::size_t>(machine)];
  }

 private:
  const Topology& topology_;
  Index leaves_per_machine_;
  Index count_;
  std::vector<Index> first_os_;  ///< per machine, its smallest OS index
  const std::vector<std::string>& hosts_;
};

void check_leaves(const Mapping& mapping, const Topology& topology) {
  const auto& leaves = mapping.leaf_of_rank;
  for (std::size_t rank = 0; rank < leaves.size(); ++rank) {
    if (leaves[rank] < 0 || leaves[rank] >= topology.leaf_count()) {
      throw InputError("mapping",
                       fmt::format("rank {} is on leaf {} but the topology has {} leaves", rank,
                                   leaves[rank], topology.leaf_count()));
    }
  }
}

Index numbered(Index leaf, const Topology& topology, Numbering numbering) {
  switch (numbering) {
    case Numbering::kLogical:
      return leaf;
    case Numbering::kPhysical:
      return topology.os_index(leaf);
  }
  throw std::logic_error("unknown Numbering");
}

/// The core of a rankfile line: the index within its machine, logical or OS.
Index rankfile_core(Index leaf, Numbering numbering, const Machines& machines) {
  switch (numbering) {
    case Numbering::kLogical:
      return machines.local_index(leaf);
    case Numbering::kPhysical:
      return machines.local_os_index(leaf);
  }
  throw std::logic_error("unknown Numbering");
}

const char* numbering_name(Numbering numbering) {
  switch (numbering) {
    case Numbering::kLogical:
      return "logical";
    case Numbering::kPhysical:
      return "physical";
  }
  throw std::logic_error("unknown Numbering");
}

/// OS indexes of the ranks' cores per machine, in local rank order (empty for unused machines).
std::vector<std::vector<Index>> os_cores_by_machine(const Mapping& mapping,
                                                    const Machines& machines) {
  std::vector<std::vector<Index>> cores(static_cast<std::size_t>(machines.count()));
  for (const Index leaf : mapping.leaf_of_rank) {
    cores[static_cast<std::size_t>(machines.machine_of(leaf))].push_back(
        machines.local_os_index(leaf));
  }
  return cores;
}

std::string render_perm(const Mapping& mapping, const Topology& topology, Numbering numbering) {
  std::string out;
  for (const Index leaf : mapping.leaf_of_rank) {
    fmt::format_to(std::back_inserter(out), "{}\n", numbered(leaf, topology, numbering));
  }
  return out;
}

std::string render_rankfile(const Mapping& mapping, Numbering numbering, const Machines& machines) {
  std::string out;
  for (std::size_t rank = 0; rank < mapping.leaf_of_rank.size(); ++rank) {
    const Index leaf = mapping.leaf_of_rank[rank];
    const Index core = rankfile_core(leaf, numbering, machines);
    fmt::format_to(std::back_inserter(out), "rank {}={} slot={}\n", rank,
                   machines.host(machines.machine_of(leaf)), core);
  }
  return out;
}

std::string render_slurm(const Mapping& mapping, const Machines& machines) {
  std::string out;
  for (const Index leaf : mapping.leaf_of_rank) {
    fmt::format_to(std::back_inserter(out), "{}\n", machines.host(machines.machine_of(leaf)));
  }
  const auto cores = os_cores_by_machine(mapping, machines);
  for (Index m = 0; m < machines.count(); ++m) {
    const auto& list = cores[static_cast<std::size_t>(m)];
    if (list.empty()) continue;
    fmt::format_to(std::back_inserter(out), "# {}: --cpu-bind=map_cpu:{}\n", machines.host(m),
                   fmt::join(list, ","));
  }
  return out;
}

std::string render_hydra(const Mapping& mapping, const Machines& machines) {
  std::string out;
  const auto cores = os_cores_by_machine(mapping, machines);
  for (Index m = 0; m < machines.count(); ++m) {
    const auto& list = cores[static_cast<std::size_t>(m)];
    if (list.empty()) continue;
    fmt::format_to(std::back_inserter(out), "{}: -bind-to user:{}\n", machines.host(m),
                   fmt::join(list, ","));
  }
  return out;
}

std::string render_json(const Mapping& mapping, const Topology& topology, Numbering numbering,
                        const nlohmann::json& report) {
  if (!report.is_object() && !report.is_null()) {
    throw std::invalid_argument("render_mapping: the JSON report must be an object, not " +
                                std::string(report.type_name()));
  }
  nlohmann::json out = report.is_null() ? nlohmann::json::object() : report;
  nlohmann::json leaves = nlohmann::json::array();
  for (const Index leaf : mapping.leaf_of_rank)
    leaves.push_back(numbered(leaf, topology, numbering));
  out["mapping"] = std::move(leaves);
  out["numbering"] = numbering_name(numbering);
  return out.dump(/*indent=*/2) + "\n";
}

}  // namespace

OutputFormat parse_output_format(const std::string& text) {
  if (text == "perm") return OutputFormat::kPerm;
  if (text == "rankfile") return OutputFormat::kRankfile;
  if (text == "slurm") return OutputFormat::kSlurm;
  if (text == "hydra") return OutputFormat::kHydra;
  if (text == "json") return OutputFormat::kJson;
  throw InputError(
      "--format",
      fmt::format("unknown output format '{}'; use perm, rankfile, slurm, hydra or json", text));
}

Numbering parse_numbering(const std::string& text) {
  if (text == "logical") return Numbering::kLogical;
  if (text == "physical") return Numbering::kPhysical;
  throw InputError("--numbering",
                   fmt::format("unknown numbering '{}'; use logical or physical", text));
}

std::string render_mapping(const Mapping& mapping, const Topology& topology,
                           const OutputOptions& options, const nlohmann::json& report) {
  check_leaves(mapping, topology);
  const Machines machines(topology, options.hosts);
  switch (options.format) {
    case OutputFormat::kPerm:
      return render_perm(mapping, topology, options.numbering);
    case OutputFormat::kRankfile:
      machines.check_hosts();
      return render_rankfile(mapping, options.numbering, machines);
    case OutputFormat::kSlurm:
      machines.check_hosts();
      return render_slurm(mapping, machines);
    case OutputFormat::kHydra:
      machines.check_hosts();
      return render_hydra(mapping, machines);
    case OutputFormat::kJson:
      return render_json(mapping, topology, options.numbering, report);
  }
  throw std::logic_error("unknown OutputFormat");
}

}  // namespace treematch::io
