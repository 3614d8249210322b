// Reference mappings a user compares TreeMatch with: packed, round-robin, random and MPIPP.
#pragma once

#include <cstdint>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch {

/// The leaves a run may use, in logical order, each repeated `per_leaf` times consecutively
/// (oversubscription): [l0, l0, l1, l1, ...] for per_leaf 2. `allowed` empty = every leaf;
/// otherwise its leaves are taken sorted. Throws std::invalid_argument if per_leaf < 1 or `allowed`
/// names a leaf twice or outside the topology.
std::vector<Index> usable_slots(const Topology& topology, const std::vector<Index>& allowed,
                                Index per_leaf);

/// Rank i on the i-th usable slot in logical order (what "--map-by core" gives).
/// Throws std::invalid_argument if there are fewer slots than ranks.
Mapping packed_mapping(Index ranks, const std::vector<Index>& slots);

/// Rank i on the i-th usable slot in OS-index order (binding by OS numbering): the slots are sorted
/// by the OS index of their leaf, then by position in `slots`.
/// Throws std::invalid_argument if there are fewer slots than ranks or a slot is not a leaf.
Mapping round_robin_mapping(Index ranks, const Topology& topology, const std::vector<Index>& slots);

/// A uniformly random choice of distinct slots, from a seeded generator. Portable: the same on
/// every platform and standard library, because it uses std::mt19937_64(seed) (fully specified),
/// unbiased rejection sampling on its raw 64-bit outputs, and a partial Fisher-Yates shuffle of the
/// slot positions (for i = 0..ranks-1, swap position i with a uniform position in [i, slots)); rank
/// i takes the slot at position i. Throws std::invalid_argument if there are fewer slots than
/// ranks.
Mapping random_mapping(Index ranks, const std::vector<Index>& slots, std::uint64_t seed);

/// Passes of MPIPP's local search before it stops even if a pass still improved.
inline constexpr int kMpippMaxPasses = 50;

/// MPIPP (Chen et al. 2006): from a random start, repeatedly apply the best improving pairwise swap
/// of two ranks' slots (or move to a free slot) until none improves hop-bytes; `starts` random
/// starts, the best kept ("MPIPP.1", "MPIPP.5"). O(p^2 x degree) per pass.
///
/// One rank per process of `graph` (p = graph.size()). Start s (0-based) is
/// random_mapping(p, slots, seed + s). A pass visits ranks i = 0..p-1; for each it finds the
/// partner whose exchange with i lowers hop-bytes (topology.hops()) the most: another rank j (swap
/// slots) or a free slot (move), each delta computed in O(deg(i) + deg(j)) from the CSR. Candidates
/// are ordered ranks 0..p-1, then free slots; ties go to the first. The exchange is applied if it
/// strictly lowers the cost. The search stops after a pass without improvement or kMpippMaxPasses
/// passes. The start with the lowest final hop-bytes wins, ties to the earlier start.
/// Deterministic: the parallel search for the partner (TBB, over candidates) is a min over (delta,
/// candidate) pairs, so the result does not depend on the number of threads. Throws
/// std::invalid_argument if starts < 1 or there are fewer slots than processes.
Mapping mpipp_mapping(const CommGraph& graph, const Topology& topology,
                      const std::vector<Index>& slots, int starts, std::uint64_t seed);

/// Sequential reference twin of mpipp_mapping (identical result).
Mapping mpipp_mapping_seq(const CommGraph& graph, const Topology& topology,
                          const std::vector<Index>& slots, int starts, std::uint64_t seed);

}  // namespace treematch
