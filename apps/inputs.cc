// Loading and checking what every command reads: the placement, then the matrix that must fit it.
#include "apps/inputs.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "apps/cli_checks.h"
#include "io/agreement.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_collective_reader.h"
#include "kernels/utility.h"
#include "src/model/cost.h"

namespace treematch::apps {
namespace {

using kernels::seconds_since;

/// Every rank reads its own block of rows with collective MPI-IO transfers; the rows stay there.
/// Opening and reading are agreed (a bad row on one rank fails every rank, after which they all
/// close the file), so no rank is left waiting in a collective call.
std::unique_ptr<distributed::DistributedMappingInput> read_distributed(
    MPI_Comm comm, const io::Hdf5MatrixLocation& location, const io::HeaderCheck& check,
    Offset gather_entries) {
  io::Hdf5MatrixReader reader =
      io::open_hdf5_matrix_collective(location.path, location.object, comm, check);
  const distributed::RowBlocks blocks =
      distributed::DistributedMappingInput::blocks_for(comm, reader.size());
  int rank = 0;
  distributed::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  kernels::Csr rows;
  reader.read_rows_collective(blocks.first(rank), blocks.count(rank), rows);
  return distributed::DistributedMappingInput::from_directed_rows(
      comm, reader.size(), std::move(rows), {gather_entries});
}

/// A check of the matrix's header that also learns over how many ranks its rows are spread (1:
/// read whole here).
using SpreadHeaderCheck = std::function<void(const io::MatrixHeader& header, int ranks)>;

/// Whether `comm` has more than one rank to spread a matrix over.
bool several_ranks(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return false;
  int size = 1;
  distributed::check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size > 1;
}

/// The matrix of `options`: spread over the ranks of options.comm for an HDF5 matrix under MPI
/// with several ranks, else read whole here (one rank gains nothing from the distributed levels
/// and would hold their exchange buffers besides the rows). `check` sees the order first.
Inputs read_matrix_inputs(const InputOptions& options, const SpreadHeaderCheck& check) {
  Inputs inputs;
  inputs.numbering = io::parse_numbering(options.numbering);
  const io::Metric metric = io::parse_metric(options.metric);
  const auto start = std::chrono::steady_clock::now();
  const std::optional<io::Hdf5MatrixLocation> hdf5 =
      several_ranks(options.comm) ? io::locate_hdf5_matrix(options.matrix, metric) : std::nullopt;
  if (hdf5) {
    const int ranks = distributed::size_of(options.comm);
    inputs.distributed = read_distributed(
        options.comm, *hdf5, [&](const io::MatrixHeader& header) { check(header, ranks); },
        options.gather_entries);
  } else {
    inputs.graph = io::read_matrix(options.matrix, metric,
                                   [&](const io::MatrixHeader& header) { check(header, 1); });
  }
  inputs.read_seconds = seconds_since(start);
  return inputs;
}

/// Refuses an input whose costs would overflow a double on its topology (naming the matrix).
void check_costs_finite(const Inputs& inputs, const std::string& matrix) {
  const double volume =
      inputs.distributed ? inputs.distributed->total_volume() : inputs.graph.total_volume();
  const std::string problem = cost_overflow_problem(volume, inputs.topology);
  if (!problem.empty()) throw io::InputError(matrix, problem);
}

/// Moves the placement's parts into `inputs` and checks what needs both sides.
void place(Inputs& inputs, Placement placement, const InputOptions& options) {
  check_fits(placement, inputs.processes(), options.oversubscribe, options.matrix,
             options.hardware_threads);
  inputs.topology = std::move(placement.topology);
  inputs.links = std::move(placement.links);
  inputs.allowed_leaves = std::move(placement.allowed_leaves);
  inputs.hosts = std::move(placement.hosts);
  inputs.open_mpi_alike = std::move(placement.open_mpi_alike);
  check_costs_finite(inputs, options.matrix);
}

/// Refuses a matrix whose mapping needs more memory than options.memory allows: from its header
/// when that gives the entries, else (header.entries empty) nothing yet.
void check_header_memory(const InputOptions& options, const io::MatrixHeader& header, int ranks) {
  if (options.memory && header.entries)
    check_memory(*options.memory, options.matrix, header.order, *header.entries, ranks);
}

/// The same once the matrix is read: the text formats state no entries, and a matrix stored one
/// way round has twice the entries once symmetrised.
void check_read_memory(const InputOptions& options, const Inputs& inputs) {
  if (options.memory) {
    const int ranks = inputs.distributed ? distributed::size_of(options.comm) : 1;
    check_memory(*options.memory, options.matrix, inputs.processes(), inputs.entries(), ranks);
  }
}

/// The matrix of `options` placed on `placement`: a matrix with more processes than the placement
/// offers slots is refused from its header (check_fits), before any row is read.
Inputs read_placed(const InputOptions& options, Placement placement) {
  Inputs inputs = read_matrix_inputs(options, [&](const io::MatrixHeader& header, int ranks) {
    check_fits(placement, header.order, options.oversubscribe, options.matrix,
               options.hardware_threads);
    check_header_memory(options, header, ranks);
  });
  check_read_memory(options, inputs);
  place(inputs, std::move(placement), options);
  return inputs;
}

/// Whether the topology is best read once the matrix's header gives the processes: a tleaf or
/// synthetic tree (or any file) is then read as the part the job uses, so a description of a
/// huge cluster costs what 8 processes take. The allocation is gathered first (collective, so
/// never inside a reader's callback); this machine is what it is.
bool placed_after_header(const InputOptions& options) {
  return options.topology != "allocation" && !options.topology.empty();
}

/// The matrix's header first, then the placement sized by it, then the rows.
Inputs read_then_place(const InputOptions& options) {
  std::optional<Placement> placement;
  double topology_seconds = 0.0;
  Inputs inputs = read_matrix_inputs(options, [&](const io::MatrixHeader& header, int ranks) {
    const Index n = header.order;
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t per_leaf = options.oversubscribe;
    placement = load_placement(options, MPI_COMM_NULL,
                               options.whole_tree ? 0 : (n + per_leaf - 1) / per_leaf);
    topology_seconds = seconds_since(start);
    check_fits(*placement, n, options.oversubscribe, options.matrix, options.hardware_threads);
    check_header_memory(options, header, ranks);
  });
  check_read_memory(options, inputs);
  if (!placement) {
    placement = load_placement(options, MPI_COMM_NULL, options.whole_tree ? 0 : inputs.processes());
  }
  place(inputs, std::move(*placement), options);
  inputs.read_seconds = std::max(0.0, inputs.read_seconds - topology_seconds);
  inputs.topology_seconds = topology_seconds;
  return inputs;
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
                     "only these cores (or hardware threads) may be used: list (0-3,8) or file, "
                     "in the --numbering given");
  command.add_option("--oversubscribe", options.oversubscribe, "processes allowed per core")
      ->check(at_least(1))
      ->capture_default_str();
  command.add_flag("--hwthreads", options.hardware_threads,
                   "hardware threads are the leaves, not cores (as Open MPI's "
                   "--use-hwthread-cpus): one process per thread, outputs numbered by thread");
  command
      .add_option("--node-size", options.node_size,
                  "leaves per machine (default: from the topology)")
      ->check(at_least(0));
  command.add_option("--threads", options.threads, "worker threads (0 = all cores)")
      ->check(at_least(0));
  command.add_option("--link-costs", options.link_costs,
                     "per-level link costs, bottom-up (cores first), e.g. 1:10:100: grouping and "
                     "refinement then optimise the weighted cost (default: the topology's)");
  command
      .add_option("--link-model", options.links.model,
                  "the links' bandwidths and latencies for link loads and predicted times: a "
                  "preset (" +
                      link_preset_names() +
                      ") or a file of 'preset', 'bandwidth' and "
                      "'latency' lines")
      ->capture_default_str();
  command.add_option("--link-bandwidth", options.links.bandwidth,
                     "per-level link bandwidths in bytes/s, bottom-up (cores first), e.g. "
                     "10G:20G:12.5G:25G (default: the link model's)");
  command.add_option("--link-latency", options.links.latency,
                     "per-level link latencies, bottom-up, e.g. 100ns:100ns:1us:500ns (default: "
                     "the link model's)");
  command
      .add_option("--gather-entries", options.gather_entries,
                  "under mpirun with an HDF5 matrix: levels stay spread over the ranks until they "
                  "have at most this many entries; larger matrices skip refinement and the "
                  "top-down candidates unless --refine is given, with or without mpirun")
      ->check(at_least(0))
      ->capture_default_str();
}

Inputs load_inputs(const InputOptions& options) {
  Inputs inputs;
  // Under mpirun every rank loads the same inputs: a failure on any of them is agreed on, so that
  // every rank throws the same error (printed once) instead of each ending the job alone.
  io::run_agreed(options.comm, [&] {
    if (placed_after_header(options)) {
      inputs = read_then_place(options);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    Placement placement = load_placement(options, options.comm);
    const double topology_seconds = seconds_since(start);
    inputs = read_placed(options, std::move(placement));
    inputs.topology_seconds = topology_seconds;
  });
  return inputs;
}

Inputs load_inputs(const InputOptions& options, const Placement& placement) {
  return read_placed(options, placement);
}

}  // namespace treematch::apps
