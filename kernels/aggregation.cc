// AggregateComMatrix on sparse rows: parallel over groups with a fixed summation order, and its
// twin.
#include "kernels/aggregation.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "kernels/parallel_tasks.h"

namespace treematch::kernels {
namespace {

/// Sums one row by target group: r[v][h] = sum of m[v][j] over j in group h (h != v's group), in
/// row order. `stamp` says which row last wrote h, so nothing is cleared between rows.
class MemberRowSum {
 public:
  explicit MemberRowSum(Index groups) : acc_(at(groups), 0.0), stamp_(at(groups), -1) {}

  /// Sums held row `local_row` (vertex v) of `rows`; touched() lists the groups in first-touch
  /// order, weight(h) their sums.
  void sum(CsrView rows, Index local_row, Index v, std::span<const Index> owner) {
    touched_.clear();
    const Index g = owner[at(v)];
    for (Offset e = rows.row_begin(local_row); e < rows.row_end(local_row); ++e) {
      const Index h = owner[at(rows.targets[at(e)])];
      if (h == g) continue;
      if (stamp_[at(h)] != v) {
        stamp_[at(h)] = v;
        acc_[at(h)] = rows.weights[at(e)];
        touched_.push_back(h);
      } else {
        acc_[at(h)] += rows.weights[at(e)];
      }
    }
  }

  [[nodiscard]] std::vector<Index>& touched() { return touched_; }
  [[nodiscard]] Weight weight(Index h) const { return acc_[at(h)]; }

 private:
  std::vector<Weight> acc_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
};

/// Per-worker accumulator over the groups: each member's row is summed by target group first,
/// then the members' sums are added in member order (PartialRowFolder), so that partial rows
/// summed where the rows live (MPI ranks) fold into the very same values. A group's row costs
/// O(sum of its members' degrees + t log t) for t distinct targets, dense rows included.
class RowAccumulator {
 public:
  explicit RowAccumulator(Index groups) : member_(groups), folder_(groups) {}

  /// Writes the aggregated row of group g at out_targets/out_weights[begin..); returns its length.
  Offset build_row(CsrView graph, const Groups& groups, std::span<const Index> owner, Index g,
                   std::span<Index> out_targets, std::span<Weight> out_weights, Offset begin) {
    const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
    for (Index v : groups.group(g)) {
      if (v >= stored) continue;
      member_.sum(graph, v, v, owner);
      for (Index h : member_.touched()) folder_.add_entry(h, member_.weight(h), g);
    }
    return folder_.emit(out_targets.subspan(at(begin)), out_weights.subspan(at(begin)));
  }

