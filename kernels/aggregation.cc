// AggregateComMatrix on sparse rows: parallel over groups with a fixed summation order, and its
// twin.
#include "kernels/aggregation.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

namespace treematch::kernels {
namespace {

std::size_t at(Index i) {
  return static_cast<std::size_t>(i);
}
std::size_t pos(Offset o) {
  return static_cast<std::size_t>(o);
}

std::vector<Index> group_of_vertices(const Groups& groups, Index n) {
  std::vector<Index> owner(at(n), -1);
  for (Index g = 0; g < groups.count(); ++g) {
    for (Index v : groups.group(g)) owner[at(v)] = g;
  }
  return owner;
}

/// Per-worker accumulator over the groups: acc[h] collects r[g][h] for the group g being built;
/// `stamp` says which g last wrote h, so nothing is cleared between groups. A row costs
/// O(sum of its members' degrees + t log t) for t distinct targets, dense rows included.
class RowAccumulator {
 public:
  explicit RowAccumulator(Index groups) : acc_(at(groups), 0.0), stamp_(at(groups), -1) {}

  /// Writes the aggregated row of group g at out_targets/out_weights[begin..); returns its length.
  /// Each r[g][h] is summed in member order, then row order: the same for any thread count.
  Offset build_row(CsrView graph, const Groups& groups, std::span<const Index> owner, Index g,
                   std::vector<Index>& out_targets, std::vector<Weight>& out_weights,
                   Offset begin) {
    touched_.clear();
    const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
    for (Index v : groups.group(g)) {
      if (v >= stored) continue;
      for (Offset e = graph.row_begin(v); e < graph.row_end(v); ++e) {
        const Index h = owner[at(graph.targets[pos(e)])];
        if (h == g) continue;
        if (stamp_[at(h)] != g) {
          stamp_[at(h)] = g;
          acc_[at(h)] = graph.weights[pos(e)];
          touched_.push_back(h);
        } else {
          acc_[at(h)] += graph.weights[pos(e)];
        }
      }
    }
    std::sort(touched_.begin(), touched_.end());
    for (std::size_t i = 0; i < touched_.size(); ++i) {
      out_targets[pos(begin) + i] = touched_[i];
      out_weights[pos(begin) + i] = acc_[at(touched_[i])];
    }
    return static_cast<Offset>(touched_.size());
  }

 private:
  std::vector<Weight> acc_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
};

/// Upper bound of each group's row: its members' degrees, at most the other groups (prefix
/// offsets).
std::vector<Offset> bound_offsets(CsrView graph, const Groups& groups) {
  const Index stored = static_cast<Index>(graph.offsets.size()) - 1;
  std::vector<Offset> bound(at(groups.count()) + 1, 0);
  for (Index g = 0; g < groups.count(); ++g) {
    Offset degree = 0;
    for (Index v : groups.group(g))
      degree += v < stored ? graph.row_end(v) - graph.row_begin(v) : 0;
    bound[at(g) + 1] = bound[at(g)] + std::min<Offset>(degree, groups.count() - 1);
  }
  return bound;
}

/// Packs rows written at bound offsets into a contiguous CSR.
Csr compact(Index count, const std::vector<Offset>& bound, const std::vector<Offset>& length,
            const std::vector<Index>& targets, const std::vector<Weight>& weights, bool parallel) {
  Csr out;
  out.n = count;
  out.offsets.assign(at(count) + 1, 0);
  for (Index g = 0; g < count; ++g) out.offsets[at(g) + 1] = out.offsets[at(g)] + length[at(g)];
  out.targets.resize(pos(out.offsets.back()));
  out.weights.resize(pos(out.offsets.back()));
  auto copy_row = [&](Index g) {
    std::copy_n(targets.begin() + bound[at(g)], length[at(g)],
                out.targets.begin() + out.offsets[at(g)]);
    std::copy_n(weights.begin() + bound[at(g)], length[at(g)],
                out.weights.begin() + out.offsets[at(g)]);
  };
  if (parallel) {
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
  const std::vector<Index> owner = group_of_vertices(groups, graph.n);
  const std::vector<Offset> bound = bound_offsets(graph, groups);
  std::vector<Index> targets(pos(bound.back()));
  std::vector<Weight> weights(pos(bound.back()));
  std::vector<Offset> length(at(count));
  const auto build = [&](RowAccumulator& accumulator, Index first, Index last) {
    for (Index g = first; g < last; ++g) {
      length[at(g)] =
          accumulator.build_row(graph, groups, owner, g, targets, weights, bound[at(g)]);
    }
  };
  if (parallel) {
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
  return compact(count, bound, length, targets, weights, parallel);
}

}  // namespace

Csr aggregate(CsrView graph, const Groups& groups) {
  return aggregate_rows(graph, groups, /*parallel=*/true);
}
Csr aggregate_seq(CsrView graph, const Groups& groups) {
  return aggregate_rows(graph, groups, /*parallel=*/false);
}

}  // namespace treematch::kernels
