// Greedy maximal independent set of candidate groups, sequential and in parallel rounds.
#include "kernels/independent_set.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/parallel_filter.h"

namespace treematch::kernels {
namespace {

/// The sequential greedy over the `live` candidates (none of which touches a `taken` vertex):
/// each, by increasing priority, is chosen when it shares no vertex with one chosen before.
void finish_in_priority_order(const Groups& candidates, std::span<const Index> priority,
                              std::vector<Index>& live, std::vector<std::uint8_t>& taken,
                              std::vector<std::uint8_t>& chosen) {
  tbb::parallel_sort(live.begin(), live.end(),
                     [&](Index a, Index b) { return priority[at(a)] < priority[at(b)]; });
  for (const Index c : live) {
    const auto group = candidates.group(c);
    if (std::any_of(group.begin(), group.end(), [&](Index v) { return taken[at(v)] != 0; }))
      continue;
    for (const Index v : group) taken[at(v)] = 1;
    chosen[at(c)] = 1;
  }
}

}  // namespace

std::vector<Index> greedy_independent_set_seq(const Groups& candidates,
                                              std::span<const Index> priority, Index vertex_count) {
  const Index count = candidates.count();
  std::vector<Index> order(at(count));
  for (Index c = 0; c < count; ++c) order[at(priority[at(c)])] = c;
  std::vector<std::uint8_t> taken(at(vertex_count), 0);
  std::vector<Index> kept;
  for (Index c : order) {
    const auto group = candidates.group(c);
    if (std::any_of(group.begin(), group.end(), [&](Index v) { return taken[at(v)] != 0; }))
      continue;
    for (Index v : group) taken[at(v)] = 1;
    kept.push_back(c);
  }
  return kept;
}

std::vector<Index> greedy_independent_set_rounds(const Groups& candidates,
                                                 std::span<const Index> priority,
                                                 Index vertex_count) {
  const Index count = candidates.count();
  constexpr Index kNone = std::numeric_limits<Index>::max();
  std::vector<std::atomic<Index>> best(at(vertex_count));
  std::vector<std::uint8_t> taken(at(vertex_count), 0);
  std::vector<Index> live(at(count));
  for (Index c = 0; c < count; ++c) live[at(c)] = c;
  std::vector<std::uint8_t> chosen(at(count), 0);

  while (!live.empty()) {
    // 1. Each vertex learns the best priority among live candidates containing it.
    // (Reset through the live candidates, so a round costs O(live), not O(vertices).)
    tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      for (Index v : candidates.group(live[i])) best[at(v)].store(kNone, std::memory_order_relaxed);
    });
    tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      const Index c = live[i];
      const Index p = priority[at(c)];
      for (Index v : candidates.group(c)) {
        Index seen = best[at(v)].load(std::memory_order_relaxed);
        while (p < seen && !best[at(v)].compare_exchange_weak(seen, p, std::memory_order_relaxed)) {
        }
      }
    });
    // 2. A candidate that is the best at all of its vertices is kept: nothing better can block it.
    tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      const Index c = live[i];
      const Index p = priority[at(c)];
      const auto group = candidates.group(c);
      if (std::all_of(group.begin(), group.end(),
                      [&](Index v) { return best[at(v)].load(std::memory_order_relaxed) == p; })) {
        chosen[at(c)] = 1;
        for (Index v : group)
          taken[at(v)] = 1;  // each vertex is written by one kept candidate only
      }
    });
    // 3. Candidates touching a kept one die.
    std::vector<Index> survivors = parallel_filter(static_cast<Index>(live.size()), [&](Index i) {
      const Index c = live[at(i)];
      const auto group = candidates.group(c);
      return !chosen[at(c)] &&
             std::none_of(group.begin(), group.end(), [&](Index v) { return taken[at(v)] != 0; });
    });
    tbb::parallel_for(std::size_t{0}, survivors.size(),
                      [&](std::size_t i) { survivors[i] = live[at(survivors[i])]; });
    // A round that decides less than an eighth of the live candidates is the start of a chain of
    // priorities (equal values broken by index along a ring or a line: one kept per round, n
    // rounds). The live ones share no vertex with a kept one, so the sequential greedy over them
    // alone, by priority, finishes the same set in one pass.
    const bool stalled = survivors.size() > live.size() - live.size() / 8;
    live.swap(survivors);
    if (stalled) {
      finish_in_priority_order(candidates, priority, live, taken, chosen);
      break;
    }
  }
  std::vector<Index> kept = parallel_filter(count, [&](Index c) { return chosen[at(c)] != 0; });
  // Priorities are a permutation: the order is unique.
  tbb::parallel_sort(kept.begin(), kept.end(),
                     [&](Index a, Index b) { return priority[at(a)] < priority[at(b)]; });
  return kept;
}

std::vector<Index> greedy_independent_set(const Groups& candidates, std::span<const Index> priority,
                                          Index vertex_count) {
  // Both give the same set; below this the rounds' task overhead outweighs the work (the
  // bottom-up walks inside every top-down subtree select among a few hundred candidates).
  constexpr Index kRoundsFrom = 4096;
  if (candidates.count() < kRoundsFrom)
    return greedy_independent_set_seq(candidates, priority, vertex_count);
  return greedy_independent_set_rounds(candidates, priority, vertex_count);
}

Incidence incidence(const Groups& candidates, Index vertex_count) {
  Incidence out;
  out.offsets.assign(at(vertex_count) + 1, 0);
  for (Index v : candidates.members) ++out.offsets[at(v) + 1];
  for (std::size_t v = 0; v < at(vertex_count); ++v) out.offsets[v + 1] += out.offsets[v];
  out.candidates.resize(candidates.members.size());
  std::vector<Offset> fill(out.offsets.begin(), out.offsets.end() - 1);
  for (Index c = 0; c < candidates.count(); ++c) {
    for (Index v : candidates.group(c)) out.candidates[static_cast<std::size_t>(fill[at(v)]++)] = c;
  }
  return out;
}

}  // namespace treematch::kernels
