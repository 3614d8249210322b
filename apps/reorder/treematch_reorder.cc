// The C API over the C++ reorder: exceptions become MPI error classes and one line on stderr.
#include "apps/reorder/treematch_reorder.h"

#include "apps/reorder/reorder.h"
#include "apps/reorder/reorder_c_guard.h"

using treematch::distributed::guarded;

extern "C" int treematch_reorder_dist_graph(MPI_Comm comm, int n, const int sources[],
                                            const int degrees[], const int destinations[],
                                            const int weights[], MPI_Comm* reordered) {
  return guarded("treematch_reorder_dist_graph", comm, reordered, [&] {
    const treematch::distributed::DistGraphArrays graph =
        treematch::distributed::checked_dist_graph(comm, n, sources, degrees, destinations,
                                                   weights);
    return treematch::distributed::reorder_dist_graph(comm, graph.sources, graph.degrees,
                                                      graph.destinations, graph.weights);
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
