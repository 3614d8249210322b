// A running job's machines as one Topology: hwloc node trees, gathered over MPI, under a network.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "io/topology_options.h"
#include "src/tree/topology.h"

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

/// What one node offers the job: its host name and the tree of the cores (or PUs) the job may use
/// there (hwloc's allowed cpuset; a partial node is a tree with holes), leaves carrying the
/// node's own OS indexes and cpus, machine_level() 0.
struct NodeDescription {
  std::string host;
  Topology topology;
};

/// The job's machines as one tree.
struct AllocationTopology {
  /// Network levels (link cost 1, named "Switch" and "Node", or "Node" when flat) above the node
  /// trees, joined and balanced (src/tree/unbalanced_tree.h: join_trees, balanced_superset): nodes
  /// of different sizes or shapes, partial nodes and the spare node slots of a network are holes,
  /// never mapped onto. Node slot m holds the positions [m * L, (m + 1) * L), L =
  /// leaves_per_machine(); the real nodes occupy slots 0 .. nodes - 1 in order. OS indexes and
  /// cpus of node m are m * S + the node's own, S = machine_os_stride() (so the launcher outputs
  /// recover each node's own numbering, see io/mapping_writer.h).
  Topology topology;
  /// Host name per node slot of `topology`, in tree order: the real nodes first, then
  /// "unused-slot-<m>" for the slots a network has beyond the node count (no rank goes there).
  std::vector<std::string> hosts;
  /// Number of real nodes (they occupy slots 0 .. nodes - 1).
  Index nodes = 1;
  /// Per rank of the communicator the allocation was gathered on, the node slot it runs on ({0}
  /// without MPI).
  std::vector<Index> node_of_rank{0};
  /// Groups of nodes that Open MPI 4.1 takes for one topology (open_mpi_alike_nodes).
  std::vector<std::vector<std::string>> open_mpi_alike{};
};

/// The groups (2 nodes or more, host names in node order) of nodes that Open MPI 4.1's mpirun
/// would confuse: it keeps one topology per "signature", the counts of the usable objects of each
/// kind, so nodes with as many usable packages, cores and PUs as each other but other PUs (two
/// partial nodes of a batch allocation) share the topology of the first to report, and a
/// rankfile's slots on the others name that one's cores (bound wrongly or not at all). Counted on
/// the levels of the nodes' trees (levels matched by name). Pure.
std::vector<std::vector<std::string>> open_mpi_alike_nodes(
    const std::vector<NodeDescription>& nodes);

/// Throws io::InputError("allocation", ...) when two nodes report the same host name (the
/// outputs could not tell them apart) or `nodes` is empty. Nodes may differ in every other way.
void check_nodes_distinct(const std::vector<NodeDescription>& nodes);

/// The cluster tree of `nodes` (in this order) under `network`. Calls check_nodes_distinct first.
/// Throws io::InputError("--network", ...) when the network has fewer node slots than nodes.
/// Pure: no MPI, no hwloc.
AllocationTopology build_allocation_topology(const std::vector<NodeDescription>& nodes,
                                             const NetworkShape& network);

/// This machine as the one node of a job: hwloc's default load (the PUs this process is allowed to
/// use: the job's cgroup/cpuset), cores as leaves unless `options` says hardware threads, and
/// gethostname().
NodeDescription describe_this_node(const io::TopologyOptions& options = {});

/// Collective over `comm`: the ranks split by node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED);
/// the lowest rank of each node describes it (describe_this_node); the descriptions travel to
/// every rank (MPI_Allgatherv), which builds the same AllocationTopology. Nodes are ordered by
/// their lowest rank in `comm`. A node that cannot be described, or two nodes with one host name,
/// make every rank throw the same exception (io::InputError for a duplicate name,
/// std::runtime_error naming the node otherwise); a failed MPI call throws MpiError.
AllocationTopology gather_allocation_topology(MPI_Comm comm, const NetworkShape& network,
                                              const io::TopologyOptions& options = {});

/// gather_allocation_topology(MPI_COMM_WORLD, network) when MPI is initialised (and not
/// finalised); otherwise this machine as the one node.
AllocationTopology read_allocation_topology(const NetworkShape& network,
                                            const io::TopologyOptions& options = {});

/// The host name of this machine (gethostname). Throws std::system_error when it fails.
std::string this_host_name();

}  // namespace treematch::distributed
