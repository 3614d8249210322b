// Greedy maximal independent set of candidate groups (groups conflict when they share a vertex).
#pragma once

#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// Visits candidates by increasing priority (a permutation: priority[c] = rank of c) and keeps each
/// one that shares no vertex with those kept. Returns kept candidates in priority order.
std::vector<Index> greedy_independent_set_seq(const Groups& candidates,
                                              std::span<const Index> priority, Index vertex_count);

/// Parallel twin, same result: in rounds, every live candidate whose priority is the smallest among
/// all live candidates sharing a vertex with it is kept; candidates touching kept ones die.
/// This reproduces the sequential greedy exactly (a kept candidate can only be blocked by a
/// better-ranked one, which is decided in an earlier or the same round). When a round decides
/// less than an eighth of the live candidates (a chain of priorities), the sequential greedy
/// over the live ones finishes the same set: O(candidates) rounds never happen.
std::vector<Index> greedy_independent_set_rounds(const Groups& candidates,
                                                 std::span<const Index> priority,
                                                 Index vertex_count);

/// The same set: greedy_independent_set_seq below 4096 candidates (too few to pay for the tasks),
/// greedy_independent_set_rounds from there on.
std::vector<Index> greedy_independent_set(const Groups& candidates, std::span<const Index> priority,
                                          Index vertex_count);

/// vertex -> candidates containing it, as CSR (offsets of size vertex_count + 1).
struct Incidence {
  std::vector<Offset> offsets;
  std::vector<Index> candidates;
};
Incidence incidence(const Groups& candidates, Index vertex_count);

}  // namespace treematch::kernels
