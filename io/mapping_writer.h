// Renders a mapping in the form a launcher or a script takes (perm, rankfile, Slurm, Hydra, JSON).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/mapping.h"
#include "src/topology.h"

namespace tm::io {

enum class OutputFormat { kPerm, kRankfile, kSlurm, kHydra, kJson };
enum class Numbering { kLogical, kPhysical };

OutputFormat parse_output_format(const std::string& text);  ///< throws InputError
Numbering parse_numbering(const std::string& text);         ///< throws InputError

struct OutputOptions {
  OutputFormat format = OutputFormat::kPerm;
  Numbering numbering = Numbering::kLogical;
  /// Host names of the machines, in tree order; empty = node0, node1, ...
  std::vector<std::string> hosts;
};

/// The text of the output file.
///   perm: p lines, line i = leaf of rank i (logical, or OS index with Numbering::kPhysical);
///   rankfile: Open MPI "rank i=<host> slot=<core>" lines, core = logical index within its machine
///             (OS index with kPhysical);
///   slurm: a SLURM_HOSTFILE body (one host per rank, in rank order) then, per machine, a comment
///          line "# <host> --cpu-bind=map_cpu:<os>,<os>,..." giving the local ranks' OS cores;
///   hydra: "-bind-to user:<os>,<os>,..." per machine;
///   json: `report` with "mapping" (array) added.
/// Slurm and Hydra bind by OS index whatever the numbering (that is what they take).
std::string render_mapping(const Mapping& mapping, const Topology& topology, const OutputOptions& options,
                           const nlohmann::json& report);

}  // namespace tm::io
