// Loading and checking what every command reads: the matrix, the topology and the usable leaves.
#include "apps/inputs.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <optional>

#include "io/cores_list.h"
#include "io/input_error.h"
#include "io/matrix_hdf5.h"
#include "io/topology_reader.h"
#include "src/distributed/allocation_topology.h"

namespace treematch::apps {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Every rank reads its own block of rows with collective MPI-IO transfers; the rows stay there.
std::unique_ptr<distributed::DistributedMappingInput> read_distributed(
    MPI_Comm comm, const io::Hdf5MatrixLocation& location, Offset gather_entries) {
  io::Hdf5MatrixReader reader(location.path, location.object, comm);
  const distributed::RowBlocks blocks =
      distributed::DistributedMappingInput::blocks_for(comm, reader.size());
  int rank = 0;
  distributed::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  kernels::Csr rows;
  reader.read_rows_collective(blocks.first(rank), blocks.count(rank), rows);
  return distributed::DistributedMappingInput::from_directed_rows(
      comm, reader.size(), std::move(rows), {gather_entries});
}

}  // namespace

void add_input_options(CLI::App& command, InputOptions& options) {
  command
      .add_option("--matrix,-m", options.matrix,
                  "communication matrix (.mat, .csv, METIS, .h5); FILE.h5:/OBJECT reads inside "
                  "an HDF5 file: a group holding size and msg (e.g. pattern.h5:/external) or one "
                  "matrix (dataset or CSR group, size only)")
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
  command.add_option("--link-costs", options.link_costs,
                     "per-level link costs, bottom-up (cores first), e.g. 1:10:100: grouping and "
                     "refinement then optimise the weighted cost (default: the topology's)");
  command
      .add_option("--gather-entries", options.gather_entries,
                  "under mpirun with an HDF5 matrix: levels stay spread over the ranks until they "
                  "have at most this many entries (the mapping does not depend on it)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

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

Inputs load_inputs(const InputOptions& options) {
  Inputs inputs;
  inputs.numbering = io::parse_numbering(options.numbering);
  const io::Metric metric = io::parse_metric(options.metric);

  auto start = std::chrono::steady_clock::now();
  const std::optional<io::Hdf5MatrixLocation> hdf5 =
      options.comm != MPI_COMM_NULL ? io::locate_hdf5_matrix(options.matrix, metric) : std::nullopt;
  if (hdf5) {
    inputs.distributed = read_distributed(options.comm, *hdf5, options.gather_entries);
  } else {
    inputs.graph = io::read_matrix(options.matrix, metric);
  }
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
  inputs.topology = apply_link_costs(inputs.topology, options.link_costs);
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
  if (inputs.processes() > slots) {
    throw io::InputError(options.matrix,
                         std::to_string(inputs.processes()) + " processes but " + source +
                             " offers " + std::to_string(slots) + " slots (" +
                             std::to_string(leaves) +
                             (inputs.allowed_leaves.empty() ? " leaves" : " allowed leaves") +
                             " x " + std::to_string(options.oversubscribe) +
                             "); use --oversubscribe N to allow N processes per leaf");
  }
  return inputs;
}

}  // namespace treematch::apps
