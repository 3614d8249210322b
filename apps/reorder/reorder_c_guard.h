// The C entry points' guard (exceptions become MPI error classes and one line on stderr) and the
// check of a graph given as C arrays.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iostream>
#include <new>
#include <span>
#include <string>

#include "apps/reorder/reorder.h"

namespace treematch::distributed {

/// The communicator a guarded call made, given up to the caller.
inline MPI_Comm released(ReorderResult& result) {
  return result.comm.release();
}
inline MPI_Comm released(Communicator& comm) {
  return comm.release();
}

/// Runs `body` (returning nothing) behind the C API's checks: MPI initialised, `comm` not
/// MPI_COMM_NULL; any exception becomes an error class and one line on stderr naming `function`
/// (a ReorderError's line from the rank it names only). Returns MPI_SUCCESS when `body` returned.
template <class Body>
inline int guarded_call(const char* function, MPI_Comm comm, Body&& body) noexcept {
  try {
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized == 0 || finalized != 0) {
      std::cerr << function << ": MPI is not initialised (call MPI_Init first)\n";
      return MPI_ERR_OTHER;
    }
    if (comm == MPI_COMM_NULL) {
      std::cerr << function << ": the communicator is MPI_COMM_NULL\n";
      return MPI_ERR_COMM;
    }
    body();
    return MPI_SUCCESS;
  } catch (const ReorderError& error) {
    if (error.origin()) std::cerr << function << ": " << error.what() << '\n';
    return error.error_class();
  } catch (const std::bad_alloc&) {
    std::cerr << function << ": out of memory\n";
    return MPI_ERR_NO_MEM;
  } catch (const std::exception& error) {
    std::cerr << function << ": " << error.what() << '\n';
    return MPI_ERR_OTHER;
  } catch (...) {
    std::cerr << function << ": unknown error\n";
    return MPI_ERR_OTHER;
  }
}

/// Runs `reorder` (returning a ReorderResult or a Communicator) and hands its communicator to the
/// caller; nothing escapes but an error class. Every entry point starts with agree_on_problem, so a
/// rank that found a problem here (a NULL `reordered`) still meets the others in that first
/// collective and all of them fail together.
template <class Reorder>
inline int guarded(const char* function, MPI_Comm comm, MPI_Comm* reordered,
                   Reorder&& reorder) noexcept {
  if (reordered != nullptr) *reordered = MPI_COMM_NULL;
  return guarded_call(function, comm, [&] {
    if (reordered == nullptr) {
      agree_on_problem(comm, "the `reordered` argument is NULL");
    }
    auto made = reorder();
    *reordered = released(made);
  });
}

/// True for the weights arguments MPI reads as "every edge weighs 1".
inline bool unweighted(const int weights[]) {
  return weights == nullptr || weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY;
}

/// `count` entries at `data` (none when data is NULL or count is 0).
inline std::span<const int> entries(const int* data, std::int64_t count) {
  if (data == nullptr || count <= 0) return {};
  return {data, static_cast<std::size_t>(count)};
}

/// One rank's part of a graph as MPI_Dist_graph_create takes it (weights empty: unweighted).
struct DistGraphArrays {
  std::span<const int> sources;
  std::span<const int> degrees;
  std::span<const int> destinations;
  std::span<const int> weights;
};

/// The C arrays of MPI_Dist_graph_create's description, checked before any is read past n: a bad
/// n, a negative degree or a NULL array must neither make this rank read out of bounds nor leave
/// the others waiting in a collective, so every rank learns of it (ReorderError on all).
inline DistGraphArrays checked_dist_graph(MPI_Comm comm, int n, const int sources[],
                                          const int degrees[], const int destinations[],
                                          const int weights[]) {
  std::string problem;
  std::int64_t edges = 0;
  if (n < 0) {
    problem = "n is " + std::to_string(n) + "; it must be >= 0";
  } else if (n > 0 && (sources == nullptr || degrees == nullptr)) {
    problem = "n is " + std::to_string(n) + " but sources or degrees is NULL";
  } else {
    for (int i = 0; i < n && problem.empty(); ++i) {
      if (degrees[i] < 0) {
        problem = "degrees[" + std::to_string(i) + "] is " + std::to_string(degrees[i]) +
                  "; degrees must be >= 0";
      }
      edges += degrees[i];
    }
    if (problem.empty() && edges > 0 && destinations == nullptr) {
      problem = "the degrees sum to " + std::to_string(edges) + " but destinations is NULL";
    }
  }
  agree_on_problem(comm, problem);
  return DistGraphArrays{entries(sources, n), entries(degrees, n), entries(destinations, edges),
                         unweighted(weights) ? std::span<const int>{} : entries(weights, edges)};
}

}  // namespace treematch::distributed
