// The subgraphs a partition of a graph's vertices induces, one per part.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// The subgraphs of `g` induced by its parts (part_of[v] in [0, parts); a negative part: in
/// none), each renumbered in the order of its vertices: edges between parts are dropped, rows
/// stay sorted. Two passes over `g` (the entries counted, then copied); on large graphs the
/// parts are copied by parallel tasks, with the same result.
std::vector<Csr> part_subgraphs(CsrView g, const std::vector<Index>& part_of, std::size_t parts);

}  // namespace treematch::kernels
