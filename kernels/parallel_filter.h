// The indices that pass a test, found by parallel tasks but listed as a sequential loop would.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <tbb/parallel_for.h>

#include "kernels/types.h"

namespace treematch::kernels {

/// The i in [0, n) with keep(i), in increasing order, tested by parallel tasks over fixed blocks of
/// indices joined in block order: the list does not depend on the thread count. keep must only
/// read shared data. Below one block, a plain loop.
template <class Keep>
std::vector<Index> parallel_filter(Index n, Keep keep);

/// The same list by parallel_filter when `parallel`, else by a plain loop (the sequential
/// reference twins).
template <class Keep>
std::vector<Index> filter_indices(Index n, Keep keep, bool parallel) {
  if (parallel) return parallel_filter(n, keep);
  std::vector<Index> out;
  for (Index i = 0; i < n; ++i) {
    if (keep(i)) out.push_back(i);
  }
  return out;
}

template <class Keep>
std::vector<Index> parallel_filter(Index n, Keep keep) {
  constexpr Index kBlock = 8192;  // enough work per task to pay for it
  const Index blocks = (n + kBlock - 1) / kBlock;
  if (blocks <= 1) return filter_indices(n, keep, /*parallel=*/false);
  std::vector<std::vector<Index>> kept(at(blocks));
  tbb::parallel_for(Index{0}, blocks, [&](Index b) {
    const Index end = std::min(n, (b + 1) * kBlock);
    for (Index i = b * kBlock; i < end; ++i) {
      if (keep(i)) kept[at(b)].push_back(i);
    }
  });
  std::size_t total = 0;
  for (const std::vector<Index>& block : kept) total += block.size();
  std::vector<Index> out;
  out.reserve(total);
  for (const std::vector<Index>& block : kept) out.insert(out.end(), block.begin(), block.end());
  return out;
}

}  // namespace treematch::kernels
