// In-job rank reordering (seed paper, Appendix C): a communicator whose ranks follow TreeMatch.
#pragma once

#include <mpi.h>

#include <optional>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/allocation_topology.h"
#include "src/model/comm_graph.h"
#include "src/model/context.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch::distributed {

/// A reorder failed. Every rank of the communicator throws it, with the same message and code
/// (the failure of the lowest failing rank), so a caller never hangs in a later collective.
class ReorderError : public std::runtime_error {
 public:
  ReorderError(const std::string& message, int error_class, bool origin)
      : std::runtime_error(message), error_class_(error_class), origin_(origin) {}
  /// MPI_ERR_ARG (bad input), MPI_ERR_NO_MEM (out of memory) or MPI_ERR_OTHER.
  [[nodiscard]] int error_class() const { return error_class_; }
  /// True on exactly one rank: the one that should print the message.
  [[nodiscard]] bool origin() const { return origin_; }

 private:
  int error_class_;
  bool origin_;
};

/// A communicator freed (MPI_Comm_free) when this object dies, unless released. Move-only.
class Communicator {
 public:
  Communicator() = default;
  explicit Communicator(MPI_Comm comm) : comm_(comm) {}
  ~Communicator();
  Communicator(Communicator&& other) noexcept : comm_(other.release()) {}
  Communicator& operator=(Communicator&& other) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  [[nodiscard]] MPI_Comm get() const { return comm_; }
  /// Gives up ownership: the caller frees the returned communicator.
  MPI_Comm release() {
    const MPI_Comm comm = comm_;
    comm_ = MPI_COMM_NULL;
    return comm;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// Collective over `comm` (an intracommunicator): if any rank passes a non-empty `problem`, every
/// rank throws ReorderError with the problem of the lowest such rank (prefixed "rank <r>: " when
/// `comm` has several ranks) and `error_class`. For callers that check their own input before
/// calling a reorder (the C API checks its raw arrays so that no rank reads out of bounds).
void agree_on_problem(MPI_Comm comm, const std::string& problem, int error_class = MPI_ERR_ARG);

/// Where one process of the communicator sits.
struct ProcessPlace {
  Index node = 0;  ///< node slot in the allocation topology
  Index pu = 0;    ///< OS index of its PU on that node (this_thread_pu())
};

/// The slots the running processes occupy, as a topology TreeMatch maps onto.
///
/// The tree is the allocation topology (all the PUs the job may use on every node, see
/// allocation_topology.h) with one more bottom level of arity `per_pu` = the largest number of
/// processes sharing one PU (Topology::with_oversubscription; no extra level when 1): virtual leaf
/// v sits on PU leaf v / per_pu. The processes on PU leaf l, in increasing old rank, occupy the
/// virtual leaves l * per_pu + 0, 1, ...; `allowed_leaves` lists exactly these occupied leaves, so
/// TreeMatch places one process on each (empty when every leaf is occupied).
struct ReorderSlots {
  Topology topology;
  Index per_pu = 1;
  std::vector<Index> allowed_leaves;  ///< sorted; empty = every leaf of `topology`
  std::vector<Index> slot_of_rank;    ///< leaf of `topology` occupied by old rank r
};

/// Pure: the slots of processes at `places` (one per old rank) in `allocation`. Throws
/// std::invalid_argument naming the rank when a PU is not a leaf of the allocation's node tree or
/// a node is outside it.
ReorderSlots occupied_slots(const AllocationTopology& allocation,
                            const std::vector<ProcessPlace>& places);

/// The Context TreeMatch runs with for `slots`: `base` with placement.oversubscribe = 1 and
/// placement.allowed_leaves = slots.allowed_leaves.
Context reorder_context(const ReorderSlots& slots, Context base);

/// Pure: the new rank of each old rank. TreeMatch's mapping says "application rank k should run on
/// slot mapping.leaf_of_rank[k]"; the processes are already placed, so the process occupying that
/// slot becomes new rank k: new_rank_of_old[r] = k where mapping.leaf_of_rank[k] =
/// slots.slot_of_rank[r]. Throws std::logic_error unless the mapping is a bijection onto the
/// occupied slots.
std::vector<int> new_ranks(const ReorderSlots& slots, const Mapping& mapping);

struct ReorderOptions {
  Context context = default_context();  ///< placement is set by reorder_context
  NetworkShape network;                 ///< above the nodes; flat by default
  /// The machine to map onto instead of the allocation: rank r sits on its leaf r (a launcher's
  /// default placement; at least as many leaves as ranks). For tests on a small machine and for
  /// callers that know the placement better than hwloc does.
  std::optional<Topology> topology;
};

/// What a reorder computed; identical on every rank except `comm` and `new_rank`.
struct ReorderResult {
  Communicator comm;                 ///< the reordered communicator (same group as the input one)
  int new_rank = 0;                  ///< this process's rank in `comm`
  std::vector<int> new_rank_of_old;  ///< per rank r of the input communicator, its rank in `comm`
  ReorderSlots slots;                ///< where the processes sit, the tree TreeMatch mapped onto
  Mapping mapping;  ///< TreeMatch: new rank k on slot mapping.leaf_of_rank[k] of slots.topology
};

/// Collective over `comm` (an intracommunicator). Takes what MPI_Dist_graph_create takes: this
/// process describes `sources.size()` source ranks; source sources[i] sends to the next degrees[i]
/// entries of `destinations`, with the matching `weights` (empty = every edge weighs 1, as
/// MPI_UNWEIGHTED). Any rank may describe any edge; the edges of all ranks are gathered on rank 0
/// and summed into the matrix C (C[s][d] += w; self-edges ignored; TreeMatch maps C + C^T).
///
/// Then: the allocation topology (gather_allocation_topology with options.network); each process
/// reports its PU (this_thread_pu: its binding, or where it runs when unbound) and the slots are
/// built (occupied_slots); rank 0 maps C onto them (treematch_map with reorder_context) and
/// broadcasts the mapping; every rank computes new_ranks and MPI_Comm_split(comm, 0, new rank)
/// makes the result: new rank k runs where TreeMatch put application rank k.
///
/// Throws ReorderError on every rank when any rank fails (bad ranks, negative degrees or weights,
/// mismatched sizes, nodes that differ, ...); MpiError when an MPI call itself fails.
ReorderResult reorder_dist_graph(MPI_Comm comm, std::span<const int> sources,
                                 std::span<const int> degrees, std::span<const int> destinations,
                                 std::span<const int> weights, const ReorderOptions& options = {});

/// As reorder_dist_graph, the matrix read on rank 0 from `path` (io::read_matrix: any format the
/// treematch command reads) with `metric` ("size", "msg" or "avg"); `path` and `metric` matter on
/// rank 0 only. The matrix must have as many processes as `comm` has ranks.
ReorderResult reorder_matrix_file(MPI_Comm comm, const std::string& path, const std::string& metric,
                                  const ReorderOptions& options = {});

/// As reorder_dist_graph with the matrix given as a graph; only rank 0's `graph` is used (the
/// others may pass an empty one). It must have as many processes as `comm` has ranks.
ReorderResult reorder_graph(MPI_Comm comm, const CommGraph& graph,
                            const ReorderOptions& options = {});

}  // namespace treematch::distributed
