// MPI's own reorder hook made real: the four topology constructors with reorder true return a
// communicator whose rank order follows TreeMatch's mapping of the graph they were given.
//
// Defined in libtreematch_reorder.so, these MPI_ functions take the place of the MPI library's
// when the library is linked or preloaded; reorder false, intercommunicators and descriptions MPI
// itself must refuse go straight to the PMPI_ versions. With reorder true the graph is mapped
// (reorder_dist_graph: onto the allocation, or onto TREEMATCH_REORDER_TOPOLOGY when set) and the
// PMPI_ constructor runs on the reordered communicator with reorder false.
//
// A topology's vertices are ranks of the new communicator: vertex k is whichever process gets
// rank k. Graph_create, Cart_create and Dist_graph_create describe vertices, so their arguments
// pass through unchanged. Dist_graph_create_adjacent describes the caller's own vertex: the
// lists of vertex o (held by old rank o) move to the process that gets rank o, so that a role
// moves closer to its partners (renaming the neighbours instead would leave every role where it
// was, and reordering would gain nothing).
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apps/reorder/reorder.h"
#include "apps/reorder/reorder_c_guard.h"
#include "apps/reorder/treematch_reorder.h"
#include "io/topology_reader.h"
#include "src/mpi/mpi_environment.h"

namespace {

using treematch::distributed::Communicator;
using treematch::distributed::DistGraphArrays;
using treematch::distributed::ReorderOptions;
using treematch::distributed::ReorderResult;

/// The options of an intercepted reorder: TREEMATCH_REORDER_TOPOLOGY names the machine (any
/// --topology form but `allocation`: rank r on its leaf r), else the allocation.
ReorderOptions interception_options() {
  ReorderOptions options;
  const char* topology = std::getenv("TREEMATCH_REORDER_TOPOLOGY");
  if (topology != nullptr && *topology != '\0') {
    options.topology = treematch::io::read_topology(topology);
  }
  return options;
}

bool is_intercommunicator(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter != 0;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

/// Edges of one rank's description built here, as reorder_dist_graph takes them.
struct Description {
  std::vector<int> sources;
  std::vector<int> degrees;
  std::vector<int> destinations;
  std::vector<int> weights;  ///< empty: every edge weighs 1

  [[nodiscard]] DistGraphArrays arrays() const { return {sources, degrees, destinations, weights}; }
};

/// Maps the graph the ranks describe; every rank gets the reordered communicator (or the same
/// ReorderError).
ReorderResult reordered(MPI_Comm comm, const DistGraphArrays& d) {
  ReorderOptions options;
  std::string problem;
  try {
    options = interception_options();
  } catch (const std::exception& error) {
    problem = std::string("TREEMATCH_REORDER_TOPOLOGY: ") + error.what();
  }
  treematch::distributed::agree_on_problem(comm, problem);
  return treematch::distributed::reorder_dist_graph(comm, d.sources, d.degrees, d.destinations,
                                                    d.weights, options);
}

/// The nearest-neighbour graph of a Cartesian grid (row-major, as MPI numbers it), on rank 0.
Description grid_graph(MPI_Comm comm, int ndims, const int dims[], const int periods[]) {
  Description d;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return d;
  std::int64_t cells = 1;
  for (int i = 0; i < ndims; ++i) cells *= dims[i];
  std::vector<int> coords(static_cast<std::size_t>(ndims));
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    std::int64_t rest = cell;
    for (int i = ndims - 1; i >= 0; --i) {
      coords[static_cast<std::size_t>(i)] = static_cast<int>(rest % dims[i]);
      rest /= dims[i];
    }
    int degree = 0;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] == 1) continue;
      for (const int step : {-1, 1}) {
        int c = coords[static_cast<std::size_t>(i)] + step;
        if (c < 0 || c >= dims[i]) {
          if (periods[i] == 0) continue;
          c = (c + dims[i]) % dims[i];
        }
        std::int64_t neighbour = 0;
        for (int j = 0; j < ndims; ++j) {
          neighbour = neighbour * dims[j] + (j == i ? c : coords[static_cast<std::size_t>(j)]);
        }
        d.destinations.push_back(static_cast<int>(neighbour));
        ++degree;
      }
    }
    d.sources.push_back(static_cast<int>(cell));
    d.degrees.push_back(degree);
  }
  return d;
}

