// Candidate groups: exhaustive k-subsets, neighbourhood growth (parallel and sequential), final
// packing.
#include "kernels/candidate_groups.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/parallel_filter.h"

namespace treematch::kernels {
namespace {

/// Scratch of one worker for growing groups: dense "communication with the group" per vertex,
/// reset through the list of touched vertices so each growth costs O(touched), not O(n).
class GrowthScratch {
 public:
  explicit GrowthScratch(Index n) : conn_(at(n), 0.0), state_(at(n), kUntouched) {}

  /// Grows `group` (already holding its seed members) to k members; see the header for the rule.
  void grow(CsrView graph, std::span<const Weight> rowsum, std::span<const std::uint8_t> free,
            std::span<const Index> fillers, Index k, std::vector<Index>& group) {
    if (static_cast<Index>(group.size()) >= k) {  // a seed pair when k = 2: nothing to grow
      std::sort(group.begin(), group.end());
      return;
    }
    for (Index v : group) state_[at(v)] = kMember;
    for (Index v : group) add_neighbours(graph, free, v);
    std::size_t next_filler = 0;
    while (static_cast<Index>(group.size()) < k) {
      Index best = -1;
      for (Index x : touched_) {
        if (state_[at(x)] != kFrontier) continue;
        if (best < 0 || better(x, best, rowsum)) best = x;
      }
      if (best < 0) {  // no free partner left: the lightest unused vertex
        while (next_filler < fillers.size() &&
               (state_[at(fillers[next_filler])] == kMember || !free[at(fillers[next_filler])])) {
          ++next_filler;
        }
        if (next_filler == fillers.size()) break;
        best = fillers[next_filler];
      }
      state_[at(best)] = kMember;
      touched_.push_back(best);
      group.push_back(best);
      // The last member's neighbours could only matter to a member after it.
      if (static_cast<Index>(group.size()) < k) add_neighbours(graph, free, best);
    }
    for (Index v : group) state_[at(v)] = kUntouched;
    for (Index x : touched_) {
      state_[at(x)] = kUntouched;
      conn_[at(x)] = 0.0;
    }
    touched_.clear();
    std::sort(group.begin(), group.end());
  }

 private:
  static constexpr std::uint8_t kUntouched = 0;
  static constexpr std::uint8_t kFrontier = 1;
  static constexpr std::uint8_t kMember = 2;

  bool better(Index x, Index y, std::span<const Weight> rowsum) const {
    return joins_before(x, conn_[at(x)], y, conn_[at(y)], rowsum);
  }

  void add_neighbours(CsrView graph, std::span<const std::uint8_t> free, Index v) {
    if (v >= static_cast<Index>(graph.offsets.size()) - 1) return;  // artificial: no row
    for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      const Index u = graph.targets[static_cast<std::size_t>(e)];
      if (!free[at(u)] || state_[at(u)] == kMember) continue;
      if (state_[at(u)] == kUntouched) {
        state_[at(u)] = kFrontier;
        touched_.push_back(u);
      }
      conn_[at(u)] += graph.weights[static_cast<std::size_t>(e)];
    }
  }

  std::vector<Weight> conn_;
  std::vector<std::uint8_t> state_;
  std::vector<Index> touched_;
};

bool has_free_neighbour(CsrView graph, std::span<const std::uint8_t> free, Index v) {
  if (v >= static_cast<Index>(graph.offsets.size()) - 1) return false;
  for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
    if (free[at(graph.targets[static_cast<std::size_t>(e)])]) return true;
  }
  return false;
}

std::vector<Index> seed_vertices(CsrView graph, std::span<const std::uint8_t> free, bool parallel) {
  return filter_indices(
      static_cast<Index>(free.size()),
      [&](Index v) { return free[at(v)] && has_free_neighbour(graph, free, v); }, parallel);
}

}  // namespace

void seed_pairs(std::span<const Index> targets, std::span<const Weight> weights,
                std::span<const std::uint8_t> free, Index v, int seeds,
                std::vector<std::pair<Weight, Index>>& partners,
                std::vector<std::vector<Index>>& out) {
  out.clear();
  partners.clear();
  for (std::size_t e = 0; e < targets.size(); ++e) {
    if (free[at(targets[e])]) partners.emplace_back(-weights[e], targets[e]);
  }
  const std::size_t keep = std::min(partners.size(), static_cast<std::size_t>(std::max(seeds, 1)));
  std::partial_sort(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(keep),
                    partners.end());
  out.resize(keep);
  for (std::size_t i = 0; i < keep; ++i) out[i].assign({v, partners[i].second});
}

