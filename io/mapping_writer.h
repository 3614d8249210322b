// Renders a mapping in the form a launcher or a script takes (perm, rankfile, Slurm, Hydra, JSON).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/mapping.h"
#include "src/tree/topology.h"

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
  /// The leaves are hardware threads (--hwthreads): launchers must count threads, not cores.
  bool hardware_threads = false;
  /// The file's name, for the commands in the header.
  std::string path = "MAPPING";
  /// Groups of hosts Open MPI 4.1 takes for one topology (distributed::open_mpi_alike_nodes): a
  /// rankfile with ranks on two hosts of a group says so (open_mpi_confusion).
  std::vector<std::vector<std::string>> open_mpi_alike{};
};

/// "" when no group of `options.open_mpi_alike` holds two hosts that `mapping` puts ranks on;
/// otherwise one line (no '#', no newline) naming them and the launch that binds them as mapped:
/// Open MPI's sequential mapper placing each rank on the host of a `--format slurm` output, mpirun
/// binding nothing, `treematch bind` binding each rank from the rankfile.
std::string open_mpi_confusion(const Mapping& mapping, const Topology& topology,
                               const OutputOptions& options);

/// What a launcher needs about one rank: its machine's host, its core (or hardware thread) as the
/// machine itself numbers it, and the OS indexes of the PUs to bind it to.
struct RankPlacement {
  std::string host;
  Index machine = 0;
  Index logical = 0;        ///< logical index within the machine (hwloc L#, among present leaves)
  Index os = 0;             ///< the machine's own OS index of the leaf (its smallest PU)
  std::vector<Index> cpus;  ///< the machine's own OS indexes of its PUs
};

/// Per rank, where it runs, in the numbering of its own machine (see render_mapping). Throws as
/// render_mapping for hosts and leaves.
std::vector<RankPlacement> rank_placements(const Mapping& mapping, const Topology& topology,
                                           const std::vector<std::string>& hosts);

/// The text of the output file; every line, the last included, ends with '\n' (no ranks: "").
/// Machine m (topology.machine_level(), leaves_per_machine() = L) holds the positions
/// [m*L, (m+1)*L); its host is options.hosts[m], or "node<m>" when no hosts are given. "Machines
/// in use" are those holding at least one rank, in machine order; "local rank order" is the order
/// of the ranks on one machine by rank. Several ranks may name the same leaf (oversubscription).
/// Logical numbers count present leaves only (Topology::logical_index), as hwloc's logical index
/// does on a restricted machine; a machine's own logical index of a leaf is its logical index
/// minus that of the machine's first present leaf.
///   perm: p lines, line i = leaf of rank i (logical index, or OS index with kPhysical); no header
///         (for scripts and `treematch eval`);
///   rankfile: '#' header lines saying how to launch it (Open MPI 4 and 5 flags, numbering, and
///             --use-hwthread-cpus when the leaves are hardware threads), then Open MPI lines
///             "rank <i>=<host> slot=<core>", core = the machine's own logical index of the leaf,
///             or its own OS index with kPhysical (Open MPI then needs "--mca
///             rmaps_rank_file_physical 1" and binds the core holding that PU);
///   slurm: '#' header lines (the srun command), a SLURM_HOSTFILE body (one "<host>" line per
///          rank, in rank order) then, per machine in use, a comment line "# <host>:
///          --cpu-bind=map_cpu:<os>,..." (or mask_cpu:<hex>,... when a leaf has several PUs)
///          giving each local rank's binding in local rank order;
///   hydra: '#' header lines, then an MPICH Hydra machine file (mpiexec.hydra -f FILE): a line
///          "<host>:<n> binding=user:<cpus>,..." per run of n consecutive ranks on one machine,
///          each rank's PUs joined by '+';
///   json: a copy of `report` (a JSON object, or null for none) with "mapping" (array of the ranks'
///         leaves in the chosen numbering), "numbering" ("logical" or "physical"), "leaves"
///         ("cores" or "hardware threads") and "placement" (per rank: host, slot = the machine's
///         own logical index, os, cpus) set, dumped with an indent of 2.
/// Slurm and Hydra bind by OS index whatever the numbering (that is what they take). The OS index
/// written for a machine is the machine's own: the leaf's OS index minus m x
/// topology.machine_os_stride() when the tree records it (the allocation of an MPI job), else minus
/// the smallest OS index of that machine (a synthetic cluster numbers all PUs globally, each
/// node's hwloc from 0); a single-machine tree keeps its OS indexes as they are. perm and json's
/// "mapping" keep the tree's OS indexes. Throws InputError("--hosts", "3 host names for 4
/// machines") when hosts are given but fewer than the machines of the topology (rankfile, slurm,
/// hydra and json); InputError("mapping", ...) when a rank's leaf is outside the topology or a
/// hole; std::invalid_argument if `report` is neither an object nor null.
std::string render_mapping(const Mapping& mapping, const Topology& topology,
                           const OutputOptions& options, const nlohmann::json& report);

}  // namespace treematch::io