/// Whether a Cartesian description is one MPI accepts and has cells to map (else MPI decides).
bool valid_grid(MPI_Comm comm, int ndims, const int dims[], const int periods[]) {
  if (ndims <= 0 || dims == nullptr || periods == nullptr) return false;
  std::int64_t cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return false;
    cells *= dims[i];
    if (cells > size_of(comm)) return false;
  }
  return true;
}

/// Whether a graph description (MPI_Graph_create's) is one MPI accepts (else MPI decides).
bool valid_graph(MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
  if (nnodes <= 0 || nnodes > size_of(comm) || index == nullptr) return false;
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous) return false;
    previous = index[i];
  }
  if (previous > 0 && edges == nullptr) return false;
  for (int e = 0; e < previous; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) return false;
  }
  return true;
}

/// The global graph of MPI_Graph_create, on rank 0.
Description graph_description(MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
  Description d;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return d;
  for (int i = 0; i < nnodes; ++i) {
    const int first = i == 0 ? 0 : index[i - 1];
    d.sources.push_back(i);
    d.degrees.push_back(index[i] - first);
    for (int e = first; e < index[i]; ++e) d.destinations.push_back(edges[e]);
  }
  return d;
}

/// One vertex's adjacency as Dist_graph_create_adjacent takes it.
struct Adjacency {
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> destination_weights;
  bool weighted = false;
};

/// `mine` sent to old rank `to`, the adjacency old rank `from` sends here received (over `comm`).
Adjacency exchanged(MPI_Comm comm, const Adjacency& mine, int to, int from) {
  std::vector<int> packed{static_cast<int>(mine.sources.size()),
                          static_cast<int>(mine.destinations.size()), mine.weighted ? 1 : 0};
  for (const std::vector<int>* part :
       {&mine.sources, &mine.source_weights, &mine.destinations, &mine.destination_weights}) {
    packed.insert(packed.end(), part->begin(), part->end());
  }
  int count = static_cast<int>(packed.size());
  int incoming = 0;
  treematch::distributed::check_mpi(MPI_Sendrecv(&count, 1, MPI_INT, to, 0, &incoming, 1, MPI_INT,
                                                 from, 0, comm, MPI_STATUS_IGNORE),
                                    "MPI_Sendrecv");
  std::vector<int> got(static_cast<std::size_t>(incoming));
  treematch::distributed::check_mpi(
      MPI_Sendrecv(packed.data(), count, MPI_INT, to, 1, got.data(), incoming, MPI_INT, from, 1,
                   comm, MPI_STATUS_IGNORE),
      "MPI_Sendrecv");
  Adjacency theirs;
  const auto in = static_cast<std::size_t>(got[0]);
  const auto out = static_cast<std::size_t>(got[1]);
  theirs.weighted = got[2] != 0;
  auto at = got.begin() + 3;
  const auto take = [&](std::vector<int>& into, std::size_t n) {
    into.assign(at, at + static_cast<std::ptrdiff_t>(n));
    at += static_cast<std::ptrdiff_t>(n);
  };
  take(theirs.sources, in);
  take(theirs.source_weights, theirs.weighted ? in : 0);
  take(theirs.destinations, out);
  take(theirs.destination_weights, theirs.weighted ? out : 0);
  return theirs;
}

/// The weights argument for `weights`: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY or the array.
const int* weights_of(bool weighted, const std::vector<int>& weights) {
  if (!weighted) return MPI_UNWEIGHTED;
  return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}

/// A topology communicator made by `create` on the reordered communicator, which is freed.
template <class Create>
Communicator made_on(ReorderResult& result, Create&& create) {
  MPI_Comm made = MPI_COMM_NULL;
  treematch::distributed::check_mpi(create(result.comm.get(), &made), "the PMPI constructor");
  return Communicator(made);
}

}  // namespace

extern "C" TREEMATCH_REORDER_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                                                        const int periods[], int reorder,
                                                        MPI_Comm* comm_cart) {
  if (reorder == 0 || is_intercommunicator(comm) || !valid_grid(comm, ndims, dims, periods)) {
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
  }
  return treematch::distributed::guarded("MPI_Cart_create", comm, comm_cart, [&] {
    ReorderResult result = reordered(comm, grid_graph(comm, ndims, dims, periods).arrays());
    return made_on(result, [&](MPI_Comm on, MPI_Comm* made) {
      return PMPI_Cart_create(on, ndims, dims, periods, 0, made);
    });
  });
}