Groups unique_sorted_groups(std::vector<Index> flat, Index k, bool parallel) {
  const std::size_t count = flat.size() / at(k);
  std::vector<Index> order(count);
  std::iota(order.begin(), order.end(), 0);
  auto less = [&](Index a, Index b) {
    return std::lexicographical_compare(flat.begin() + a * k, flat.begin() + (a + 1) * k,
                                        flat.begin() + b * k, flat.begin() + (b + 1) * k);
  };
  if (parallel) {
    tbb::parallel_sort(order.begin(), order.end(), less);
  } else {
    std::sort(order.begin(), order.end(), less);
  }
  // The first group of each run of equal ones, in sorted order.
  std::vector<Index> firsts = filter_indices(
      static_cast<Index>(count),
      [&](Index i) {
        return i == 0 ||
               !std::equal(flat.begin() + order[at(i)] * k, flat.begin() + (order[at(i)] + 1) * k,
                           flat.begin() + order[at(i) - 1] * k);
      },
      parallel);
  for (Index& first : firsts) first = order[at(first)];
  Groups out;
  out.k = k;
  out.members = gather_groups(flat, k, firsts, parallel);
  return out;
}

Groups all_k_subsets(std::span<const std::uint8_t> free, Index k) {
  std::vector<Index> vertices;
  for (Index v = 0; v < static_cast<Index>(free.size()); ++v) {
    if (free[at(v)]) vertices.push_back(v);
  }
  Groups out;
  out.k = k;
  const Index n = static_cast<Index>(vertices.size());
  if (k > n || k <= 0) return out;
  std::vector<Index> pick(at(k));
  std::iota(pick.begin(), pick.end(), 0);
  while (true) {
    for (Index i : pick) out.members.push_back(vertices[at(i)]);
    Index pos = k - 1;
    while (pos >= 0 && pick[at(pos)] == n - k + pos) --pos;
    if (pos < 0) break;
    ++pick[at(pos)];
    for (Index j = pos + 1; j < k; ++j) pick[at(j)] = pick[at(j - 1)] + 1;
  }
  return out;
}

std::vector<Index> filler_order(std::span<const Weight> rowsum,
                                std::span<const std::uint8_t> free) {
  std::vector<Index> order =
      parallel_filter(static_cast<Index>(free.size()), [&](Index v) { return free[at(v)] != 0; });
  // A strict total order (ties by index): the parallel sort's result is unique.
  tbb::parallel_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return rowsum[at(a)] != rowsum[at(b)] ? rowsum[at(a)] < rowsum[at(b)] : a < b;
  });
  return order;
}

Groups neighbourhood_candidates(CsrView graph, std::span<const Weight> rowsum,
                                std::span<const std::uint8_t> free, std::span<const Index> fillers,
                                Index k, int seeds) {
  const std::vector<Index> starts = seed_vertices(graph, free, /*parallel=*/true);
  const std::size_t per_vertex = at(std::max(seeds, 1)) * at(k);
  // Fixed slots per seed vertex; a seed that yields fewer groups leaves -1 rows, dropped below.
  std::vector<Index> flat(starts.size() * per_vertex, -1);
  const Index n = static_cast<Index>(free.size());
  tbb::enumerable_thread_specific<GrowthScratch> scratch([n] { return GrowthScratch(n); });
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, starts.size(), 64), [&](const auto& range) {
    GrowthScratch& local = scratch.local();
    std::vector<std::vector<Index>> groups;
    std::vector<std::pair<Weight, Index>> partners;
    for (std::size_t s = range.begin(); s != range.end(); ++s) {
      seed_pairs(graph.row_targets(starts[s]), graph.row_weights(starts[s]), free, starts[s], seeds,
                 partners, groups);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        local.grow(graph, rowsum, free, fillers, k, groups[g]);
        if (static_cast<Index>(groups[g].size()) != k) continue;
        std::copy(groups[g].begin(), groups[g].end(),
                  flat.begin() + static_cast<std::ptrdiff_t>(s * per_vertex + g * at(k)));
      }
    }
  });
  const std::vector<Index> filled =
      parallel_filter(static_cast<Index>(flat.size() / at(k)),
                      [&](Index slot) { return flat[at(slot) * at(k)] >= 0; });
  return unique_sorted_groups(gather_groups(flat, k, filled, /*parallel=*/true), k,
                              /*parallel=*/true);
}

Groups neighbourhood_candidates_seq(CsrView graph, std::span<const Weight> rowsum,
                                    std::span<const std::uint8_t> free,
                                    std::span<const Index> fillers, Index k, int seeds) {
  GrowthScratch scratch(static_cast<Index>(free.size()));
  std::vector<Index> flat;
  std::vector<std::vector<Index>> groups;
  std::vector<std::pair<Weight, Index>> partners;
  for (Index v : seed_vertices(graph, free, /*parallel=*/false)) {
    seed_pairs(graph.row_targets(v), graph.row_weights(v), free, v, seeds, partners, groups);
    for (auto& group : groups) {
      scratch.grow(graph, rowsum, free, fillers, k, group);
      if (static_cast<Index>(group.size()) == k)
        flat.insert(flat.end(), group.begin(), group.end());
    }
  }
  return unique_sorted_groups(std::move(flat), k, /*parallel=*/false);
}

