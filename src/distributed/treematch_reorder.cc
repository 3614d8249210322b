// The C API over the C++ reorder: exceptions become MPI error classes and one line on stderr.
#include "src/distributed/treematch_reorder.h"

#include <cstdint>
#include <iostream>
#include <new>
#include <span>
#include <string>

#include "src/distributed/reorder.h"
#include "src/distributed/reorder_c_guard.h"

namespace {

using treematch::distributed::guarded;

/// `count` entries at `data` (none when data is NULL or count is 0).
std::span<const int> entries(const int* data, std::int64_t count) {
  if (data == nullptr || count <= 0) return {};
  return {data, static_cast<std::size_t>(count)};
}

}  // namespace

extern "C" int treematch_reorder_dist_graph(MPI_Comm comm, int n, const int sources[],
                                            const int degrees[], const int destinations[],
                                            const int weights[], MPI_Comm* reordered) {
  return guarded("treematch_reorder_dist_graph", comm, reordered, [&] {
    // Checked before the arrays are read past n: a bad n or degree must neither make this rank
    // read out of bounds nor leave the others waiting in a collective.
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
    // Every rank learns of a bad description before any array is read past what was checked.
    treematch::distributed::agree_on_problem(comm, problem);
    const bool unweighted =
        weights == nullptr || weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY;
    return treematch::distributed::reorder_dist_graph(
        comm, entries(sources, n), entries(degrees, n), entries(destinations, edges),
        unweighted ? std::span<const int>{} : entries(weights, edges));
  });
}

extern "C" int treematch_reorder_matrix_file(MPI_Comm comm, const char* path, const char* metric,
                                             MPI_Comm* reordered) {
  return guarded("treematch_reorder_matrix_file", comm, reordered, [&] {
    treematch::distributed::agree_on_problem(comm, "");
    return treematch::distributed::reorder_matrix_file(comm, path != nullptr ? path : "",
                                                       metric != nullptr ? metric : "size");
  });
}
