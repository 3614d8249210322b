// Built against an installed treematch (find_package or pkg-config): the C++ face (treematch.hpp)
// on the ring of map_ring.c, and its errors as exceptions. Prints "c++: ok" on success.
#include <treematch.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

int main() {
  const std::vector<int> ring = {0, 4, 1, 5, 2, 6, 3, 7};
  const int n = static_cast<int>(ring.size());
  std::vector<long long> offsets(n + 1);
  std::iota(offsets.begin(), offsets.end(), 0);
  std::vector<int> targets(n);  // each process sends to its successor on the ring
  for (int k = 0; k < n; ++k) targets[ring[k]] = ring[(k + 1) % n];
  const std::vector<double> weights(n, 1000.0);

  const treematch::Machine machine("pack:2 core:4 pu:1");
  const treematch::Placement placement = treematch::map(machine, offsets, targets, weights, "fast");
  std::vector<int> sorted = placement.leaf_of_process;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity) return std::fprintf(stderr, "c++: not a permutation\n"), 1;
  if (!(placement.hop_bytes < 8 * 1000.0 * 4)) return std::fprintf(stderr, "c++: not cheaper\n"), 1;
  try {
    const treematch::Machine bad("tleaf 2");
    return std::fprintf(stderr, "c++: a bad machine was accepted\n"), 1;
  } catch (const treematch::Error& error) {
    if (error.status() != TREEMATCH_ERR_INPUT)
      return std::fprintf(stderr, "c++: %s\n", error.what()), 1;
  }
  std::printf("c++: ok, cost %.0f\n", placement.hop_bytes);
  return 0;
}
