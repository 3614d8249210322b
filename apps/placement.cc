// Loading the placement every mapping of a run shares: topology, usable leaves, host names.
#include "apps/placement.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "apps/inputs.h"
#include "io/cores_list.h"
#include "io/input_error.h"
#include "io/topology_reader.h"
#include "src/distributed/allocation_topology.h"

namespace treematch::apps {

Topology apply_link_costs(const Topology& topology, const std::string& spec) {
  if (spec.empty()) return topology;
  std::vector<double> costs;
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t end = std::min(spec.find(':', begin), spec.size());
    const std::string item = spec.substr(begin, end - begin);
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() ||
        !std::isfinite(value) || value < 0.0) {
      throw io::InputError("--link-costs", "'" + item + "' in '" + spec +
                                               "' is not a finite number >= 0 (expected e.g. "
                                               "1:10:100, one cost per level, cores first)");
    }
    costs.push_back(value);
    begin = end + 1;
  }
  try {
    return topology.with_link_costs(costs);
  } catch (const std::invalid_argument& e) {
    throw io::InputError("--link-costs", e.what());
  }
}

Placement load_placement(const InputOptions& options, MPI_Comm comm) {
  Placement placement;
  placement.source = options.topology.empty() ? std::string("this machine") : options.topology;
  std::vector<Index> allocated_leaves;  // leaves of real nodes when --network has spare slots
  if (options.topology == "allocation") {
    const distributed::NetworkShape network = distributed::parse_network(options.network);
    distributed::AllocationTopology allocation =
        comm == MPI_COMM_NULL ? distributed::read_allocation_topology(network)
                              : distributed::gather_allocation_topology(comm, network);
    placement.topology = std::move(allocation.topology);
    placement.hosts = std::move(allocation.hosts);
    allocated_leaves = std::move(allocation.allowed_leaves);
  } else {
    if (!options.network.empty()) {
      throw io::InputError("--network", "applies to --topology allocation only");
    }
    placement.topology = io::read_topology(options.topology);
  }
  if (options.node_size > 0) {
    try {
      placement.topology = placement.topology.with_machine_size(options.node_size);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("--node-size", e.what());
    }
  }
  placement.topology = apply_link_costs(placement.topology, options.link_costs);

  std::vector<Index>& allowed = placement.allowed_leaves;
  if (!options.cores.empty()) {
    const bool physical = io::parse_numbering(options.numbering) == io::Numbering::kPhysical;
    for (Index id :
         io::parse_cores_list(options.cores, physical ? std::numeric_limits<Index>::max()
                                                      : placement.topology.leaf_count())) {
      const Index leaf = physical ? placement.topology.leaf_of_os_index(id) : id;
      if (leaf < 0) {
        throw io::InputError(options.cores, "--cores names OS index " + std::to_string(id) +
                                                " but " + placement.source +
                                                " has no leaf with that index");
      }
      allowed.push_back(leaf);
    }
    std::sort(allowed.begin(), allowed.end());
  }
  if (!allocated_leaves.empty()) {
    if (allowed.empty()) {
      allowed = std::move(allocated_leaves);
    } else {
      std::erase_if(allowed, [&](Index leaf) {
        return !std::binary_search(allocated_leaves.begin(), allocated_leaves.end(), leaf);
      });
      if (allowed.empty()) {
        throw io::InputError(options.cores, "--cores names no core of the job's nodes");
      }
    }
  }
  return placement;
}

void check_fits(const Placement& placement, long long processes, int oversubscribe,
                const std::string& matrix) {
  const bool all = placement.allowed_leaves.empty();
  const long long leaves = all ? placement.topology.leaf_count()
                               : static_cast<long long>(placement.allowed_leaves.size());
  const long long slots = leaves * oversubscribe;
  if (processes <= slots) return;
  throw io::InputError(matrix, std::to_string(processes) + " processes but " + placement.source +
                                   " offers " + std::to_string(slots) + " slots (" +
                                   std::to_string(leaves) + (all ? " leaves" : " allowed leaves") +
                                   " x " + std::to_string(oversubscribe) +
                                   "); use --oversubscribe N to allow N processes per leaf");
}

}  // namespace treematch::apps
