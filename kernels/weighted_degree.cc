// Weighted-degree priority: candidates whose conflicting candidates are expensive go first.
#include "kernels/weighted_degree.h"

#include <algorithm>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

namespace treematch::kernels {
namespace {

/// Marks seen candidates with a per-candidate stamp so each conflict is counted once.
class ConflictScratch {
 public:
  explicit ConflictScratch(Index count) : stamp_(at(count), -1) {}

  /// Average value of the candidates sharing a vertex with c (c excluded), 0 if none. Conflicts
  /// are summed in (member, incidence) order: deterministic.
  Weight average_conflict(const Groups& candidates, const Incidence& inc,
                          std::span<const Weight> values, Index c) {
    Weight sum = 0.0;
    Index seen = 0;
    stamp_[at(c)] = c;
    for (Index v : candidates.group(c)) {
      for (Offset e = inc.offsets[at(v)]; e < inc.offsets[at(v) + 1]; ++e) {
        const Index other = inc.candidates[static_cast<std::size_t>(e)];
        if (stamp_[at(other)] == c) continue;
        stamp_[at(other)] = c;
        sum += values[at(other)];
        ++seen;
      }
    }
    return seen == 0 ? 0.0 : sum / static_cast<Weight>(seen);
  }

 private:
  std::vector<Index> stamp_;
};

std::vector<Index> rank_by(std::span<const Weight> average, std::span<const Weight> values,
                           bool parallel) {
  std::vector<Index> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](Index a, Index b) {
    if (average[at(a)] != average[at(b)]) return average[at(a)] > average[at(b)];
    if (values[at(a)] != values[at(b)]) return values[at(a)] < values[at(b)];
    return a < b;
  };
  if (parallel) {
    tbb::parallel_sort(order.begin(), order.end(), before);
  } else {
    std::sort(order.begin(), order.end(), before);
  }
  std::vector<Index> priority(values.size());
  for (std::size_t r = 0; r < order.size(); ++r) priority[at(order[r])] = static_cast<Index>(r);
  return priority;
}

}  // namespace

double weighted_degree_work(const Incidence& incidence) {
  double work = 0.0;
  for (std::size_t v = 0; v + 1 < incidence.offsets.size(); ++v) {
    const auto d = static_cast<double>(incidence.offsets[v + 1] - incidence.offsets[v]);
    work += d * d;
  }
  return work;
}

std::vector<Index> priority_by_weighted_degree(const Groups& candidates, const Incidence& incidence,
                                               std::span<const Weight> values) {
  const Index count = candidates.count();
  std::vector<Weight> average(at(count));
  tbb::enumerable_thread_specific<ConflictScratch> scratch(
      [count] { return ConflictScratch(count); });
  tbb::parallel_for(tbb::blocked_range<Index>(0, count, 256),
                    [&](const tbb::blocked_range<Index>& range) {
                      ConflictScratch& local = scratch.local();
                      for (Index c = range.begin(); c != range.end(); ++c) {
                        average[at(c)] = local.average_conflict(candidates, incidence, values, c);
                      }
                    });
  return rank_by(average, values, /*parallel=*/true);
}

std::vector<Index> priority_by_weighted_degree_seq(const Groups& candidates,
                                                   const Incidence& incidence,
                                                   std::span<const Weight> values) {
  const Index count = candidates.count();
  std::vector<Weight> average(at(count));
  ConflictScratch scratch(count);
  for (Index c = 0; c < count; ++c)
    average[at(c)] = scratch.average_conflict(candidates, incidence, values, c);
  return rank_by(average, values, /*parallel=*/false);
}

}  // namespace treematch::kernels
