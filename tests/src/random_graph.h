// Random communication graphs for the partitioners' property tests.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/types.h"
#include "kernels/utility.h"
#include "src/model/comm_graph.h"

namespace treematch::testing {

/// `n` vertices, each drawing `draws` edges (stored both ways; a vertex drawing itself adds none)
/// from the hash chain `state` (left at its end): to any vertex, or with `reach` > 0 half of them
/// to one of the `reach` vertices after it (a graph with clusters); weight 1 + the hash's top 4
/// bits (1 to 16).
inline CommGraph random_graph(kernels::Index n, int draws, std::uint64_t& state,
                              kernels::Index reach = 0) {
  std::vector<Triplet> triplets;
  const auto size = static_cast<std::uint64_t>(n);
  for (kernels::Index v = 0; v < n; ++v) {
    for (int k = 0; k < draws; ++k) {
      state = kernels::splitmix64(state);
      const bool near = reach > 0 && (state & 1) != 0;
      const auto u =
          static_cast<kernels::Index>(near ? (static_cast<std::uint64_t>(v) + 1 +
                                              (state >> 8) % static_cast<std::uint64_t>(reach)) %
                                                 size
                                           : state % size);
      if (u == v) continue;
      const kernels::Weight w = 1.0 + static_cast<kernels::Weight>(state >> 60);
      triplets.push_back({v, u, w});
      triplets.push_back({u, v, w});
    }
  }
  return CommGraph::from_triplets(n, std::move(triplets));
}

}  // namespace treematch::testing
