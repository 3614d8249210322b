// A running job's machines as one Topology: hwloc node trees, gathered over MPI, under a network.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "src/topology.h"

namespace treematch::distributed {

/// The network above the nodes: `switches` switches holding `nodes_per_switch` node slots each, or
/// flat (`switches` == 0: one level whose children are the nodes).
struct NetworkShape {
  Index switches = 0;  ///< 0 = flat
  Index nodes_per_switch = 0;
};

/// "" or "flat" = flat; "S:N" = S switches of N node slots each (both >= 1). Throws
/// io::InputError("--network", ...) for anything else.
NetworkShape parse_network(const std::string& text);

/// What one node offers the job: its host name and the tree of the PUs the job may use there
/// (hwloc's allowed cpuset), leaves carrying the node's own PU OS indexes, machine_level() 0.
struct NodeDescription {
  std::string host;
  Topology topology;
};

/// The job's machines as one tree.
struct AllocationTopology {
  /// Network levels (link cost 1, named "Switch" and "Node", or "Node" when flat) above the node
  /// tree, every node slot a copy of `node`. machine_level() = the network levels (0 for a single
  /// flat node, whose arity-1 level is dropped). Node slot m holds the logical leaves
  /// [m * L, (m + 1) * L) with L = node.leaf_count(); their OS indexes are m * S + the node's own
  /// OS index, S = the node's largest OS index + 1 (distinct across the tree; the mapping writer
  /// subtracts each machine's smallest OS index, see io/mapping_writer.h).
  Topology topology;
  /// The tree of one node (all nodes are identical, see check_nodes_match).
  Topology node;
  /// Host name per node slot of `topology`, in tree order: the real nodes first, then
  /// "unused-slot-<m>" for the slots a network has beyond the node count (no rank goes there).
  std::vector<std::string> hosts;
  /// Logical leaves of the real nodes, sorted, when the network has more node slots than nodes;
  /// empty when every leaf belongs to a node.
  std::vector<Index> allowed_leaves;
  /// Number of real nodes (they occupy slots 0 .. nodes - 1).
  Index nodes = 1;
  /// Per rank of the communicator the allocation was gathered on, the node slot it runs on ({0}
  /// without MPI).
  std::vector<Index> node_of_rank{0};
};

/// Throws io::InputError("allocation", ...) unless every node has the same tree shape and the same
/// leaf OS indexes, naming the odd node (the first one that differs from the most common
/// description, ties going to the earliest node) and one node with the common description:
///   "node 'x' has 2x8 cores, node 'y' 2x12";
///   "node 'x' has cores 8-15, node 'y' cores 0-7 (the job must get the same cores on every node)".
/// Also throws when two nodes report the same host name or `nodes` is empty.
void check_nodes_match(const std::vector<NodeDescription>& nodes);

/// The cluster tree of `nodes` (in this order) under `network`. Calls check_nodes_match first.
/// Throws io::InputError("--network", ...) when the network has fewer node slots than nodes.
/// Pure: no MPI, no hwloc.
AllocationTopology build_allocation_topology(const std::vector<NodeDescription>& nodes,
                                             const NetworkShape& network);

/// This machine as the one node of a job: hwloc's default load (the PUs this process is allowed to
/// use: the job's cgroup/cpuset) and gethostname().
NodeDescription describe_this_node();

/// Collective over `comm`: the ranks split by node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED);
/// the lowest rank of each node describes it (describe_this_node); the descriptions travel to
/// every rank (MPI_Allgatherv), which builds the same AllocationTopology. Nodes are ordered by
/// their lowest rank in `comm`. A node that cannot be described, or nodes that differ, make every
/// rank throw the same exception (io::InputError for a mismatch, std::runtime_error naming the
/// node otherwise); a failed MPI call throws MpiError.
AllocationTopology gather_allocation_topology(MPI_Comm comm, const NetworkShape& network);

/// gather_allocation_topology(MPI_COMM_WORLD, network) when MPI is initialised (and not
/// finalised); otherwise this machine as the one node.
AllocationTopology read_allocation_topology(const NetworkShape& network);

/// The OS index of the PU the calling thread runs on: the PU of its binding
/// (hwloc_get_cpubind) when bound to a single PU, otherwise (unbound, or bound to several PUs)
/// the PU it last ran on (hwloc_get_last_cpu_location). Throws io::HwlocError naming the call.
Index this_thread_pu();

}  // namespace treematch::distributed
