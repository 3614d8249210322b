// The C API of the mapping (treematch.h): checks the arguments and calls the C++ driver; every
// exception becomes a status and a message (c_boundary.h).
#include "apps/library/treematch.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "apps/library/c_boundary.h"
#include "io/topology_reader.h"
#include "src/driver/treematch.h"
#include "src/model/comm_graph.h"
#include "src/model/context.h"

struct treematch_topology_s {
  treematch::Topology topology;
};

namespace {

using treematch::library::ArgumentError;
using treematch::library::guarded;

/// The matrix of treematch_map_csr as a graph, every entry checked.
treematch::CommGraph graph_of(int n, const long long offsets[], const int targets[],
                              const double weights[]) {
  if (n < 0) throw ArgumentError("n = " + std::to_string(n) + " is negative");
  if (offsets == nullptr) throw ArgumentError("offsets is NULL");
  if (offsets[0] != 0)
    throw ArgumentError("offsets[0] is " + std::to_string(offsets[0]) + ", not 0");
  const long long entries = offsets[n];
  if (entries > 0 && (targets == nullptr || weights == nullptr)) {
    throw ArgumentError("targets or weights is NULL");
  }
  std::vector<treematch::Triplet> triplets;
  for (int i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i] || offsets[i + 1] > entries) {
      throw ArgumentError("offsets[" + std::to_string(i + 1) +
                          "] = " + std::to_string(offsets[i + 1]) + " is out of order");
    }
    for (long long k = offsets[i]; k < offsets[i + 1]; ++k) {
      const int j = targets[k];
      if (j < 0 || j >= n) {
        throw ArgumentError("targets[" + std::to_string(k) + "] = " + std::to_string(j) +
                            " is not a process (n = " + std::to_string(n) + ")");
      }
      if (!std::isfinite(weights[k]) || weights[k] < 0.0) {
        throw ArgumentError("weights[" + std::to_string(k) + "] = " + std::to_string(weights[k]) +
                            " is not a finite value >= 0");
      }
      if (weights[k] > 0.0 && j != i) triplets.push_back({i, j, weights[k]});
    }
  }
  return treematch::CommGraph::from_triplets(n, std::move(triplets));
}

treematch::Context context_of(const char* preset) {
  if (preset == nullptr) return treematch::preset_context(treematch::Preset::kDefault);
  const std::optional<treematch::Preset> parsed = treematch::parse_preset(preset);
  if (!parsed) {
    throw ArgumentError(std::string("unknown preset \"") + preset + "\" (fast, default or strong)");
  }
  return treematch::preset_context(*parsed);
}

}  // namespace

extern "C" int treematch_topology_read(const char* spec, treematch_topology* topology) {
  if (topology != nullptr) *topology = nullptr;
  return guarded("treematch_topology_read", [&] {
    if (spec == nullptr || topology == nullptr) throw ArgumentError("spec or topology is NULL");
    if (std::string(spec) == "allocation") {
      throw ArgumentError("\"allocation\" needs MPI: use treematch_reorder.h inside the job");
    }
    *topology = new treematch_topology_s{treematch::io::read_topology(spec)};
  });
}

extern "C" long long treematch_topology_leaves(treematch_topology topology) {
  return topology == nullptr ? 0 : static_cast<long long>(topology->topology.leaves_below(0));
}

extern "C" void treematch_topology_free(treematch_topology* topology) {
  if (topology == nullptr) return;
  delete *topology;
  *topology = nullptr;
}

extern "C" int treematch_map_csr(treematch_topology topology, int n, const long long offsets[],
                                 const int targets[], const double weights[], const char* preset,
                                 int leaf_of_process[], double* hop_bytes) {
  return guarded("treematch_map_csr", [&] {
    if (topology == nullptr) throw ArgumentError("topology is NULL");
    if (n > 0 && leaf_of_process == nullptr) throw ArgumentError("leaf_of_process is NULL");
    const treematch::CommGraph graph = graph_of(n, offsets, targets, weights);
    if (hop_bytes != nullptr) *hop_bytes = 0.0;
    if (n == 0) return;  // nothing to place
    const treematch::TreeMatchResult result =
        treematch::treematch_map(graph, topology->topology, context_of(preset));
    for (int i = 0; i < n; ++i)
      leaf_of_process[i] = result.mapping.leaf_of_rank[static_cast<std::size_t>(i)];
    if (hop_bytes != nullptr) *hop_bytes = result.cost.hop_bytes;
  });
}

extern "C" const char* treematch_last_error(void) {
  return treematch::library::last_error();
}
