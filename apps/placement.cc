// Loading the placement every mapping of a run shares: topology, usable leaves, host names.
#include "apps/placement.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "apps/inputs.h"
#include "io/allocation_topology.h"
#include "io/cores_list.h"
#include "io/input_error.h"
#include "io/link_model_reader.h"
#include "io/mapping_writer.h"
#include "io/topology_reader.h"

namespace treematch::apps {

Topology apply_link_costs(Topology topology, const std::string& spec) {
  if (spec.empty()) return topology;
  const std::vector<double> costs = io::parse_link_costs(spec, "--link-costs");
  try {
    return topology.with_link_costs(costs);
  } catch (const std::invalid_argument& e) {
    throw io::InputError("--link-costs", e.what());
  }
}

namespace {

/// The leaves --cores names (logical numbers count the present leaves, as hwloc's logical index
/// does; physical ones are OS indexes of a leaf or of one of its PUs), as positions.
std::vector<Index> named_cores(const InputOptions& options, const Placement& placement) {
  const Topology& topology = placement.topology;
  const bool physical = io::parse_numbering(options.numbering) == io::Numbering::kPhysical;
  std::vector<Index> cpu_owner;  // [OS index of a PU] = its leaf, for physical ids of PUs
  if (physical && topology.has_multi_cpu_leaves()) {
    for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
      for (const Index cpu : topology.cpus(leaf)) {
        if (static_cast<std::size_t>(cpu) >= cpu_owner.size())
          cpu_owner.resize(static_cast<std::size_t>(cpu) + 1, -1);
        cpu_owner[static_cast<std::size_t>(cpu)] = leaf;
      }
    }
  }
  std::vector<Index> leaves;
  for (const Index id :
       io::parse_cores_list(options.cores, physical ? std::numeric_limits<Index>::max()
                                                    : topology.present_leaf_count())) {
    Index leaf = physical ? topology.leaf_of_os_index(id) : topology.leaf_of_logical(id);
    if (leaf < 0 && static_cast<std::size_t>(id) < cpu_owner.size())
      leaf = cpu_owner[static_cast<std::size_t>(id)];
    if (leaf < 0) {
      throw io::InputError(options.cores, "--cores names OS index " + std::to_string(id) + " but " +
                                              placement.source +
                                              " has no core or PU with that index");
    }
    leaves.push_back(leaf);
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  return leaves;
}

}  // namespace

Placement load_placement(const InputOptions& options, MPI_Comm comm, std::int64_t leaves_needed) {
  Placement placement;
  placement.source = options.topology.empty() ? std::string("this machine") : options.topology;
  // --link-costs, --link-bandwidth, --link-latency and a link model file name the levels of the
  // whole tree, and physical --cores ids may lie anywhere in it: it is read whole for them.
  // Logical --cores ids are positions: the part read reaches the largest.
  const bool physical = io::parse_numbering(options.numbering) == io::Numbering::kPhysical;
  const bool per_level = !options.link_costs.empty() || !options.links.bandwidth.empty() ||
                         !options.links.latency.empty() || !parse_link_preset(options.links.model);
  const bool trim = leaves_needed > 0 && !per_level && (options.cores.empty() || !physical);
  if (trim && !options.cores.empty()) {
    const std::vector<Index> ids =
        io::parse_cores_list(options.cores, static_cast<Index>(kMaxLeaves));
    if (!ids.empty()) leaves_needed = std::max<std::int64_t>(leaves_needed, ids.back() + 1);
  }
  const io::TopologyOptions leaves{.hardware_threads = options.hardware_threads,
                                   .leaves_needed = trim ? leaves_needed : 0,
                                   .machine_leaves = options.node_size};
  std::vector<Index> constrained;  // leaves a Scotch sub-architecture allows
  if (options.topology == "allocation") {
    const distributed::NetworkShape network = distributed::parse_network(options.network);
    distributed::AllocationTopology allocation =
        comm == MPI_COMM_NULL ? distributed::read_allocation_topology(network, leaves)
                              : distributed::gather_allocation_topology(comm, network, leaves);
    placement.topology = std::move(allocation.topology);
    placement.hosts = std::move(allocation.hosts);
    placement.open_mpi_alike = std::move(allocation.open_mpi_alike);
  } else {
    if (!options.network.empty()) {
      throw io::InputError("--network", "applies to --topology allocation only");
    }
    io::ConstrainedTopology read = io::read_topology_with_constraints(options.topology, leaves);
    placement.topology = std::move(read.topology);
    constrained = std::move(read.allowed);
    // Outputs for this machine name it, so that a launcher started here finds it.
    if (options.topology.empty()) placement.hosts = {distributed::this_host_name()};
  }
  if (options.node_size > 0) {
    try {
      placement.topology = placement.topology.with_machine_size(options.node_size);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("--node-size", e.what());
    }
  }
  placement.topology = apply_link_costs(std::move(placement.topology), options.link_costs);
  placement.links = io::read_link_model(options.links, placement.topology);

  // Usable leaves: the present ones, narrowed by a sub-architecture and by --cores.
  std::vector<Index>& allowed = placement.allowed_leaves;
  if (!options.cores.empty()) {
    allowed = named_cores(options, placement);
    if (!constrained.empty()) {
      std::erase_if(allowed, [&](Index leaf) {
        return !std::binary_search(constrained.begin(), constrained.end(), leaf);
      });
    }
    if (allowed.empty()) {
      throw io::InputError(options.cores, "--cores names no usable core of " + placement.source);
    }
  } else if (!constrained.empty()) {
    allowed = std::move(constrained);
  } else if (placement.topology.has_holes()) {
    allowed = placement.topology.present_leaves();
  }
  return placement;
}

void check_fits(const Placement& placement, long long processes, int oversubscribe,
                const std::string& matrix, bool hardware_threads) {
  const bool all = placement.allowed_leaves.empty();
  const long long leaves = all ? placement.topology.leaf_count()
                               : static_cast<long long>(placement.allowed_leaves.size());
  const long long slots = leaves * oversubscribe;
  if (processes <= slots) return;
  const bool threads_help = !hardware_threads && placement.topology.has_multi_cpu_leaves();
  const std::string unit = hardware_threads ? "hardware threads" : "cores";
  throw io::InputError(
      matrix, std::to_string(processes) + " processes but " + placement.source + " offers " +
                  std::to_string(slots) + " slots (" + std::to_string(leaves) + " " +
                  (all ? "" : "usable ") + unit + " x " + std::to_string(oversubscribe) +
                  "); use --oversubscribe N to allow N processes per " +
                  (hardware_threads ? "hardware thread" : "core") +
                  (threads_help ? " or --hwthreads to place one process per hardware thread" : ""));
}

}  // namespace treematch::apps
