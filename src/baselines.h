// Reference mappings a user compares TreeMatch with: packed, round-robin, random and MPIPP.
#pragma once

#include <cstdint>
#include <vector>

#include "src/comm_graph.h"
#include "src/mapping.h"
#include "src/topology.h"

namespace tm {

/// The leaves a run may use, in logical order, each repeated `per_leaf` times (oversubscription).
/// `allowed` empty = every leaf.
std::vector<Index> usable_slots(const Topology& topology, const std::vector<Index>& allowed, Index per_leaf);

/// Rank i on the i-th usable slot in logical order (what "--map-by core" gives).
Mapping packed_mapping(Index ranks, const std::vector<Index>& slots);

/// Rank i on the i-th usable slot in OS-index order (binding by OS numbering).
Mapping round_robin_mapping(Index ranks, const Topology& topology, const std::vector<Index>& slots);

/// A uniformly random choice of distinct slots, from a seeded generator.
Mapping random_mapping(Index ranks, const std::vector<Index>& slots, std::uint64_t seed);

/// MPIPP (Chen et al. 2006): from a random start, repeatedly apply the best improving pairwise swap
/// of two ranks' slots (or move to a free slot) until none improves hop-bytes; `starts` random
/// starts, the best kept ("MPIPP.1", "MPIPP.5"). O(p^2 x degree) per pass.
Mapping mpipp_mapping(const CommGraph& graph, const Topology& topology, const std::vector<Index>& slots,
                      int starts, std::uint64_t seed);

}  // namespace tm