 private:
  MemberRowSum member_;
  PartialRowFolder folder_;
};

/// Upper bound of each group's row: its members' degrees, at most the other groups (prefix
/// offsets).
std::vector<Offset> bound_offsets(CsrView graph, const Groups& groups, bool parallel) {
  const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
  std::vector<Offset> bound(at(groups.count()) + 1, 0);
  const auto row_bound = [&](Index g) {
    Offset degree = 0;
    for (Index v : groups.group(g))
      degree += v < stored ? graph.row_end(v) - graph.row_begin(v) : 0;
    bound[at(g) + 1] = std::min<Offset>(degree, groups.count() - 1);
  };
  if (parallel && worth_tasks(groups.count())) {
    tbb::parallel_for(Index{0}, groups.count(), row_bound);
  } else {
    for (Index g = 0; g < groups.count(); ++g) row_bound(g);
  }
  std::partial_sum(bound.begin(), bound.end(), bound.begin());
  return bound;
}

/// Packs rows written at bound offsets into a contiguous CSR.
Csr compact(Index count, const std::vector<Offset>& bound, const std::vector<Offset>& length,
            std::span<const Index> targets, std::span<const Weight> weights, bool parallel) {
  Csr out;
  out.n = count;
  out.offsets.assign(at(count) + 1, 0);
  for (Index g = 0; g < count; ++g) out.offsets[at(g) + 1] = out.offsets[at(g)] + length[at(g)];
  out.targets.resize(at(out.offsets.back()));
  out.weights.resize(at(out.offsets.back()));
  auto copy_row = [&](Index g) {
    std::copy_n(targets.begin() + bound[at(g)], length[at(g)],
                out.targets.begin() + out.offsets[at(g)]);
    std::copy_n(weights.begin() + bound[at(g)], length[at(g)],
                out.weights.begin() + out.offsets[at(g)]);
  };
  if (parallel && worth_tasks(count)) {
    tbb::parallel_for(Index{0}, count, copy_row);
  } else {
    for (Index g = 0; g < count; ++g) copy_row(g);
  }
  return out;
}

}  // namespace

namespace {

/// Rows are built into upper-bound slots (in parallel or not), then packed.
Csr aggregate_rows(CsrView graph, const Groups& groups, bool parallel) {
  const Index count = groups.count();
  const std::vector<Index> owner = group_owner(groups, graph.n);
  const std::vector<Offset> bound = bound_offsets(graph, groups, parallel);
  // Slots past a row's length are never read: left uninitialised, so that the pages are first
  // touched by the tasks that write them rather than zeroed by one thread.
  const auto target_slots = std::make_unique_for_overwrite<Index[]>(at(bound.back()));
  const auto weight_slots = std::make_unique_for_overwrite<Weight[]>(at(bound.back()));
  const std::span<Index> targets(target_slots.get(), at(bound.back()));
  const std::span<Weight> weights(weight_slots.get(), at(bound.back()));
  std::vector<Offset> length(at(count));
  const auto build = [&](RowAccumulator& accumulator, Index first, Index last) {
    for (Index g = first; g < last; ++g) {
      length[at(g)] =
          accumulator.build_row(graph, groups, owner, g, targets, weights, bound[at(g)]);
    }
  };
  if (parallel && worth_tasks(count)) {
    tbb::enumerable_thread_specific<RowAccumulator> accumulators(
        [count] { return RowAccumulator(count); });
    tbb::parallel_for(tbb::blocked_range<Index>(0, count, 256),
                      [&](const tbb::blocked_range<Index>& range) {
                        build(accumulators.local(), range.begin(), range.end());
                      });
  } else {
    RowAccumulator accumulator(count);
    build(accumulator, 0, count);
  }
  Csr out = compact(count, bound, length, targets, weights, parallel);
  mirror_upper_triangle(out);
  return out;
}

}  // namespace

void mirror_upper_triangle(Csr& matrix) {
  const Index rows = static_cast<Index>(matrix.offsets.size()) - 1;
  const CsrView view = matrix.view();
  // Only entries below the diagonal are written, only entries above it read: no row races.
  const auto mirror_row = [&](Index g) {
    for (Offset e = view.row_begin(g); e < view.row_end(g); ++e) {
      const Index h = view.targets[at(e)];
      if (h >= g) break;  // sorted: the rest is above the diagonal
      const Offset mirror = view.find(h, g);
      if (mirror >= 0) matrix.weights[at(e)] = view.weights[at(mirror)];
    }
  };
  if (worth_tasks(rows)) {
    tbb::parallel_for(Index{0}, rows, mirror_row);
  } else {
    for (Index g = 0; g < rows; ++g) mirror_row(g);
  }
}

PartialRowFolder::PartialRowFolder(Index groups) : acc_(at(groups), 0.0), stamp_(at(groups), -1) {}

void PartialRowFolder::add(std::span<const Index> targets, std::span<const Weight> weights,
                           Index g) {
  for (std::size_t e = 0; e < targets.size(); ++e) add_entry(targets[e], weights[e], g);
}

Offset PartialRowFolder::emit(std::span<Index> targets, std::span<Weight> weights) {
  std::sort(touched_.begin(), touched_.end());
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    targets[i] = touched_[i];
    weights[i] = acc_[at(touched_[i])];
  }
  const auto length = static_cast<Offset>(touched_.size());
  touched_.clear();
  return length;
}

Csr member_partial_rows(CsrView rows, Index first_row, std::span<const Index> owner, Index groups) {
  const Index held = static_cast<Index>(rows.offsets.size()) - 1;
  Csr out;
  out.n = groups;
  out.offsets.assign(at(held) + 1, 0);
  for (Index l = 0; l < held; ++l) {
    out.offsets[at(l) + 1] =
        out.offsets[at(l)] + std::min<Offset>(rows.row_end(l) - rows.row_begin(l), groups);
  }
  std::vector<Index> targets(at(out.offsets.back()));
  std::vector<Weight> weights(at(out.offsets.back()));
  std::vector<Offset> length(at(held));
  tbb::enumerable_thread_specific<MemberRowSum> sums([groups] { return MemberRowSum(groups); });
  tbb::parallel_for(tbb::blocked_range<Index>(0, held, 256),
                    [&](const tbb::blocked_range<Index>& range) {
                      MemberRowSum& member = sums.local();
                      for (Index l = range.begin(); l != range.end(); ++l) {
                        member.sum(rows, l, first_row + l, owner);
                        std::vector<Index>& touched = member.touched();
                        std::sort(touched.begin(), touched.end());
                        const auto begin = at(out.offsets[at(l)]);
                        for (std::size_t i = 0; i < touched.size(); ++i) {
                          targets[begin + i] = touched[i];
                          weights[begin + i] = member.weight(touched[i]);
                        }
                        length[at(l)] = static_cast<Offset>(touched.size());
                      }
                    });
  Csr packed = compact(held, out.offsets, length, targets, weights, /*parallel=*/true);
  packed.n = groups;
  return packed;
}

Csr aggregate(CsrView graph, const Groups& groups) {
  return aggregate_rows(graph, groups, /*parallel=*/true);
}
Csr aggregate_seq(CsrView graph, const Groups& groups) {
  return aggregate_rows(graph, groups, /*parallel=*/false);
}

}  // namespace treematch::kernels
