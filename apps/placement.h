// The machine side of a mapping: topology, usable leaves and host names, loaded once per run.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch::apps {

struct InputOptions;

/// Where processes may go and over what links: what --topology, --network, --node-size,
/// --link-costs, --link-model (with --link-bandwidth, --link-latency), --hwthreads and --cores
/// denote. A batch loads it once and maps every pattern onto it.
struct Placement {
  Topology topology;
  /// Bandwidth and latency of each level's links (--link-model, --link-bandwidth, --link-latency).
  LinkModel links;
  /// Positions usable, sorted: the present leaves (a tree with holes), narrowed by a Scotch
  /// sub-architecture and --cores; empty = every position (no holes, no constraint).
  std::vector<Index> allowed_leaves;
  /// Per machine: the nodes of --topology allocation, this host for this machine; else empty.
  std::vector<std::string> hosts;
  /// --topology allocation: nodes Open MPI 4.1 confuses (distributed::open_mpi_alike_nodes).
  std::vector<std::vector<std::string>> open_mpi_alike{};
  std::string source;  ///< the topology as errors name it: its spec or this machine
};

/// Reads the placement of `options`. With --topology allocation the job's nodes are gathered
/// collectively over `comm` (every rank must call; MPI_COMM_NULL: MPI_COMM_WORLD when MPI is
/// initialised, else this machine as the one node); any other topology is read by this process
/// alone. --cores ids are logical (the rank among the present cores, hwloc's logical index) or,
/// with --numbering physical, OS indexes of a core or of one of its PUs. Throws io::InputError
/// naming the option for anything wrong (--network with another topology, a bad --node-size,
/// --link-costs, link model or --cores, --cores naming nothing usable). `leaves_needed` > 0 (the
/// processes over --oversubscribe) lets a tleaf or synthetic tree far larger than the job be read
/// as the part it uses (whole machines of --node-size) and reaching the largest logical --cores
/// id; it is ignored with per-level values (--link-costs, --link-bandwidth, --link-latency, a link
/// model file) and physical --cores, which name levels and leaves of the whole tree.
Placement load_placement(const InputOptions& options, MPI_Comm comm,
                         std::int64_t leaves_needed = 0);

/// Throws io::InputError naming `matrix` when `processes` exceed the placement's slots (usable
/// leaves x `oversubscribe`), saying how many there are and that --oversubscribe N helps (and
/// --hwthreads, when cores have several hardware threads and they are not the leaves yet).
void check_fits(const Placement& placement, long long processes, int oversubscribe,
                const std::string& matrix, bool hardware_threads);

/// `topology` with the link costs of --link-costs ("1:10:100", one per level, the leaves' links
/// first); unchanged when `spec` is empty. Throws io::InputError naming --link-costs for a bad
/// number or a count that does not match the levels.
Topology apply_link_costs(Topology topology, const std::string& spec);

}  // namespace treematch::apps
