// The options and loading shared by every command: matrix, topology, placement constraints.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/mapping_writer.h"
#include "io/matrix_reader.h"
#include "src/comm_graph.h"
#include "src/topology.h"

namespace treematch::apps {

struct InputOptions {
  std::string matrix;
  std::string topology;  ///< empty = this machine; "allocation" = the nodes of this (MPI) job
  std::string network;   ///< with --topology allocation: "S:N" switches x nodes, or flat
  std::string metric = "size";
  std::string numbering = "logical";
  std::string cores;  ///< --cores list or file; empty = all leaves
  int oversubscribe = 1;
  int node_size = 0;  ///< leaves per machine, 0 = from the topology
  int threads = 0;
};

/// Registers --matrix, --topology, --metric, --numbering, --cores, --oversubscribe, --node-size
/// and --threads on `command`.
void add_input_options(CLI::App& command, InputOptions& options);

/// What the options denote, read and checked.
struct Inputs {
  CommGraph graph;
  Topology topology;
  std::vector<Index> allowed_leaves;  ///< logical, sorted; empty = all
  std::vector<std::string> hosts;     ///< per machine, from --topology allocation; else empty
  io::Numbering numbering = io::Numbering::kLogical;
  double read_seconds = 0.0;
  double topology_seconds = 0.0;
};

/// Reads the matrix and the topology; throws io::InputError for anything wrong, including
/// processes that do not fit the usable leaves.
Inputs load_inputs(const InputOptions& options);

}  // namespace treematch::apps