extern "C" TREEMATCH_REORDER_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes,
                                                         const int index[], const int edges[],
                                                         int reorder, MPI_Comm* comm_graph) {
  if (reorder == 0 || is_intercommunicator(comm) || !valid_graph(comm, nnodes, index, edges)) {
    return PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
  }
  return treematch::distributed::guarded("MPI_Graph_create", comm, comm_graph, [&] {
    ReorderResult result = reordered(comm, graph_description(comm, nnodes, index, edges).arrays());
    return made_on(result, [&](MPI_Comm on, MPI_Comm* made) {
      return PMPI_Graph_create(on, nnodes, index, edges, 0, made);
    });
  });
}

extern "C" TREEMATCH_REORDER_EXPORT int MPI_Dist_graph_create(
    MPI_Comm comm, int n, const int nodes[], const int degrees[], const int targets[],
    const int weights[], MPI_Info info, int reorder, MPI_Comm* newcomm) {
  if (reorder == 0 || is_intercommunicator(comm)) {
    return PMPI_Dist_graph_create(comm, n, nodes, degrees, targets, weights, info, reorder,
                                  newcomm);
  }
  return treematch::distributed::guarded("MPI_Dist_graph_create", comm, newcomm, [&] {
    const DistGraphArrays d =
        treematch::distributed::checked_dist_graph(comm, n, nodes, degrees, targets, weights);
    ReorderResult result = reordered(comm, d);
    return made_on(result, [&](MPI_Comm on, MPI_Comm* made) {
      return PMPI_Dist_graph_create(on, n, nodes, degrees, targets, weights, info, 0, made);
    });
  });
}

extern "C" TREEMATCH_REORDER_EXPORT int MPI_Dist_graph_create_adjacent(
    MPI_Comm comm, int indegree, const int sources[], const int sourceweights[], int outdegree,
    const int destinations[], const int destweights[], MPI_Info info, int reorder,
    MPI_Comm* comm_dist_graph) {
  if (reorder == 0 || is_intercommunicator(comm)) {
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                           destinations, destweights, info, reorder,
                                           comm_dist_graph);
  }
  return treematch::distributed::guarded(
      "MPI_Dist_graph_create_adjacent", comm, comm_dist_graph, [&] {
        std::string problem;
        if (indegree < 0 || outdegree < 0 || (indegree > 0 && sources == nullptr) ||
            (outdegree > 0 && destinations == nullptr)) {
          problem = "bad degrees or NULL neighbour lists";
        }
        treematch::distributed::agree_on_problem(comm, problem);
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        Adjacency mine;
        mine.weighted = !treematch::distributed::unweighted(sourceweights) &&
                        !treematch::distributed::unweighted(destweights);
        mine.sources.assign(sources, sources + indegree);
        mine.destinations.assign(destinations, destinations + outdegree);
        if (mine.weighted) {
          mine.source_weights.assign(sourceweights, sourceweights + indegree);
          mine.destination_weights.assign(destweights, destweights + outdegree);
        }
        // The edges leaving this vertex are the graph (each once: the in-lists repeat them).
        Description d;
        d.sources = {rank};
        d.degrees = {outdegree};
        d.destinations = mine.destinations;
        d.weights = mine.destination_weights;
        ReorderResult result = reordered(comm, d.arrays());
        // Vertex `rank`'s lists go to the process that got rank `rank`; this one serves vertex
        // new_rank_of_old[rank], whose lists old rank new_rank_of_old[rank] holds.
        std::vector<int> old_of_new(result.new_rank_of_old.size());
        for (std::size_t r = 0; r < old_of_new.size(); ++r) {
          old_of_new[static_cast<std::size_t>(result.new_rank_of_old[r])] = static_cast<int>(r);
        }
        const Adjacency served = exchanged(comm, mine, old_of_new[static_cast<std::size_t>(rank)],
                                           result.new_rank_of_old[static_cast<std::size_t>(rank)]);
        return made_on(result, [&](MPI_Comm on, MPI_Comm* made) {
          return PMPI_Dist_graph_create_adjacent(
              on, static_cast<int>(served.sources.size()), served.sources.data(),
              weights_of(served.weighted, served.source_weights),
              static_cast<int>(served.destinations.size()), served.destinations.data(),
              weights_of(served.weighted, served.destination_weights), info, 0, made);
        });
      });
}
