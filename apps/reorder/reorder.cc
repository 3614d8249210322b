// In-job rank reordering: gather the pattern and the processes' places, map on rank 0, split.
#include "apps/reorder/reorder.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/agreement.h"
#include "io/input_error.h"
#include "io/matrix_reader.h"
#include "io/process_binding.h"
#include "src/driver/treematch.h"
#include "src/mpi/mpi_environment.h"

namespace treematch::distributed {
namespace {

constexpr int kRoot = 0;

struct Ranks {
  int rank = 0;
  int size = 1;
};

Ranks ranks_of(MPI_Comm comm) {
  Ranks ranks;
  check_mpi(MPI_Comm_rank(comm, &ranks.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &ranks.size), "MPI_Comm_size");
  return ranks;
}

/// Every rank learns whether any rank failed; then all throw the lowest failing rank's error.
void agree(MPI_Comm comm, int error_class, const std::string& message) {
  const Ranks me = ranks_of(comm);
  const std::string text =
      error_class == MPI_SUCCESS
          ? std::string()
          : (me.size > 1 ? "rank " + std::to_string(me.rank) + ": " : "") + message;
  const std::optional<io::RankFailure> failure = io::lowest_failure(comm, error_class, text);
  if (failure) throw ReorderError(failure->message, failure->code, me.rank == failure->rank);
}

/// Runs `step` on every rank of `comm`, then agree()s on its outcome: a failure on any rank (an
/// exception) becomes the same ReorderError on every rank.
template <class Step>
void collective(MPI_Comm comm, Step&& step) {
  int error_class = MPI_SUCCESS;
  std::string message;
  try {
    step();
  } catch (const ReorderError& error) {
    error_class = error.error_class();
    message = error.what();
  } catch (const io::InputError& error) {
    error_class = MPI_ERR_ARG;
    message = error.what();
  } catch (const std::invalid_argument& error) {
    error_class = MPI_ERR_ARG;
    message = error.what();
  } catch (const std::bad_alloc&) {
    error_class = MPI_ERR_NO_MEM;
    message = "out of memory";
  } catch (const std::exception& error) {
    error_class = MPI_ERR_OTHER;
    message = error.what();
  }
  agree(comm, error_class, message);
}

/// This rank's part of the distributed graph as (source, destination, weight) triples, checked.
std::vector<int> local_edges(std::span<const int> sources, std::span<const int> degrees,
                             std::span<const int> destinations, std::span<const int> weights,
                             int size) {
  if (degrees.size() != sources.size()) {
    throw std::invalid_argument(std::to_string(sources.size()) + " sources but " +
                                std::to_string(degrees.size()) + " degrees");
  }
  std::int64_t edges = 0;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    if (degrees[i] < 0) {
      throw std::invalid_argument("degrees[" + std::to_string(i) + "] is " +
                                  std::to_string(degrees[i]) + "; degrees must be >= 0");
    }
    edges += degrees[i];
  }
  if (static_cast<std::int64_t>(destinations.size()) != edges) {
    throw std::invalid_argument("the degrees sum to " + std::to_string(edges) + " but " +
                                std::to_string(destinations.size()) + " destinations are given");
  }
  if (!weights.empty() && weights.size() != destinations.size()) {
    throw std::invalid_argument(std::to_string(weights.size()) + " weights for " +
                                std::to_string(destinations.size()) + " destinations");
  }
  if (3 * edges > INT_MAX) throw std::invalid_argument("more than 2^31 / 3 edges on one rank");
  const auto check_rank = [size](const char* what, std::size_t i, int value) {
    if (value < 0 || value >= size) {
      throw std::invalid_argument(
          std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(value) +
          " is not a rank of the communicator (" + std::to_string(size) + " ranks)");
    }
  };
  std::vector<int> triples;
  triples.reserve(static_cast<std::size_t>(3 * edges));
  std::size_t e = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    check_rank("sources", i, sources[i]);
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      check_rank("destinations", e, destinations[e]);
      const int weight = weights.empty() ? 1 : weights[e];
      if (weight < 0) {
        throw std::invalid_argument("weights[" + std::to_string(e) + "] is " +
                                    std::to_string(weight) + "; weights must be >= 0");
      }
      triples.insert(triples.end(), {sources[i], destinations[e], weight});
    }
  }
  return triples;
}

