// Renders a mapping in the form a launcher or a script takes (perm, rankfile, Slurm, Hydra, JSON).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/mapping.h"
#include "src/topology.h"

namespace treematch::io {

enum class OutputFormat { kPerm, kRankfile, kSlurm, kHydra, kJson };
enum class Numbering { kLogical, kPhysical };

/// "perm", "rankfile", "slurm", "hydra" or "json"; anything else throws InputError("--format",
/// ...).
OutputFormat parse_output_format(const std::string& text);
/// "logical" or "physical"; anything else throws InputError("--numbering", ...).
Numbering parse_numbering(const std::string& text);

struct OutputOptions {
  OutputFormat format = OutputFormat::kPerm;
  Numbering numbering = Numbering::kLogical;
  /// Host names of the machines, in tree order; empty = node0, node1, ...
  std::vector<std::string> hosts;
};

/// The text of the output file; every line, the last included, ends with '\n' (no ranks: "").
/// Machine m (topology.machine_level(), leaves_per_machine() = L) holds the logical leaves
/// [m*L, (m+1)*L); its host is options.hosts[m], or "node<m>" when no hosts are given. "Machines
/// in use" are those holding at least one rank, in machine order; "local rank order" is the order
/// of the ranks on one machine by rank. Several ranks may name the same leaf (oversubscription).
///   perm: p lines, line i = leaf of rank i (logical, or OS index with Numbering::kPhysical);
///   rankfile: Open MPI lines "rank <i>=<host> slot=<core>", core = logical index within its
///             machine (leaf - m*L), or the machine's OS index with kPhysical. Open MPI 4.x reads
///             slot numbers as logical core indexes unless run with "--mca rmaps_rank_file_physical
///             1", which kPhysical output needs;
///   slurm: a SLURM_HOSTFILE body (one "<host>" line per rank, in rank order) then, per machine in
///          use, a comment line "# <host>: --cpu-bind=map_cpu:<os>,<os>,..." giving the OS index of
///          each local rank's core in local rank order;
///   hydra: per machine in use, "<host>: -bind-to user:<os>,<os>,..." in the same order;
///   json: a copy of `report` (a JSON object, or null for none) with "mapping" (array of the ranks'
///         leaves in the chosen numbering) and "numbering" ("logical" or "physical") set, dumped
///         with an indent of 2.
/// Slurm and Hydra bind by OS index whatever the numbering (that is what they take). The OS index
/// written for a machine is the machine's own: the leaf's OS index minus m x
/// topology.machine_os_stride() when the tree records it (the allocation of an MPI job), else minus
/// the smallest OS index of that machine (a synthetic cluster numbers all PUs globally, each
/// node's hwloc from 0); a single-machine tree keeps its OS indexes as they are. perm and json keep
/// the tree's OS indexes. Throws InputError("--hosts", "3 host names for 4 machines") when hosts
/// are given but fewer than the machines of the topology (rankfile, slurm and hydra only);
/// InputError("mapping", ...) when a rank's leaf is outside the topology; std::invalid_argument if
/// `report` is neither an object nor null.
std::string render_mapping(const Mapping& mapping, const Topology& topology,
                           const OutputOptions& options, const nlohmann::json& report);

}  // namespace treematch::io