namespace {

/// Keeps the `limit` heaviest entries of row v at out[begin..); returns how many. The cut-off
/// weight is selected on the weights alone (cache-friendly on dense rows); entries at the cut-off
/// are kept in target order, so ties go to smaller targets.
Offset strongest_of_row(CsrView graph, Index v, Index limit, std::vector<Weight>& scratch,
                        std::vector<Index>& targets, std::vector<Weight>& weights, Offset begin) {
  const auto first = static_cast<std::size_t>(graph.row_begin(v));
  const auto degree = static_cast<std::size_t>(graph.row_end(v) - graph.row_begin(v));
  const std::size_t keep = std::min(degree, at(limit));
  std::size_t out = static_cast<std::size_t>(begin);
  if (keep == degree) {
    std::copy_n(graph.targets.begin() + static_cast<std::ptrdiff_t>(first), degree,
                targets.begin() + static_cast<std::ptrdiff_t>(out));
    std::copy_n(graph.weights.begin() + static_cast<std::ptrdiff_t>(first), degree,
                weights.begin() + static_cast<std::ptrdiff_t>(out));
    return static_cast<Offset>(degree);
  }
  scratch.assign(graph.weights.begin() + static_cast<std::ptrdiff_t>(first),
                 graph.weights.begin() + static_cast<std::ptrdiff_t>(first + degree));
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(keep - 1),
                   scratch.end(), std::greater<>());
  const Weight cut = scratch[keep - 1];
  std::size_t above = 0;  // entries strictly heavier than the cut-off all stay
  for (std::size_t e = first; e < first + degree; ++e) above += graph.weights[e] > cut ? 1 : 0;
  std::size_t ties_left = keep - above;
  for (std::size_t e = first; e < first + degree; ++e) {
    const Weight w = graph.weights[e];
    if (w > cut || (w == cut && ties_left > 0)) {
      if (w == cut) --ties_left;
      targets[out] = graph.targets[e];
      weights[out] = w;
      ++out;
    }
  }
  return static_cast<Offset>(keep);
}

Csr strongest(CsrView graph, Index limit, bool parallel) {
  const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
  Csr out;
  out.n = graph.n;
  out.offsets.assign(at(stored) + 1, 0);
  for (Index v = 0; v < stored; ++v) {
    out.offsets[at(v) + 1] =
        out.offsets[at(v)] + std::min<Offset>(graph.row_end(v) - graph.row_begin(v), limit);
  }
  out.targets.resize(static_cast<std::size_t>(out.offsets.back()));
  out.weights.resize(static_cast<std::size_t>(out.offsets.back()));
  auto rows = [&](Index first, Index last, std::vector<Weight>& scratch) {
    for (Index v = first; v < last; ++v)
      strongest_of_row(graph, v, limit, scratch, out.targets, out.weights, out.offsets[at(v)]);
  };
  if (parallel) {
    tbb::enumerable_thread_specific<std::vector<Weight>> scratch;
    tbb::parallel_for(tbb::blocked_range<Index>(0, stored, 64),
                      [&](const tbb::blocked_range<Index>& range) {
                        rows(range.begin(), range.end(), scratch.local());
                      });
  } else {
    std::vector<Weight> scratch;
    rows(0, stored, scratch);
  }
  return out;
}

}  // namespace

Csr strongest_neighbours(CsrView graph, Index limit) {
  return strongest(graph, limit, /*parallel=*/true);
}
Csr strongest_neighbours_seq(CsrView graph, Index limit) {
  return strongest(graph, limit, /*parallel=*/false);
}

Groups pack_remaining(CsrView graph, std::span<const Weight> rowsum, std::span<std::uint8_t> free,
                      Index k) {
  std::vector<Index> order =
      parallel_filter(static_cast<Index>(free.size()), [&](Index v) { return free[at(v)] != 0; });
  tbb::parallel_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return rowsum[at(a)] != rowsum[at(b)] ? rowsum[at(a)] > rowsum[at(b)] : a < b;
  });
  std::vector<Index> fillers(order.rbegin(), order.rend());  // lightest first
  GrowthScratch scratch(static_cast<Index>(free.size()));
  Groups out;
  out.k = k;
  std::size_t filler_start = 0;
  for (Index v : order) {
    if (!free[at(v)]) continue;
    while (filler_start < fillers.size() && !free[at(fillers[filler_start])]) ++filler_start;
    std::vector<Index> group{v};
    scratch.grow(graph, rowsum, free, std::span<const Index>(fillers).subspan(filler_start), k,
                 group);
    for (Index u : group) free[at(u)] = 0;
    out.members.insert(out.members.end(), group.begin(), group.end());
  }
  return out;
}

}  // namespace treematch::kernels
