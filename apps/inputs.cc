// Loading and checking what every command reads: the matrix, the topology and the usable leaves.
#include "apps/inputs.h"

#include <algorithm>
#include <chrono>

#include "io/cores_list.h"
#include "io/input_error.h"
#include "io/topology_reader.h"
#include "src/distributed/allocation_topology.h"

namespace treematch::apps {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void add_input_options(CLI::App& command, InputOptions& options) {
  command
      .add_option("--matrix,-m", options.matrix, "communication matrix (.mat, .csv, METIS, .h5)")
      ->required();
  command.add_option(
      "--topology,-t", options.topology,
      "hwloc XML, tleaf file or string, hwloc synthetic string, or 'allocation' (the nodes of "
      "this job, under mpirun; default: this machine)");
  command.add_option("--network", options.network,
                     "with --topology allocation: SWITCHES:NODES_PER_SWITCH above the nodes "
                     "(default: flat)");
  command.add_option("--metric", options.metric, "size | msg | avg, when the input has both")
      ->capture_default_str();
  command
      .add_option("--numbering", options.numbering, "leaf ids in and out: logical | physical (OS)")
      ->capture_default_str();
  command.add_option("--cores", options.cores,
                     "only these leaves may be used: list (0-3,8) or file");
  command.add_option("--oversubscribe", options.oversubscribe, "processes allowed per leaf")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      .add_option("--node-size", options.node_size,
                  "leaves per machine (default: from the topology)")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--threads", options.threads, "worker threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
}

Inputs load_inputs(const InputOptions& options) {
  Inputs inputs;
  inputs.numbering = io::parse_numbering(options.numbering);
  const io::Metric metric = io::parse_metric(options.metric);

  auto start = std::chrono::steady_clock::now();
  inputs.graph = io::read_matrix(options.matrix, metric);
  inputs.read_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  const std::string source =
      options.topology.empty() ? std::string("this machine") : options.topology;
  std::vector<Index> allocated_leaves;  // leaves of real nodes when --network has spare slots
  if (options.topology == "allocation") {
    distributed::AllocationTopology allocation =
        distributed::read_allocation_topology(distributed::parse_network(options.network));
    inputs.topology = std::move(allocation.topology);
    inputs.hosts = std::move(allocation.hosts);
    allocated_leaves = std::move(allocation.allowed_leaves);
  } else {
    if (!options.network.empty()) {
      throw io::InputError("--network", "applies to --topology allocation only");
    }
    inputs.topology = io::read_topology(options.topology);
  }
  if (options.node_size > 0) {
    try {
      inputs.topology = inputs.topology.with_machine_size(options.node_size);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("--node-size", e.what());
    }
  }
  inputs.topology_seconds = seconds_since(start);

  if (!options.cores.empty()) {
    std::vector<Index> named =
        io::parse_cores_list(options.cores, inputs.numbering == io::Numbering::kPhysical
                                                ? std::numeric_limits<Index>::max()
                                                : inputs.topology.leaf_count());
    for (Index id : named) {
      const Index leaf =
          inputs.numbering == io::Numbering::kPhysical ? inputs.topology.leaf_of_os_index(id) : id;
      if (leaf < 0) {
        throw io::InputError(options.cores, "--cores names OS index " + std::to_string(id) +
                                                " but " + source + " has no leaf with that index");
      }
      inputs.allowed_leaves.push_back(leaf);
    }
    std::sort(inputs.allowed_leaves.begin(), inputs.allowed_leaves.end());
  }
  if (!allocated_leaves.empty()) {
    if (inputs.allowed_leaves.empty()) {
      inputs.allowed_leaves = std::move(allocated_leaves);
    } else {
      std::erase_if(inputs.allowed_leaves, [&](Index leaf) {
        return !std::binary_search(allocated_leaves.begin(), allocated_leaves.end(), leaf);
      });
      if (inputs.allowed_leaves.empty()) {
        throw io::InputError(options.cores, "--cores names no core of the job's nodes");
      }
    }
  }

  const Index leaves = inputs.allowed_leaves.empty()
                           ? inputs.topology.leaf_count()
                           : static_cast<Index>(inputs.allowed_leaves.size());
  const auto slots = static_cast<long long>(leaves) * options.oversubscribe;
  if (inputs.graph.size() > slots) {
    throw io::InputError(options.matrix,
                         std::to_string(inputs.graph.size()) + " processes but " + source +
                             " offers " + std::to_string(slots) + " slots (" +
                             std::to_string(leaves) +
                             (inputs.allowed_leaves.empty() ? " leaves" : " allowed leaves") +
                             " x " + std::to_string(options.oversubscribe) +
                             "); use --oversubscribe N to allow N processes per leaf");
  }
  return inputs;
}

}  // namespace treematch::apps
