// Seeded random permutations the synthetic patterns share, portable across standard libraries.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;

/// A uniformly random permutation of 0..n-1 drawn from `rng`: Fisher-Yates from the back, position
/// i swapped with a draw in [0, i] by unbiased rejection sampling on the engine's raw outputs (no
/// std distribution, whose algorithm differs between standard libraries). Consumes the engine, so
/// a pattern can draw its permutation after its other random values. Throws std::invalid_argument
/// if n < 0.
std::vector<Index> draw_permutation(Index n, std::mt19937_64& rng);

/// draw_permutation(n, std::mt19937_64(seed)).
std::vector<Index> seeded_permutation(Index n, std::uint64_t seed);

}  // namespace treematch
