// Seeded random permutations the synthetic patterns share, portable across standard libraries.
#include "src/patterns/permutation.h"

#include <limits>
#include <stdexcept>
#include <utility>

namespace treematch {
namespace {

/// Uniform integer in [0, bound) from raw 64-bit outputs, rejecting the biased tail.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
  for (;;) {
    const std::uint64_t draw = rng();
    if (draw < limit) return draw % bound;
  }
}

}  // namespace

std::vector<Index> draw_permutation(Index n, std::mt19937_64& rng) {
  if (n < 0) throw std::invalid_argument("draw_permutation: negative size");
  std::vector<Index> perm(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
  for (Index i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::size_t>(uniform_below(rng, static_cast<std::uint64_t>(i) + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[j]);
  }
  return perm;
}

std::vector<Index> seeded_permutation(Index n, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument("seeded_permutation: negative size");
  std::mt19937_64 rng(seed);
  return draw_permutation(n, rng);
}

}  // namespace treematch
