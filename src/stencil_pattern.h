// A synthetic regular pattern: a 3-D 27-point stencil with shuffled ranks (benchmark and tests).
#pragma once

#include <cstdint>
#include <vector>

#include "src/comm_graph.h"

namespace treematch {

/// A box of nx x ny x nz processes, each exchanging with its up to 26 neighbours inside the box
/// (no wraparound). Weights are per direction and symmetric: a neighbour across a face (one
/// coordinate differs) gets `face`, across an edge (two differ) `edge`, across a corner (three
/// differ) `corner`.
struct StencilSpec {
  Index nx = 1;
  Index ny = 1;
  Index nz = 1;
  Weight face = 1000.0;
  Weight edge = 100.0;
  Weight corner = 10.0;
  std::uint64_t seed = 1;  ///< of the rank permutation
};

/// A uniformly random permutation of 0..n-1, portable across platforms and standard libraries:
/// std::mt19937_64(seed), unbiased rejection sampling on its raw outputs, Fisher-Yates from the
/// back. Throws std::invalid_argument if n < 0.
std::vector<Index> seeded_permutation(Index n, std::uint64_t seed);

/// The stencil's symmetric communication graph. Cell (x, y, z) has grid index x + nx * (y + ny * z)
/// and runs as rank seeded_permutation(cells, seed)[grid index], so the rank order says nothing
/// about the geometry. Throws std::invalid_argument for a dimension < 1 or more than 2^31 - 1
/// cells.
CommGraph make_stencil_27(const StencilSpec& spec);

}  // namespace treematch
