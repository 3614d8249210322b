// Swap refinement: each rank tries the leaves beside its heaviest partners and keeps a cheaper
// swap.
#include "src/refinement.h"

#include <algorithm>

namespace treematch {
namespace {

std::size_t at(Index i) {
  return static_cast<std::size_t>(i);
}
std::size_t at(Offset e) {
  return static_cast<std::size_t>(e);
}

/// Everything one pass needs, kept across ranks to avoid allocations.
class SwapSearch {
 public:
  SwapSearch(const CommGraph& graph, const Topology& tree, std::vector<Index>& leaf_of_rank)
      : m_(graph.view()), tree_(tree), leaf_(leaf_of_rank), occupant_(at(tree.leaf_count()), -1) {
    for (std::size_t r = 0; r < leaf_.size(); ++r) occupant_[at(leaf_[r])] = static_cast<Index>(r);
    sibling_block_ = tree.depth() == 0 ? 1 : tree.leaves_below(tree.depth() - 1);
  }

  /// Weighted cost over stored entries (each pair twice).
  [[nodiscard]] double cost() const {
    double total = 0.0;
    for (Index i = 0; i < m_.n; ++i) {
      for (Offset e = m_.row_begin(i); e < m_.row_end(i); ++e) {
        total +=
            m_.weights[at(e)] * tree_.weighted_distance(leaf_[at(i)], leaf_[at(m_.targets[at(e)])]);
      }
    }
    return total;
  }

  /// Tries the candidate leaves of rank i; applies the best strictly improving swap. True if
  /// applied.
  bool improve(Index i, int partners) {
    const Index a = leaf_[at(i)];
    collect_candidates(i, a, partners);
    double best_gain = 0.0;
    Index best_leaf = -1;
    for (Index b : candidates_) {
      const double gain = swap_gain(i, a, b);
      if (gain > best_gain * (1.0 + 1e-12) + 1e-9) {
        best_gain = gain;
        best_leaf = b;
      }
    }
    if (best_leaf < 0) return false;
    const Index j = occupant_[at(best_leaf)];
    leaf_[at(i)] = best_leaf;
    occupant_[at(best_leaf)] = i;
    occupant_[at(a)] = j;
    if (j >= 0) leaf_[at(j)] = a;
    return true;
  }

 private:
  /// Leaves under the same lowest node as the leaves of i's heaviest partners (not i's own).
  void collect_candidates(Index i, Index a, int partners) {
    heaviest_.clear();
    for (Offset e = m_.row_begin(i); e < m_.row_end(i); ++e)
      heaviest_.emplace_back(-m_.weights[at(e)], m_.targets[at(e)]);
    const std::size_t keep = std::min(heaviest_.size(), at(partners));
    std::partial_sort(heaviest_.begin(), heaviest_.begin() + static_cast<std::ptrdiff_t>(keep),
                      heaviest_.end());
    candidates_.clear();
    for (std::size_t h = 0; h < keep; ++h) {
      const Index first = leaf_[at(heaviest_[h].second)] / sibling_block_ * sibling_block_;
      for (Index b = first; b < first + sibling_block_; ++b) {
        if (b != a) candidates_.push_back(b);
      }
    }
    std::sort(candidates_.begin(), candidates_.end());
    candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  }

  /// How much moving rank r from leaf `from` to leaf `to` lowers its own terms (others fixed).
  double move_gain(Index r, Index from, Index to) const {
    double gain = 0.0;
    for (Offset e = m_.row_begin(r); e < m_.row_end(r); ++e) {
      const Index other = leaf_[at(m_.targets[at(e)])];
      gain += m_.weights[at(e)] *
              (tree_.weighted_distance(from, other) - tree_.weighted_distance(to, other));
    }
    return gain;
  }

  /// Gain of exchanging rank i (on a) with the occupant of b (or moving i to b when empty).
  double swap_gain(Index i, Index a, Index b) const {
    const Index j = occupant_[at(b)];
    double gain = move_gain(i, a, b);
    if (j < 0) return gain;
    gain += move_gain(j, b, a);
    // Both sums counted the i-j link as if the other had stayed; it does not change.
    const auto row = m_.targets.subspan(at(m_.row_begin(i)), at(m_.row_end(i) - m_.row_begin(i)));
    const auto found = std::lower_bound(row.begin(), row.end(), j);
    if (found != row.end() && *found == j) {
      gain -= 2.0 *
              m_.weights[at(m_.row_begin(i)) + static_cast<std::size_t>(found - row.begin())] *
              tree_.weighted_distance(a, b);
    }
    return gain;
  }

  kernels::CsrView m_;
  const Topology& tree_;
  std::vector<Index>& leaf_;
  std::vector<Index> occupant_;
  Index sibling_block_ = 1;
  std::vector<std::pair<Weight, Index>> heaviest_;
  std::vector<Index> candidates_;
};

}  // namespace

RefinementStats refine_by_swaps(const CommGraph& graph, const Topology& tree,
                                std::vector<Index>& leaf_of_rank, const RefinementContext& ctx) {
  RefinementStats stats;
  SwapSearch search(graph, tree, leaf_of_rank);
  stats.cost_before = search.cost();
  for (int pass = 0; pass < ctx.passes; ++pass) {
    long long swaps = 0;
    for (Index i = 0; i < graph.size(); ++i) swaps += search.improve(i, ctx.partners) ? 1 : 0;
    stats.passes = pass + 1;
    stats.swaps += swaps;
    if (swaps == 0) break;
  }
  stats.cost_after = search.cost();
  return stats;
}

}  // namespace treematch
