// Row sums and group values (parallel and sequential twins), and the value-based priority order.
#include "kernels/group_values.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernels/parallel_tasks.h"

namespace treematch::kernels {
namespace {

Weight row_sum(CsrView graph, Index i) {
  if (i >= static_cast<Index>(graph.offsets.size()) - 1) return 0.0;
  Weight sum = 0.0;
  for (Offset e = graph.row_begin(i); e < graph.row_end(i); ++e)
    sum += graph.weights[static_cast<std::size_t>(e)];
  return sum;
}

/// Weight of row i inside `members` (sorted), added in row order. Long rows (a dense matrix) look
/// each member up by binary search instead of scanning the row: members are sorted, so both visit
/// the same entries in the same order and give the same sum.
Weight inside_of_row(CsrView rows, Index local_row, std::span<const Index> members,
                     std::span<const Index> mark, Index g) {
  const Offset begin = rows.row_begin(local_row);
  const Offset end = rows.row_end(local_row);
  const auto k = static_cast<Offset>(members.size());
  Weight inside = 0.0;
  // k binary searches touch ~k log2(length) entries of the row alone; the scan reads every entry
  // and a mark per entry, scattered over all processes.
  const Offset length = end - begin;
  if (k * static_cast<Offset>(std::bit_width(static_cast<std::uint64_t>(length))) < length) {
    for (Index j : members) {
      const Offset e = rows.find(local_row, j);
      if (e >= 0) inside += rows.weights[at(e)];
    }
    return inside;
  }
  for (Offset e = begin; e < end; ++e) {
    if (mark[at(rows.targets[static_cast<std::size_t>(e)])] == g)
      inside += rows.weights[static_cast<std::size_t>(e)];
  }
  return inside;
}

/// Marks the members of the group being valued with the group's index, so that "is j in the
/// group" costs O(1); indexes are unique per call, so marks never need clearing.
class MemberMarks {
 public:
  explicit MemberMarks(Index n) : mark_(static_cast<std::size_t>(n), -1) {}

  /// Writes the inside weight of each member whose row `rows` holds (rows from first_row) into
  /// partial[t]; members without a row here get 0.
  void partials_of(CsrView rows, Index first_row, std::span<const Index> members, Index g,
                   std::span<Weight> partial) {
    const Index held = static_cast<Index>(rows.offsets.size()) - 1;
    for (Index i : members) mark_[at(i)] = g;
    for (std::size_t t = 0; t < members.size(); ++t) {
      const Index local = members[t] - first_row;
      partial[t] = local >= 0 && local < held ? inside_of_row(rows, local, members, mark_, g) : 0.0;
    }
  }

  /// value(G) = sum of the members' row sums - sum over ordered pairs inside G.
  Weight value_of(CsrView graph, std::span<const Weight> rowsum, std::span<const Index> members,
                  Index g) {
    partial_.resize(members.size());
    partials_of(graph, /*first_row=*/0, members, g, partial_);
    return value_from_partials(rowsum, members, partial_);
  }

 private:
  std::vector<Index> mark_;
  std::vector<Weight> partial_;
};

/// Inside partials of every group, group by group (in parallel or not).
std::vector<Weight> partials_impl(CsrView rows, Index first_row, const Groups& groups,
                                  bool parallel) {
  std::vector<Weight> partial(groups.members.size(), 0.0);
  const auto k = static_cast<std::size_t>(groups.k);
  const auto fill = [&](MemberMarks& marks, Index g) {
    marks.partials_of(rows, first_row, groups.group(g), g,
                      std::span<Weight>(partial).subspan(at(g) * k, k));
  };
  const Index n = rows.n;
  if (parallel && worth_tasks(groups.count())) {
    tbb::enumerable_thread_specific<MemberMarks> marks([n] { return MemberMarks(n); });
    tbb::parallel_for(tbb::blocked_range<Index>(0, groups.count(), 512),
                      [&](const tbb::blocked_range<Index>& range) {
                        MemberMarks& local = marks.local();
                        for (Index g = range.begin(); g != range.end(); ++g) fill(local, g);
                      });
  } else {
    MemberMarks marks(n);
    for (Index g = 0; g < groups.count(); ++g) fill(marks, g);
  }
  return partial;
}

}  // namespace

std::vector<Weight> row_sums(CsrView graph) {
  if (!worth_tasks(graph.n)) return row_sums_seq(graph);
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
  if (!worth_tasks(groups.count())) return group_values_seq(graph, rowsum, groups);
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

Weight value_from_partials(std::span<const Weight> rowsum, std::span<const Index> members,
                           std::span<const Weight> partials) {
  Weight outgoing = 0.0;
  for (Index i : members) outgoing += rowsum[at(i)];
  Weight inside = 0.0;
  for (Weight part : partials) inside += part;
  return outgoing - inside;
}

std::vector<Weight> inside_partials(CsrView rows, Index first_row, const Groups& groups) {
  return partials_impl(rows, first_row, groups, /*parallel=*/true);
}

std::vector<Weight> inside_partials_seq(CsrView rows, Index first_row, const Groups& groups) {
  return partials_impl(rows, first_row, groups, /*parallel=*/false);
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
