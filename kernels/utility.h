// Two small helpers every layer uses: SplitMix64's finaliser (a fixed, portable 64-bit hash) and
// the seconds elapsed on the steady clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace treematch::kernels {

/// SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix, the same on every
/// platform and standard library, for hashes, seeds and counter-based random numbers.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Seconds since `start` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace treematch::kernels