/// The distributed graph gathered on the root as a CommGraph (empty elsewhere).
CommGraph gather_graph(MPI_Comm comm, std::span<const int> sources, std::span<const int> degrees,
                       std::span<const int> destinations, std::span<const int> weights) {
  const Ranks me = ranks_of(comm);
  std::vector<int> triples;
  collective(comm,
             [&] { triples = local_edges(sources, degrees, destinations, weights, me.size); });

  const int count = static_cast<int>(triples.size());
  std::vector<int> counts(me.rank == kRoot ? static_cast<std::size_t>(me.size) : 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, kRoot, comm), "MPI_Gather");
  std::vector<int> displacements(counts.size(), 0);
  std::vector<int> all;
  collective(comm, [&] {
    std::int64_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displacements[r] = static_cast<int>(std::min<std::int64_t>(total, INT_MAX));
      total += counts[r];
    }
    if (total > INT_MAX) {
      throw std::invalid_argument("the ranks describe more than 2^31 / 3 edges in all");
    }
    all.resize(static_cast<std::size_t>(total));
  });
  check_mpi(MPI_Gatherv(triples.data(), count, MPI_INT, all.data(), counts.data(),
                        displacements.data(), MPI_INT, kRoot, comm),
            "MPI_Gatherv");

  CommGraph graph;
  collective(comm, [&] {
    if (me.rank != kRoot) return;
    std::vector<Triplet> entries;
    entries.reserve(all.size() / 3);
    for (std::size_t i = 0; i + 2 < all.size(); i += 3) {
      entries.push_back(Triplet{all[i], all[i + 1], static_cast<Weight>(all[i + 2])});
    }
    std::vector<int>().swap(all);
    graph = CommGraph::from_triplets(me.size, std::move(entries));
  });
  return graph;
}

/// Rank r on leaf r of `topology` (leaves beyond the ranks left empty).
ReorderSlots slots_in_rank_order(const Topology& topology, int ranks) {
  if (topology.leaf_count() < ranks) {
    throw std::invalid_argument("the topology " + topology.shape() + " has " +
                                std::to_string(topology.leaf_count()) + " leaves for " +
                                std::to_string(ranks) + " ranks");
  }
  ReorderSlots slots{topology, 1, {}, {}};
  for (Index r = 0; r < ranks; ++r) slots.slot_of_rank.push_back(r);
  if (topology.leaf_count() > ranks) slots.allowed_leaves = slots.slot_of_rank;
  return slots;
}

