// The options and loading shared by every command: matrix, topology, placement constraints.
#pragma once

#include <string>
#include <vector>

#include <mpi.h>

#include <CLI/CLI.hpp>

#include "apps/memory_budget.h"
#include "apps/placement.h"
#include "io/link_model_reader.h"
#include "io/mapping_writer.h"
#include "io/matrix_reader.h"
#include "src/distributed/distributed_input.h"
#include "src/model/comm_graph.h"
#include "src/tree/topology.h"

namespace treematch::apps {

struct InputOptions {
  std::string matrix;
  std::string topology;  ///< empty = this machine; "allocation" = the nodes of this (MPI) job
  std::string network;   ///< with --topology allocation: "S:N" switches x nodes, or flat
  std::string metric = "size";
  std::string numbering = "logical";
  std::string cores;  ///< --cores list or file; empty = all leaves
  int oversubscribe = 1;
  /// --hwthreads: hardware threads are the leaves (Open MPI's --use-hwthread-cpus), not cores.
  bool hardware_threads = false;
  int node_size = 0;       ///< leaves per machine, 0 = from the topology
  /// Read the whole tree, never the part the processes fill (eval: a mapping may use any leaf).
  bool whole_tree = false;
  std::string link_costs;  ///< "1:10:100": per-level link costs, bottom-up; empty = the topology's
  io::LinkModelOptions links;  ///< --link-model, --link-bandwidth, --link-latency
  int threads = 0;
  /// Under mpirun: the job's ranks, which share the reading and the mapping of an HDF5 matrix.
  MPI_Comm comm = MPI_COMM_NULL;
  /// Under mpirun: levels are gathered on every rank once they have at most this many entries.
  long long gather_entries = distributed::DistributedContext{}.gather_entries;
  /// What mapping an input may take (map and batch): an input that needs more is refused from
  /// its header when that states the entries (HDF5, METIS), else once read. Empty: no check.
  std::optional<MemoryBudget> memory;
};

/// Registers --matrix, --topology, --metric, --numbering, --cores, --oversubscribe, --hwthreads,
/// --node-size and --threads on `command`.
void add_input_options(CLI::App& command, InputOptions& options);

/// What the options denote, read and checked.
struct Inputs {
  CommGraph graph;  ///< empty when `distributed` holds the matrix
  /// Under mpirun with an HDF5 matrix: each rank's rows (read collectively), mapped together.
  std::unique_ptr<distributed::DistributedMappingInput> distributed;
  Topology topology;
  LinkModel links;                    ///< the links of `topology` (see Placement)
  std::vector<Index> allowed_leaves;  ///< logical, sorted; empty = all
  std::vector<std::string> hosts;     ///< per machine, from --topology allocation; else empty
  std::vector<std::vector<std::string>> open_mpi_alike;  ///< see Placement
  io::Numbering numbering = io::Numbering::kLogical;
  double read_seconds = 0.0;
  double topology_seconds = 0.0;

  [[nodiscard]] Index processes() const { return distributed ? distributed->size() : graph.size(); }
  [[nodiscard]] Offset entries() const {
    return distributed ? distributed->entries() : graph.nnz();
  }
  [[nodiscard]] bool was_symmetrised() const {
    return distributed ? distributed->was_symmetrised() : graph.was_symmetrised();
  }
  /// The whole graph here (baselines, reports). A distributed matrix is gathered on every rank
  /// by its first call, which is collective, and kept by the distributed input (no second copy).
  [[nodiscard]] const CommGraph& whole_graph() const {
    return distributed ? distributed->whole() : graph;
  }
};

/// Reads the placement (load_placement over options.comm), then the matrix; throws io::InputError
/// for anything wrong, including processes that do not fit the usable leaves (refused from the
/// matrix's header, before its rows are read). Under mpirun (options.comm with several ranks)
/// every rank calls it and a failure on any rank makes every rank throw the same io::AgreedError.
Inputs load_inputs(const InputOptions& options);

/// Reads options.matrix onto a placement loaded before (a batch loads one for every pattern):
/// with options.comm MPI_COMM_NULL this process reads alone and calls no MPI. Throws
/// io::InputError naming the matrix, as load_inputs does (too many processes from the header).
Inputs load_inputs(const InputOptions& options, const Placement& placement);

}  // namespace treematch::apps
