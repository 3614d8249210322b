// Launcher-ready renderings of a mapping: perm lines, Open MPI rankfile, Slurm, Hydra and JSON.
#include "io/mapping_writer.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// Machines of the topology, the names of their hosts and each machine's own numbering.
class Machines {
 public:
  Machines(const Topology& topology, const std::vector<std::string>& hosts)
      : topology_(topology),
        leaves_per_machine_(topology.leaves_per_machine()),
        count_(topology.leaf_count() / leaves_per_machine_),
        first_os_(static_cast<std::size_t>(count_), std::numeric_limits<Index>::max()),
        first_logical_(static_cast<std::size_t>(count_), -1),
        hosts_(hosts) {
    for (Index leaf = topology.leaf_count(); leaf-- > 0;) {
      if (!topology.is_present(leaf)) continue;
      const auto m = static_cast<std::size_t>(machine_of(leaf));
      first_os_[m] = std::min(first_os_[m], topology.os_index(leaf));
      first_logical_[m] = topology.logical_index(leaf);
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
  /// The machine's own logical index of the leaf: hwloc's L# among the cores it may use.
  [[nodiscard]] Index local_logical(Index leaf) const {
    return topology_.logical_index(leaf) -
           first_logical_[static_cast<std::size_t>(machine_of(leaf))];
  }
  /// The machine's own OS index of a PU of the leaf at `leaf`: an allocation tree records its
  /// per-machine stride; a synthetic cluster tree numbers all PUs globally (machine m from its
  /// smallest up); a single machine keeps its numbering.
  [[nodiscard]] Index local_os(Index leaf, Index os) const {
    const Index machine = machine_of(leaf);
    if (topology_.machine_os_stride() > 0) return os - machine * topology_.machine_os_stride();
    if (count_ == 1) return os;
    return os - first_os_[static_cast<std::size_t>(machine)];
  }
  [[nodiscard]] std::vector<Index> local_cpus(Index leaf) const {
    std::vector<Index> cpus;
    for (const Index cpu : topology_.cpus(leaf)) cpus.push_back(local_os(leaf, cpu));
    return cpus;
  }
  [[nodiscard]] std::string host(Index machine) const {
    return hosts_.empty() ? fmt::format("node{}", machine)
                          : hosts_[static_cast<std::size_t>(machine)];
  }

 private:
  const Topology& topology_;
  Index leaves_per_machine_;
  Index count_;
  std::vector<Index> first_os_;       ///< per machine, its smallest OS index
  std::vector<Index> first_logical_;  ///< per machine, the logical index of its first leaf
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
    if (!topology.is_present(leaves[rank])) {
      throw InputError("mapping", fmt::format("rank {} is on position {}, a hole of the topology "
                                              "(no core there)",
                                              rank, leaves[rank]));
    }
  }
}

Index numbered(Index leaf, const Topology& topology, Numbering numbering) {
  switch (numbering) {
    case Numbering::kLogical:
      return topology.logical_index(leaf);
    case Numbering::kPhysical:
      return topology.os_index(leaf);
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

const char* leaf_unit(const OutputOptions& options) {
  return options.hardware_threads ? "hardware thread" : "core";
}

/// Whether some leaf holds several ranks (the launcher must allow it).
bool oversubscribed(const Mapping& mapping) {
  std::vector<Index> leaves = mapping.leaf_of_rank;
  std::sort(leaves.begin(), leaves.end());
  return std::adjacent_find(leaves.begin(), leaves.end()) != leaves.end();
}

/// "3 ranks on 2 nodes".
std::string ranks_on(const std::vector<RankPlacement>& ranks) {
  std::vector<Index> machines;
  for (const RankPlacement& rank : ranks) machines.push_back(rank.machine);
  std::sort(machines.begin(), machines.end());
  const auto nodes = std::unique(machines.begin(), machines.end()) - machines.begin();
  return fmt::format("{} rank{} on {} node{}", ranks.size(), ranks.size() == 1 ? "" : "s", nodes,
                     nodes == 1 ? "" : "s");
}

/// The binding of one rank as Slurm's mask_cpu takes it: a hexadecimal mask of its PUs.
std::string hex_mask(const std::vector<Index>& cpus) {
  const Index top = cpus.empty() ? 0 : cpus.back();
  std::vector<unsigned> nibbles(static_cast<std::size_t>(top / 4 + 1), 0);
  for (const Index cpu : cpus) nibbles[static_cast<std::size_t>(cpu / 4)] |= 1U << (cpu % 4);
  std::string hex = "0x";
  for (std::size_t i = nibbles.size(); i-- > 0;) hex += "0123456789abcdef"[nibbles[i]];
  return hex;
}

/// Per machine in use, the ranks' placements in local rank order.
std::vector<std::vector<const RankPlacement*>> by_machine(const std::vector<RankPlacement>& ranks,
                                                          Index machines) {
  std::vector<std::vector<const RankPlacement*>> out(static_cast<std::size_t>(machines));
  for (const RankPlacement& rank : ranks)
    out[static_cast<std::size_t>(rank.machine)].push_back(&rank);
  return out;
}

std::string render_perm(const Mapping& mapping, const Topology& topology, Numbering numbering) {
  std::string out;
  for (const Index leaf : mapping.leaf_of_rank) {
    fmt::format_to(std::back_inserter(out), "{}\n", numbered(leaf, topology, numbering));
  }
  return out;
}

/// See open_mpi_confusion.
std::string confusion_line(const std::vector<RankPlacement>& ranks, const OutputOptions& options) {
  std::vector<std::string> confused;
  for (const std::vector<std::string>& group : options.open_mpi_alike) {
    std::vector<std::string> used;
    for (const std::string& host : group) {
      const bool holds_a_rank = std::any_of(ranks.begin(), ranks.end(),
                                            [&](const RankPlacement& r) { return r.host == host; });
      if (holds_a_rank) used.push_back(host);
    }
    if (used.size() >= 2) confused.push_back(fmt::format("{}", fmt::join(used, ", ")));
  }
  if (confused.empty()) return "";
  return fmt::format(
      "Open MPI 4.1 takes the nodes {} for one topology (as many usable packages, cores and PUs, "
      "other ones) and binds ranks on one to the other's cores or not at all: launch with "
      "`mpirun --mca rmaps seq --hostfile HOSTS --bind-to none -n {} treematch bind {} -- ./app`, "
      "HOSTS being this mapping written with --format slurm, or use --format hydra",
      fmt::join(confused, "; "), ranks.size(), options.path);
}

std::string render_rankfile(const std::vector<RankPlacement>& ranks, const Mapping& mapping,
                            const OutputOptions& options) {
  const bool physical = options.numbering == Numbering::kPhysical;
  const std::string unit = leaf_unit(options);
  const std::string bind_to = options.hardware_threads ? "hwthread" : "core";
  std::string flags4;  // Open MPI 4.x
  std::string flags5 = ":file=" + options.path + (options.hardware_threads ? ":hwtcpus" : "");
  if (options.hardware_threads) flags4 += " --use-hwthread-cpus";
  if (physical) flags4 += " --mca rmaps_rank_file_physical 1";
  if (oversubscribed(mapping)) {
    flags4 += " --oversubscribe --bind-to " + bind_to + ":overload-allowed";
    flags5 += " --bind-to " + bind_to + ":overload-allowed";
  }
  std::string out = fmt::format(
      "# Open MPI rankfile written by treematch (numbering={}, leaves={}): {}\n"
      "# slot = {}\n"
      "# Open MPI 4.x: mpirun -n {}{} --rankfile {} ./app\n",
      numbering_name(options.numbering), options.hardware_threads ? "hardware-threads" : "cores",
      ranks_on(ranks),
      physical ? fmt::format("OS index (P#) of a hardware thread of the {} on its node", unit)
               : fmt::format("logical index (L#) of the {} on its node, as Open MPI counts the "
                             "{}s the job may use",
                             unit, unit),
      ranks.size(), flags4, options.path);
  if (physical) {
    out += "# Open MPI 5.x reads logical slots only: map with --numbering logical\n";
  } else {
    fmt::format_to(std::back_inserter(out),
                   "# Open MPI 5.x: mpirun -n {} --map-by rankfile{} ./app\n", ranks.size(),
                   flags5);
  }
  const std::string confusion = confusion_line(ranks, options);
  if (!confusion.empty()) out += "# WARNING: " + confusion + "\n";
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    const RankPlacement& place = ranks[rank];
    fmt::format_to(std::back_inserter(out), "rank {}={} slot={}\n", rank, place.host,
                   physical ? place.os : place.logical);
  }
  return out;
}

/// "map_cpu:1,0" or, when some rank binds several PUs, "mask_cpu:0x3,0xc".
std::string slurm_binding(const std::vector<const RankPlacement*>& ranks) {
  const bool masks = std::any_of(ranks.begin(), ranks.end(),
                                 [](const RankPlacement* r) { return r->cpus.size() > 1; });
  std::vector<std::string> items;
  for (const RankPlacement* rank : ranks) {
    items.push_back(masks ? hex_mask(rank->cpus) : std::to_string(rank->cpus.front()));
  }
  return fmt::format("{}:{}", masks ? "mask_cpu" : "map_cpu", fmt::join(items, ","));
}

std::string render_slurm(const std::vector<RankPlacement>& ranks, Index machines,
                         const OutputOptions& options) {
  const auto grouped = by_machine(ranks, machines);
  std::vector<std::string> bindings;
  for (const auto& list : grouped) {
    if (!list.empty()) bindings.push_back(slurm_binding(list));
  }
  std::string out = fmt::format(
      "# Slurm host file written by treematch: {}; ranks bound by OS "
      "index of their {}'s hardware threads\n",
      ranks_on(ranks), leaf_unit(options));
  const bool one_binding =
      !bindings.empty() && std::all_of(bindings.begin(), bindings.end(),
                                       [&](const std::string& b) { return b == bindings.front(); });
  if (one_binding) {
    // srun applies one --cpu-bind list to the local ranks of every node.
    fmt::format_to(std::back_inserter(out),
                   "# SLURM_HOSTFILE={} srun -n {} --distribution=arbitrary --cpu-bind={} ./app\n"
                   "# (srun binds as listed only when the step holds every CPU of its nodes: "
                   "whole-node allocations)\n",
                   options.path, ranks.size(), bindings.front());
  } else {
    fmt::format_to(std::back_inserter(out),
                   "# the nodes bind differently, which one srun --cpu-bind cannot say: map with "
                   "--format json and run\n# SLURM_HOSTFILE={} srun -n {} --distribution=arbitrary "
                   "--cpu-bind=none treematch bind MAPPING.json -- ./app\n",
                   options.path, ranks.size());
  }
  for (const RankPlacement& rank : ranks)
    fmt::format_to(std::back_inserter(out), "{}\n", rank.host);
  for (std::size_t m = 0; m < grouped.size(); ++m) {
    if (grouped[m].empty()) continue;
    fmt::format_to(std::back_inserter(out), "# {}: --cpu-bind={}\n", grouped[m].front()->host,
                   slurm_binding(grouped[m]));
  }
  return out;
}

std::string render_hydra(const std::vector<RankPlacement>& ranks, const OutputOptions& options) {
  std::string out = fmt::format(
      "# MPICH Hydra machine file written by treematch (leaves={}): {}; a line per run of "
      "consecutive ranks on one host, binding = the OS indexes of each rank's PUs, '+'-joined\n"
      "# mpiexec.hydra -f {} -n {} ./app\n",
      options.hardware_threads ? "hardware-threads" : "cores", ranks_on(ranks), options.path,
      ranks.size());
  // Hydra gives each line's ranks to its host in order, and binds them by their index there.
  for (std::size_t first = 0; first < ranks.size();) {
    std::size_t last = first;
    std::vector<std::string> items;
    while (last < ranks.size() && ranks[last].machine == ranks[first].machine) {
      items.push_back(fmt::format("{}", fmt::join(ranks[last].cpus, "+")));
      ++last;
    }
    fmt::format_to(std::back_inserter(out), "{}:{} binding=user:{}\n", ranks[first].host,
                   last - first, fmt::join(items, ","));
    first = last;
  }
  return out;
}

/// A JSON array one value per line at the top level's indentation of dump(2) (what nlohmann
/// writes for it there, "[]" when empty), each value written by `item`.
template <typename Item>
void append_array(std::string& out, std::size_t count, const Item& item) {
  if (count == 0) {
    out += "[]";
    return;
  }
  out += "[\n";
  for (std::size_t i = 0; i < count; ++i) {
    out += "    ";
    item(i);
    out += i + 1 < count ? ",\n" : "\n";
  }
  out += "  ]";
}

/// The report with "mapping", "numbering", "leaves" and "placement" added, as nlohmann's
/// dump(2) writes it. The two per-rank arrays are written here rather than built as JSON values:
/// for a million ranks the values took 2.6 s and 300 MB.
std::string render_json(const Mapping& mapping, const Topology& topology,
                        const std::vector<RankPlacement>& ranks, const OutputOptions& options,
                        const nlohmann::json& report) {
  if (!report.is_object() && !report.is_null()) {
    throw std::invalid_argument("render_mapping: the JSON report must be an object, not " +
                                std::string(report.type_name()));
  }
  nlohmann::json out = report.is_null() ? nlohmann::json::object() : report;
  // Empty arrays hold the per-rank arrays' places in the keys' (sorted) order.
  out["mapping"] = nlohmann::json::array();
  out["placement"] = nlohmann::json::array();
  out["numbering"] = numbering_name(options.numbering);
  out["leaves"] = options.hardware_threads ? "hardware threads" : "cores";
  const std::string skeleton = out.dump(/*indent=*/2) + "\n";
  std::string text;
  text.reserve(skeleton.size() + ranks.size() * 96);
  const auto copy_until = [&](std::size_t& from, const std::string& key) {
    const std::string marker = "\n  \"" + key + "\": []";
    const std::size_t at_key = skeleton.find(marker, from);
    text.append(skeleton, from, at_key + marker.size() - 2 - from);
    from = at_key + marker.size();
  };
  std::size_t from = 0;
  copy_until(from, "mapping");
  append_array(text, mapping.leaf_of_rank.size(), [&](std::size_t r) {
    fmt::format_to(std::back_inserter(text), FMT_COMPILE("{}"),
                   numbered(mapping.leaf_of_rank[r], topology, options.numbering));
  });
  copy_until(from, "placement");
  // Hosts repeat rank after rank: each is escaped once. The format strings are compiled, as this
  // loop writes a line per rank and a core per line.
  std::string host;
  std::string quoted_host;
  append_array(text, ranks.size(), [&](std::size_t r) {
    const RankPlacement& rank = ranks[r];
    text += "{\n      \"cpus\": ";
    if (rank.cpus.empty()) {
      text += "[]";
    } else {
      text += "[\n";
      for (std::size_t c = 0; c < rank.cpus.size(); ++c) {
        fmt::format_to(std::back_inserter(text), FMT_COMPILE("        {}"), rank.cpus[c]);
        text += c + 1 < rank.cpus.size() ? ",\n" : "\n      ]";
      }
    }
    if (r == 0 || rank.host != host) {
      host = rank.host;
      quoted_host = nlohmann::json(host).dump();
    }
    fmt::format_to(
        std::back_inserter(text),
        FMT_COMPILE(",\n      \"host\": {},\n      \"os\": {},\n      \"slot\": {}\n    }}"),
        quoted_host, rank.os, rank.logical);
  });
  text.append(skeleton, from);
  return text;
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

std::vector<RankPlacement> rank_placements(const Mapping& mapping, const Topology& topology,
                                           const std::vector<std::string>& hosts) {
  check_leaves(mapping, topology);
  const Machines machines(topology, hosts);
  machines.check_hosts();
  std::vector<RankPlacement> ranks;
  ranks.reserve(mapping.leaf_of_rank.size());
  for (const Index leaf : mapping.leaf_of_rank) {
    const Index machine = machines.machine_of(leaf);
    ranks.push_back(RankPlacement{machines.host(machine), machine, machines.local_logical(leaf),
                                  machines.local_os(leaf, topology.os_index(leaf)),
                                  machines.local_cpus(leaf)});
  }
  return ranks;
}

std::string open_mpi_confusion(const Mapping& mapping, const Topology& topology,
                               const OutputOptions& options) {
  if (options.open_mpi_alike.empty()) return "";
  return confusion_line(rank_placements(mapping, topology, options.hosts), options);
}

std::string render_mapping(const Mapping& mapping, const Topology& topology,
                           const OutputOptions& options, const nlohmann::json& report) {
  check_leaves(mapping, topology);
  if (options.format == OutputFormat::kPerm) {
    return render_perm(mapping, topology, options.numbering);
  }
  const std::vector<RankPlacement> ranks = rank_placements(mapping, topology, options.hosts);
  const Index machines = topology.leaf_count() / topology.leaves_per_machine();
  switch (options.format) {
    case OutputFormat::kPerm:
      break;
    case OutputFormat::kRankfile:
      return ranks.empty() ? "" : render_rankfile(ranks, mapping, options);
    case OutputFormat::kSlurm:
      return ranks.empty() ? "" : render_slurm(ranks, machines, options);
    case OutputFormat::kHydra:
      return ranks.empty() ? "" : render_hydra(ranks, options);
    case OutputFormat::kJson:
      return render_json(mapping, topology, ranks, options, report);
  }
  throw std::logic_error("unknown OutputFormat");
}

}  // namespace treematch::io