/// Everything after the matrix is on the root (and known good there).
ReorderResult reorder_with_root_graph(MPI_Comm comm, const CommGraph& graph,
                                      const ReorderOptions& options) {
  const Ranks me = ranks_of(comm);
  ReorderResult result;
  if (options.topology) {
    collective(comm, [&] { result.slots = slots_in_rank_order(*options.topology, me.size); });
  } else {
    AllocationTopology allocation;
    collective(comm, [&] { allocation = gather_allocation_topology(comm, options.network); });

    // Where every process sits: its node from the allocation, its PU from hwloc.
    int pu = 0;
    collective(comm, [&] { pu = static_cast<int>(io::this_thread_pu()); });
    std::vector<int> pus(static_cast<std::size_t>(me.size));
    check_mpi(MPI_Allgather(&pu, 1, MPI_INT, pus.data(), 1, MPI_INT, comm), "MPI_Allgather");
    std::vector<ProcessPlace> places(static_cast<std::size_t>(me.size));
    for (std::size_t r = 0; r < places.size(); ++r) {
      places[r] = ProcessPlace{allocation.node_of_rank[r], static_cast<Index>(pus[r])};
    }
    collective(comm, [&] { result.slots = occupied_slots(allocation, places); });
  }

  // Rank 0 maps; every rank receives TreeMatch's slot for each application rank.
  std::vector<int> leaf_of_rank(static_cast<std::size_t>(me.size), 0);
  collective(comm, [&] {
    if (me.rank != kRoot) return;
    if (graph.size() != me.size) {
      throw std::invalid_argument("the matrix has " + std::to_string(graph.size()) +
                                  " processes but the communicator has " + std::to_string(me.size) +
                                  " ranks");
    }
    const TreeMatchResult mapped =
        treematch_map(graph, result.slots.topology, reorder_context(result.slots, options.context));
    for (std::size_t k = 0; k < leaf_of_rank.size(); ++k) {
      leaf_of_rank[k] = static_cast<int>(mapped.mapping.leaf_of_rank[k]);
    }
  });
  check_mpi(MPI_Bcast(leaf_of_rank.data(), me.size, MPI_INT, kRoot, comm), "MPI_Bcast");
  result.mapping.leaf_of_rank.assign(leaf_of_rank.begin(), leaf_of_rank.end());

  collective(comm, [&] { result.new_rank_of_old = new_ranks(result.slots, result.mapping); });
  MPI_Comm reordered = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, /*color=*/0,
                           result.new_rank_of_old[static_cast<std::size_t>(me.rank)], &reordered),
            "MPI_Comm_split");
  result.comm = Communicator(reordered);
  check_mpi(MPI_Comm_rank(reordered, &result.new_rank), "MPI_Comm_rank");
  return result;
}

void check_intracommunicator(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw MpiError("treematch reorder: the communicator is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter != 0) {
    throw ReorderError("treematch reorder needs an intracommunicator", MPI_ERR_COMM, true);
  }
}

}  // namespace

Communicator::~Communicator() {
  if (comm_ == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Comm_free(&comm_);  // not checked: destructors do not throw
}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this != &other) {
    Communicator old(comm_);
    comm_ = other.release();
  }
  return *this;
}

void agree_on_problem(MPI_Comm comm, const std::string& problem, int error_class) {
  check_intracommunicator(comm);
  agree(comm, problem.empty() ? MPI_SUCCESS : error_class, problem);
}

ReorderSlots occupied_slots(const AllocationTopology& allocation,
                            const std::vector<ProcessPlace>& places) {
  const Topology& tree = allocation.topology;
  const Index node_slots = tree.leaf_count() / tree.leaves_per_machine();
  const Index stride = tree.machine_os_stride();
  // The leaf (a core, or a hardware thread) holding each PU of the allocation.
  std::vector<Index> leaf_of_cpu;
  for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    for (const Index cpu : tree.cpus(leaf)) {
      if (static_cast<std::size_t>(cpu) >= leaf_of_cpu.size())
        leaf_of_cpu.resize(static_cast<std::size_t>(cpu) + 1, -1);
      leaf_of_cpu[static_cast<std::size_t>(cpu)] = leaf;
    }
  }
  std::vector<Index> leaf_of_rank(places.size());
  std::vector<Index> sharing(static_cast<std::size_t>(tree.leaf_count()), 0);
  Index per_pu = 1;
  for (std::size_t r = 0; r < places.size(); ++r) {
    const ProcessPlace& place = places[r];
    if (place.node < 0 || place.node >= node_slots) {
      throw std::invalid_argument("rank " + std::to_string(r) + " is on node slot " +
                                  std::to_string(place.node) + " but the allocation has " +
                                  std::to_string(node_slots));
    }
    const std::int64_t cpu = static_cast<std::int64_t>(place.node) * stride + place.pu;
    const Index leaf = place.pu >= 0 && cpu < static_cast<std::int64_t>(leaf_of_cpu.size())
                           ? leaf_of_cpu[static_cast<std::size_t>(cpu)]
                           : -1;
    if (leaf < 0) {
      throw std::invalid_argument("rank " + std::to_string(r) + " runs on PU " +
                                  std::to_string(place.pu) + " of node '" +
                                  allocation.hosts[static_cast<std::size_t>(place.node)] +
                                  "', which is not among the PUs the job may use there");
    }
    leaf_of_rank[r] = leaf;
    per_pu = std::max(per_pu, ++sharing[static_cast<std::size_t>(leaf)]);
  }

  ReorderSlots slots;
  slots.per_pu = per_pu;
  slots.topology = tree.with_oversubscription(per_pu);
  slots.slot_of_rank.resize(places.size());
  std::vector<Index> taken(static_cast<std::size_t>(tree.leaf_count()), 0);
  std::vector<bool> occupied(static_cast<std::size_t>(slots.topology.leaf_count()), false);
  for (std::size_t r = 0; r < places.size(); ++r) {  // increasing old rank
    const Index leaf = leaf_of_rank[r];
    const Index slot = leaf * per_pu + taken[static_cast<std::size_t>(leaf)]++;
    slots.slot_of_rank[r] = slot;
    occupied[static_cast<std::size_t>(slot)] = true;
  }
  if (static_cast<Index>(places.size()) != slots.topology.leaf_count()) {
    for (Index slot = 0; slot < slots.topology.leaf_count(); ++slot) {
      if (occupied[static_cast<std::size_t>(slot)]) slots.allowed_leaves.push_back(slot);
    }
  }
  return slots;
}

