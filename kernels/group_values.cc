// Row sums and group values (parallel and sequential twins), and the value-based priority order.
#include "kernels/group_values.h"

#include <algorithm>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

namespace treematch::kernels {
namespace {

std::size_t at(Index i) {
  return static_cast<std::size_t>(i);
}

Weight row_sum(CsrView graph, Index i) {
  if (i >= static_cast<Index>(graph.offsets.size()) - 1) return 0.0;
  Weight sum = 0.0;
  for (Offset e = graph.row_begin(i); e < graph.row_end(i); ++e)
    sum += graph.weights[static_cast<std::size_t>(e)];
  return sum;
}

/// Marks the members of the group being valued with the group's index, so that "is j in the
/// group" costs O(1); indexes are unique per call, so marks never need clearing.
class MemberMarks {
 public:
  explicit MemberMarks(Index n) : mark_(static_cast<std::size_t>(n), -1) {}

  /// value(G) = sum of the members' row sums - sum over ordered pairs inside G. Long rows (a
  /// dense matrix) look each pair up by binary search instead of scanning the members' rows.
  Weight value_of(CsrView graph, std::span<const Weight> rowsum, std::span<const Index> members,
                  Index g) {
    const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
    Weight outgoing = 0.0;
    Offset scanned = 0;
    for (Index i : members) {
      outgoing += rowsum[at(i)];
      if (i < stored) scanned += graph.row_end(i) - graph.row_begin(i);
    }
    const auto k = static_cast<Offset>(members.size());
    const bool lookup = scanned > 8 * k * k * 32;  // k^2 binary searches of ~32 steps are cheaper
    return outgoing - (lookup ? inside_by_lookup(graph, members, stored)
                              : inside_by_scan(graph, members, g, stored));
  }

 private:
  Weight inside_by_scan(CsrView graph, std::span<const Index> members, Index g, Index stored) {
    for (Index i : members) mark_[at(i)] = g;
    Weight inside = 0.0;
    for (Index i : members) {
      if (i >= stored) continue;
      for (Offset e = graph.row_begin(i); e < graph.row_end(i); ++e) {
        if (mark_[at(graph.targets[static_cast<std::size_t>(e)])] == g)
          inside += graph.weights[static_cast<std::size_t>(e)];
      }
    }
    return inside;
  }

  static Weight inside_by_lookup(CsrView graph, std::span<const Index> members, Index stored) {
    Weight inside = 0.0;
    for (Index i : members) {
      if (i >= stored) continue;
      const auto first = graph.targets.begin() + graph.row_begin(i);
      const auto last = graph.targets.begin() + graph.row_end(i);
      for (Index j : members) {  // members are sorted: the same order as a row scan
        const auto found = std::lower_bound(first, last, j);
        if (found != last && *found == j)
          inside += graph.weights[static_cast<std::size_t>(found - graph.targets.begin())];
      }
    }
    return inside;
  }

  std::vector<Index> mark_;
};

}  // namespace

std::vector<Weight> row_sums(CsrView graph) {
  std::vector<Weight> sums(at(graph.n));
  tbb::parallel_for(Index{0}, graph.n, [&](Index i) { sums[at(i)] = row_sum(graph, i); });
  return sums;
}

std::vector<Weight> row_sums_seq(CsrView graph) {
  std::vector<Weight> sums(at(graph.n));
  for (Index i = 0; i < graph.n; ++i) sums[at(i)] = row_sum(graph, i);
  return sums;
}

std::vector<Weight> group_values(CsrView graph, std::span<const Weight> rowsum,
                                 const Groups& groups) {
  std::vector<Weight> values(at(groups.count()));
  const Index n = graph.n;
  tbb::enumerable_thread_specific<MemberMarks> marks([n] { return MemberMarks(n); });
  tbb::parallel_for(tbb::blocked_range<Index>(0, groups.count(), 512),
                    [&](const tbb::blocked_range<Index>& range) {
                      MemberMarks& local = marks.local();
                      for (Index g = range.begin(); g != range.end(); ++g) {
                        values[at(g)] = local.value_of(graph, rowsum, groups.group(g), g);
                      }
                    });
  return values;
}

std::vector<Weight> group_values_seq(CsrView graph, std::span<const Weight> rowsum,
                                     const Groups& groups) {
  std::vector<Weight> values(at(groups.count()));
  MemberMarks marks(graph.n);
  for (Index g = 0; g < groups.count(); ++g)
    values[at(g)] = marks.value_of(graph, rowsum, groups.group(g), g);
  return values;
}

std::vector<Index> priority_by_value(std::span<const Weight> values) {
  std::vector<Index> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  // Keys are unique (value, index) pairs, so an unstable parallel sort is deterministic.
  tbb::parallel_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return values[at(a)] != values[at(b)] ? values[at(a)] < values[at(b)] : a < b;
  });
  std::vector<Index> priority(values.size());
  for (std::size_t r = 0; r < order.size(); ++r) priority[at(order[r])] = static_cast<Index>(r);
  return priority;
}

}  // namespace treematch::kernels
