// Inputs for kernel tests: random symmetric CSR graphs (with ties and zero-weight rows) and thread
// counts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <tbb/global_control.h>

#include "kernels/types.h"

namespace treematch::kernels::testing {

/// A random symmetric graph on n vertices, about `degree` neighbours each, integer weights in
/// [1, max_weight] (small max_weight = many ties). Vertices >= active have no edges.
inline Csr random_graph(Index n, int degree, int max_weight, std::uint64_t seed,
                        Index active = -1) {
  if (active < 0) active = n;
  std::mt19937_64 rng(seed);
  std::map<std::pair<Index, Index>, Weight> edges;
  for (Index i = 0; i < active; ++i) {
    for (int d = 0; d < degree; ++d) {
      const Index j =
          static_cast<Index>(rng() % static_cast<std::uint64_t>(std::max<Index>(active, 1)));
      if (i == j) continue;
      const Weight w = static_cast<Weight>(1 + rng() % static_cast<std::uint64_t>(max_weight));
      edges[{std::min(i, j), std::max(i, j)}] = w;
    }
  }
  std::vector<std::vector<std::pair<Index, Weight>>> rows(static_cast<std::size_t>(n));
  for (const auto& [edge, w] : edges) {
    rows[static_cast<std::size_t>(edge.first)].emplace_back(edge.second, w);
    rows[static_cast<std::size_t>(edge.second)].emplace_back(edge.first, w);
  }
  Csr out;
  out.n = n;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    for (const auto& [t, w] : row) {
      out.targets.push_back(t);
      out.weights.push_back(w);
    }
    out.offsets.push_back(static_cast<Offset>(out.targets.size()));
  }
  return out;
}

/// Runs f() under a TBB limit of each thread count and returns the results.
template <typename F>
auto under_thread_counts(F f) {
  std::vector<decltype(f())> results;
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    results.push_back(f());
  }
  return results;
}

}  // namespace treematch::kernels::testing
