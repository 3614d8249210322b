// Level-wise swap refinement: the greedy grouping's leftovers are repaired by pairwise exchanges.
#include "src/group_refinement.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace treematch {
namespace {

using kernels::Offset;
using kernels::Weight;

std::size_t at(Index i) {
  return static_cast<std::size_t>(i);
}
std::size_t at(Offset e) {
  return static_cast<std::size_t>(e);
}

class PartitionSwaps {
 public:
  PartitionSwaps(kernels::CsrView graph, kernels::Groups& groups)
      : m_(graph),
        stored_(static_cast<Index>(graph.offsets.size()) - 1),
        groups_(groups),
        owner_(at(graph.n)),
        conn_(at(groups.count()), 0.0),
        stamp_(at(groups.count()), -1) {
    for (Index g = 0; g < groups.count(); ++g) {
      for (Index v : groups.group(g)) owner_[at(v)] = g;
    }
  }

  /// Tries the best swap for process v; true if one was applied.
  bool improve(Index v) {
    if (v >= stored_) return false;  // artificial: moved only as someone's partner
    const Index a = owner_[at(v)];
    gather(v);
    const Weight own = stamp_[at(a)] == v ? conn_[at(a)] : 0.0;
    // Only the groups v talks to most are worth a look (ties: smaller group index).
    targets_.clear();
    for (Index b : touched_) {
      if (b != a && conn_[at(b)] > own) targets_.push_back(b);
    }
    const std::size_t keep = std::min<std::size_t>(targets_.size(), kGroupsTried);
    std::partial_sort(targets_.begin(), targets_.begin() + static_cast<std::ptrdiff_t>(keep),
                      targets_.end(), [&](Index x, Index y) {
                        return conn_[at(x)] != conn_[at(y)] ? conn_[at(x)] > conn_[at(y)] : x < y;
                      });
    double best_gain = 1e-9;
    Index best_u = -1;
    for (std::size_t t = 0; t < keep; ++t) {
      const Index b = targets_[t];
      for (Index u : groups_.group(b)) {
        const double gain = conn_[at(b)] - own + partner_gain(u, a, b, v);
        if (gain > best_gain) {
          best_gain = gain;
          best_u = u;
        }
      }
    }
    if (best_u < 0) return false;
    swap(v, best_u);
    return true;
  }

 private:
  /// conn_[g] = weight from v to group g, for the groups in touched_ (stamped with v).
  void gather(Index v) {
    touched_.clear();
    for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e) {
      const Index g = owner_[at(m_.targets[at(e)])];
      if (stamp_[at(g)] != v) {
        stamp_[at(g)] = v;
        conn_[at(g)] = 0.0;
        touched_.push_back(g);
      }
      conn_[at(g)] += m_.weights[at(e)];
    }
    std::sort(touched_.begin(), touched_.end());  // visit order independent of row order
  }

  /// conn(u,A) - conn(u,B) - 2 w(u,v): what moving u from B to A (v leaving A) adds.
  double partner_gain(Index u, Index a, Index b, Index v) const {
    if (u >= stored_) return 0.0;
    double to_a = 0.0;
    double to_b = 0.0;
    double to_v = 0.0;
    for (Offset e = m_.row_begin(u); e < m_.row_end(u); ++e) {
      const Index t = m_.targets[at(e)];
      const Index g = owner_[at(t)];
      if (t == v) to_v = m_.weights[at(e)];
      if (g == a) to_a += m_.weights[at(e)];
      if (g == b) to_b += m_.weights[at(e)];
    }
    return to_a - to_b - 2.0 * to_v;
  }

  void swap(Index v, Index u) {
    const Index a = owner_[at(v)];
    const Index b = owner_[at(u)];
    replace_member(a, v, u);
    replace_member(b, u, v);
    owner_[at(v)] = b;
    owner_[at(u)] = a;
  }

  void replace_member(Index g, Index from, Index to) {
    auto first = groups_.members.begin() + static_cast<std::ptrdiff_t>(g) * groups_.k;
    auto last = first + groups_.k;
    *std::find(first, last, from) = to;
    std::sort(first, last);
  }

  kernels::CsrView m_;
  Index stored_;
  kernels::Groups& groups_;
  std::vector<Index> owner_;
  std::vector<Weight> conn_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
  std::vector<Index> targets_;
  static constexpr std::size_t kGroupsTried = 2;
};

kernels::Groups ordered_by_first_member(const kernels::Groups& groups) {
  std::vector<Index> order(at(groups.count()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](Index x, Index y) { return groups.group(x)[0] < groups.group(y)[0]; });
  kernels::Groups out;
  out.k = groups.k;
  out.members.reserve(groups.members.size());
  for (Index g : order)
    out.members.insert(out.members.end(), groups.group(g).begin(), groups.group(g).end());
  return out;
}

}  // namespace

long long refine_partition(kernels::CsrView graph, kernels::Groups& groups, int passes) {
  if (groups.count() < 2) return 0;
  long long swaps = 0;
  {
    PartitionSwaps search(graph, groups);
    for (int pass = 0; pass < passes; ++pass) {
      long long made = 0;
      for (Index v = 0; v < graph.n; ++v) made += search.improve(v) ? 1 : 0;
      swaps += made;
      if (made == 0) break;
    }
  }
  groups = ordered_by_first_member(groups);
  return swaps;
}

}  // namespace treematch
