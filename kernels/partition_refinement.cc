// Level-wise swap refinement: proposals in parallel, applied in a fixed order on untouched groups.
#include "kernels/partition_refinement.h"

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
std::size_t at(Offset e) {
  return static_cast<std::size_t>(e);
}

struct Proposal {
  double gain = 0.0;
  Index v = -1;
  Index u = -1;
};

constexpr std::size_t kGroupsTried = 2;

/// One worker's view of v's links to groups; stamps avoid clearing between processes.
class ProposalScratch {
 public:
  explicit ProposalScratch(Index groups) : conn_(at(groups), 0.0), stamp_(at(groups), -1) {}

  Proposal propose(CsrView m, Index stored, const Groups& groups, const std::vector<Index>& owner,
                   Index v) {
    Proposal best;
    if (v >= stored) return best;  // artificial: moved only as someone's partner
    const Index a = owner[at(v)];
    touched_.clear();
    for (Offset e = m.row_begin(v); e < m.row_end(v); ++e) {
      const Index g = owner[at(m.targets[at(e)])];
      if (stamp_[at(g)] != v) {
        stamp_[at(g)] = v;
        conn_[at(g)] = 0.0;
        touched_.push_back(g);
      }
      conn_[at(g)] += m.weights[at(e)];
    }
    const Weight own = stamp_[at(a)] == v ? conn_[at(a)] : 0.0;
    targets_.clear();
    for (Index b : touched_) {
      if (b != a && conn_[at(b)] > own) targets_.push_back(b);
    }
    const std::size_t keep = std::min(targets_.size(), kGroupsTried);
    std::partial_sort(targets_.begin(), targets_.begin() + static_cast<std::ptrdiff_t>(keep),
                      targets_.end(), [&](Index x, Index y) {
                        return conn_[at(x)] != conn_[at(y)] ? conn_[at(x)] > conn_[at(y)] : x < y;
                      });
    best.gain = 1e-9;
    for (std::size_t t = 0; t < keep; ++t) {
      const Index b = targets_[t];
      for (Index u : groups.group(b)) {
        const double gain = conn_[at(b)] - own + partner_gain(m, stored, owner, u, a, b, v);
        if (gain > best.gain) best = Proposal{gain, v, u};
      }
    }
    return best.u >= 0 ? best : Proposal{};
  }

 private:
  /// conn(u,A) - conn(u,B) - 2 w(u,v): what moving u from B to A (v leaving A) adds.
  static double partner_gain(CsrView m, Index stored, const std::vector<Index>& owner, Index u,
                             Index a, Index b, Index v) {
    if (u >= stored) return 0.0;
    double to_a = 0.0;
    double to_b = 0.0;
    double to_v = 0.0;
    for (Offset e = m.row_begin(u); e < m.row_end(u); ++e) {
      const Index t = m.targets[at(e)];
      const Index g = owner[at(t)];
      if (t == v) to_v = m.weights[at(e)];
      if (g == a) to_a += m.weights[at(e)];
      if (g == b) to_b += m.weights[at(e)];
    }
    return to_a - to_b - 2.0 * to_v;
  }

  std::vector<Weight> conn_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
  std::vector<Index> targets_;
};

void replace_member(Groups& groups, Index g, Index from, Index to) {
  auto first = groups.members.begin() + static_cast<std::ptrdiff_t>(g) * groups.k;
  auto last = first + groups.k;
  *std::find(first, last, from) = to;
  std::sort(first, last);
}

long long refine(CsrView m, Groups& groups, int rounds, bool parallel) {
  if (groups.count() < 2) return 0;
  const Index stored = static_cast<Index>(m.offsets.size()) - 1;
  const Index count = groups.count();
  std::vector<Index> owner(at(m.n));
  for (Index g = 0; g < count; ++g) {
    for (Index v : groups.group(g)) owner[at(v)] = g;
  }
  std::vector<Proposal> proposals(at(m.n));
  std::vector<std::uint8_t> changed(at(count), 0);
  long long swaps = 0;
  for (int round = 0; round < rounds; ++round) {
    // 1. Every process proposes its best swap against the same state.
    if (parallel) {
      tbb::enumerable_thread_specific<ProposalScratch> scratch(
          [count] { return ProposalScratch(count); });
      tbb::parallel_for(tbb::blocked_range<Index>(0, m.n, 512),
                        [&](const tbb::blocked_range<Index>& range) {
                          ProposalScratch& local = scratch.local();
                          for (Index v = range.begin(); v != range.end(); ++v)
                            proposals[at(v)] = local.propose(m, stored, groups, owner, v);
                        });
    } else {
      ProposalScratch local(count);
      for (Index v = 0; v < m.n; ++v) proposals[at(v)] = local.propose(m, stored, groups, owner, v);
    }
    // 2. Best first; a swap whose groups another swap changed would have a stale gain: skipped.
    std::vector<Proposal> kept;
    for (const Proposal& p : proposals) {
      if (p.u >= 0) kept.push_back(p);
    }
    std::sort(kept.begin(), kept.end(), [](const Proposal& x, const Proposal& y) {
      return x.gain != y.gain ? x.gain > y.gain : x.v < y.v;
    });
    std::fill(changed.begin(), changed.end(), 0);
    long long applied = 0;
    for (const Proposal& p : kept) {
      const Index a = owner[at(p.v)];
      const Index b = owner[at(p.u)];
      if (changed[at(a)] || changed[at(b)]) continue;
      changed[at(a)] = changed[at(b)] = 1;
      replace_member(groups, a, p.v, p.u);
      replace_member(groups, b, p.u, p.v);
      owner[at(p.v)] = b;
      owner[at(p.u)] = a;
      ++applied;
    }
    swaps += applied;
    if (applied == 0) break;
  }
  groups = ordered_by_first_member(groups);
  return swaps;
}

}  // namespace

long long refine_partition(CsrView graph, Groups& groups, int rounds) {
  return refine(graph, groups, rounds, true);
}
long long refine_partition_seq(CsrView graph, Groups& groups, int rounds) {
  return refine(graph, groups, rounds, false);
}

}  // namespace treematch::kernels