Context reorder_context(const ReorderSlots& slots, Context base) {
  base.placement.oversubscribe = 1;
  base.placement.allowed_leaves = slots.allowed_leaves;
  return base;
}

std::vector<int> new_ranks(const ReorderSlots& slots, const Mapping& mapping) {
  const std::size_t p = slots.slot_of_rank.size();
  if (mapping.leaf_of_rank.size() != p) {
    throw std::logic_error("reorder: a mapping of " + std::to_string(mapping.leaf_of_rank.size()) +
                           " ranks for " + std::to_string(p) + " processes");
  }
  std::vector<int> owner(static_cast<std::size_t>(slots.topology.leaf_count()), -1);
  for (std::size_t r = 0; r < p; ++r) {
    owner[static_cast<std::size_t>(slots.slot_of_rank[r])] = static_cast<int>(r);
  }
  std::vector<int> new_rank_of_old(p, -1);
  for (std::size_t k = 0; k < p; ++k) {
    const Index slot = mapping.leaf_of_rank[k];
    const int old = slot >= 0 && slot < slots.topology.leaf_count()
                        ? owner[static_cast<std::size_t>(slot)]
                        : -1;
    if (old < 0 || new_rank_of_old[static_cast<std::size_t>(old)] != -1) {
      throw std::logic_error("reorder: TreeMatch put rank " + std::to_string(k) + " on slot " +
                             std::to_string(slot) +
                             ", which no process occupies or another rank already took");
    }
    new_rank_of_old[static_cast<std::size_t>(old)] = static_cast<int>(k);
  }
  return new_rank_of_old;
}

ReorderResult reorder_dist_graph(MPI_Comm comm, std::span<const int> sources,
                                 std::span<const int> degrees, std::span<const int> destinations,
                                 std::span<const int> weights, const ReorderOptions& options) {
  check_intracommunicator(comm);
  const CommGraph graph = gather_graph(comm, sources, degrees, destinations, weights);
  return reorder_with_root_graph(comm, graph, options);
}

ReorderResult reorder_matrix_file(MPI_Comm comm, const std::string& path, const std::string& metric,
                                  const ReorderOptions& options) {
  check_intracommunicator(comm);
  CommGraph graph;
  collective(comm, [&] {
    if (ranks_of(comm).rank == kRoot) graph = io::read_matrix(path, io::parse_metric(metric));
  });
  return reorder_with_root_graph(comm, graph, options);
}

ReorderResult reorder_graph(MPI_Comm comm, const CommGraph& graph, const ReorderOptions& options) {
  check_intracommunicator(comm);
  return reorder_with_root_graph(comm, graph, options);
}

}  // namespace treematch::distributed
