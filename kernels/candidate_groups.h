// Candidate groups for one level: every k-subset when that is small, else communication
// neighbourhoods.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// Whether x joins a growing group before y: more communication with the group, then a smaller
/// row sum, then a smaller index (a strict total order, so the choice never depends on the
/// order candidates are looked at).
inline bool joins_before(Index x, Weight conn_x, Index y, Weight conn_y,
                         std::span<const Weight> rowsum) {
  if (conn_x != conn_y) return conn_x > conn_y;
  if (rowsum[at(x)] != rowsum[at(y)]) return rowsum[at(x)] < rowsum[at(y)];
  return x < y;
}

/// The seeds of vertex v, whose row is (targets, weights): {v, u} for its `seeds` heaviest free
/// neighbours u (ties: smaller u), into `out` (`partners` is scratch). {v} alone is not a seed:
/// it would grow into {v, heaviest u} anyway.
void seed_pairs(std::span<const Index> targets, std::span<const Weight> weights,
                std::span<const std::uint8_t> free, Index v, int seeds,
                std::vector<std::pair<Weight, Index>>& partners,
                std::vector<std::vector<Index>>& out);

/// The groups of `flat` (k members each, sorted inside) sorted lexicographically, duplicates
/// removed: the same result whatever order the groups come in.
Groups unique_sorted_groups(std::vector<Index> flat, Index k, bool parallel);

/// Every k-subset of the free vertices (free[v] != 0), lexicographic. C(free, k) groups: the
/// caller only asks when that count is small (the paper's exhaustive GroupProcesses).
Groups all_k_subsets(std::span<const std::uint8_t> free, Index k);

/// Free vertices ordered by (row sum ascending, index ascending): the deterministic fillers used
/// when a group has no free partner left to add.
std::vector<Index> filler_order(std::span<const Weight> rowsum, std::span<const std::uint8_t> free);

/// Neighbourhood candidates. Every free vertex v with a free neighbour seeds up to `seeds` groups
/// {v, u}, u among its heaviest free neighbours; each seed grows greedily to k members
/// by adding the free vertex with the largest communication with the group (ties: smaller row sum,
/// then smaller index), and when no free neighbour is left, the first unused vertex of `fillers`.
/// Duplicates are removed; the result is sorted lexicographically (so a candidate's index is a
/// deterministic tie-break).
/// Cost: O(F x seeds x k x (k + deg)) for F free vertices of degree deg, instead of C(F, k).
Groups neighbourhood_candidates(CsrView graph, std::span<const Weight> rowsum,
                                std::span<const std::uint8_t> free, std::span<const Index> fillers,
                                Index k, int seeds);
/// Sequential reference twin of neighbourhood_candidates.
Groups neighbourhood_candidates_seq(CsrView graph, std::span<const Weight> rowsum,
                                    std::span<const std::uint8_t> free,
                                    std::span<const Index> fillers, Index k, int seeds);

/// Each row cut to its `limit` heaviest entries (ties: smaller target), kept sorted by target.
/// Candidate growth only follows strong links, so on dense rows it reads O(limit) per member
/// instead of O(p); group values and aggregation keep using the full matrix.
Csr strongest_neighbours(CsrView graph, Index limit);
Csr strongest_neighbours_seq(CsrView graph, Index limit);

/// Groups all still-free vertices, sequentially and deterministically: heaviest remaining vertex
/// first (row sum descending, then index), grown as above. Clears `free` for those grouped.
/// The count of free vertices must be a multiple of k.
Groups pack_remaining(CsrView graph, std::span<const Weight> rowsum, std::span<std::uint8_t> free,
                      Index k);

}  // namespace treematch::kernels
