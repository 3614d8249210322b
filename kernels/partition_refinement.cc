// Level-wise swap refinement: proposals in parallel, applied in a fixed order on untouched groups.
#include "kernels/partition_refinement.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "kernels/parallel_tasks.h"

namespace treematch::kernels {
namespace {

constexpr std::size_t kGroupsTried = 2;

void replace_member(Groups& groups, Index g, Index from, Index to) {
  auto first = groups.members.begin() + static_cast<std::ptrdiff_t>(g) * groups.k;
  auto last = first + groups.k;
  *std::find(first, last, from) = to;
  std::sort(first, last);
}

/// conn(u, owner u) for every stored process u, in row order (rows in parallel).
std::vector<Weight> internal_weights(CsrView m, Index stored, std::span<const Index> owner) {
  std::vector<Weight> internal(at(stored), 0.0);
  const auto rows = [&](Index first, Index last) {
    for (Index u = first; u != last; ++u) {
      for (Offset e = m.row_begin(u); e < m.row_end(u); ++e) {
        if (owner[at(m.targets[at(e)])] == owner[at(u)]) internal[at(u)] += m.weights[at(e)];
      }
    }
  };
  if (worth_tasks(stored)) {
    tbb::parallel_for(
        tbb::blocked_range<Index>(0, stored, 2048),
        [&](const tbb::blocked_range<Index>& range) { rows(range.begin(), range.end()); });
  } else {
    rows(0, stored);
  }
  return internal;
}

/// One worker's view: v's options, then their partner gains, then the best.
struct ProposalScratch {
  explicit ProposalScratch(Index groups) : finder(groups) {}

  SwapProposal propose(CsrView m, Index stored, const Groups& groups,
                       const std::vector<Index>& owner, std::span<const Weight> internal, Index v) {
    if (v >= stored) return {};  // artificial: moved only as someone's partner
    options.clear();
    finder.options(m, v, v, groups, owner, options);
    if (internal.empty()) {  // the reference: each partner's own row
      gains.resize(options.size());
      for (std::size_t o = 0; o < options.size(); ++o) {
        const SwapOption& option = options[o];
        gains[o] =
            option.u < stored ? partner_gain(m, option.u, owner, option.a, option.b, v) : 0.0;
      }
    } else {
      gains_from_own_group(m, stored, groups, owner, internal, v);
    }
    return best_swap(v, options, gains);
  }

  /// partner_gain for every option, from the rows of v's group A instead of each partner u's
  /// row: conn(u, A) adds w(x, u) over the members x of A in increasing order, which is u's row
  /// order (rows sorted, the matrix symmetric), so the sums are the same; conn(u, B) is u's
  /// internal weight. k rows per process instead of 2k.
  void gains_from_own_group(CsrView m, Index stored, const Groups& groups,
                            const std::vector<Index>& owner, std::span<const Weight> internal,
                            Index v) {
    // Options come as each target group's members in order, one block of k per target.
    const std::size_t k = at(groups.k);
    to_a.assign(options.size(), 0.0);
    to_v.assign(options.size(), 0.0);
    const auto option_of = [&](Index u) -> std::ptrdiff_t {
      for (std::size_t first = 0; first < options.size(); first += k) {
        if (owner[at(u)] != options[first].b) continue;
        const std::span<const Index> block = groups.group(options[first].b);
        return static_cast<std::ptrdiff_t>(first) +
               (std::lower_bound(block.begin(), block.end(), u) - block.begin());
      }
      return -1;
    };
    for (Index x : groups.group(owner[at(v)])) {
      if (x >= stored) continue;
      for (Offset e = m.row_begin(x); e < m.row_end(x); ++e) {
        const std::ptrdiff_t o = option_of(m.targets[at(e)]);
        if (o < 0) continue;
        to_a[at(o)] += m.weights[at(e)];
        if (x == v) to_v[at(o)] = m.weights[at(e)];
      }
    }
    gains.resize(options.size());
    for (std::size_t o = 0; o < options.size(); ++o) {
      const Index u = options[o].u;
      gains[o] = u < stored ? to_a[o] - internal[at(u)] - 2.0 * to_v[o] : 0.0;
    }
  }

  SwapOptionFinder finder;
  std::vector<SwapOption> options;
  std::vector<double> gains;
  std::vector<double> to_a;
  std::vector<double> to_v;
};

bool members_sorted(const Groups& groups) {
  for (Index g = 0; g < groups.count(); ++g) {
    if (!std::is_sorted(groups.group(g).begin(), groups.group(g).end())) return false;
  }
  return true;
}

long long refine(CsrView m, Groups& groups, int rounds, bool parallel) {
  if (groups.count() < 2) return 0;
  const Index stored = static_cast<Index>(m.offsets.size()) - 1;
  const Index count = groups.count();
  std::vector<Index> owner = group_owner(groups, m.n);
  std::vector<SwapProposal> proposals(at(m.n));
  long long swaps = 0;
  // Sorted members let the partner gains come from the proposer's own group's rows (the
  // sequential twin, a reference, reads each partner's row).
  const bool by_own_group = parallel && members_sorted(groups);
  for (int round = 0; round < rounds; ++round) {
    const std::vector<Weight> internal =
        by_own_group ? internal_weights(m, stored, owner) : std::vector<Weight>{};
    // 1. Every process proposes its best swap against the same state.
    if (parallel && worth_tasks(m.n)) {
      tbb::enumerable_thread_specific<ProposalScratch> scratch(
          [count] { return ProposalScratch(count); });
      tbb::parallel_for(tbb::blocked_range<Index>(0, m.n, 512),
                        [&](const tbb::blocked_range<Index>& range) {
                          ProposalScratch& local = scratch.local();
                          for (Index v = range.begin(); v != range.end(); ++v)
                            proposals[at(v)] = local.propose(m, stored, groups, owner, internal, v);
                        });
    } else {
      ProposalScratch local(count);
      for (Index v = 0; v < m.n; ++v)
        proposals[at(v)] = local.propose(m, stored, groups, owner, internal, v);
    }
    // 2. Best first, on groups no applied swap has changed yet.
    const long long applied = apply_swaps(proposals, groups, owner);
    swaps += applied;
    if (applied == 0) break;
  }
  groups = ordered_by_first_member(groups);
  return swaps;
}

}  // namespace

SwapOptionFinder::SwapOptionFinder(Index groups) : conn_(at(groups), 0.0), stamp_(at(groups), -1) {}

void SwapOptionFinder::options(CsrView rows, Index local_row, Index v, const Groups& groups,
                               std::span<const Index> owner, std::vector<SwapOption>& out) {
  const Index a = owner[at(v)];
  touched_.clear();
  for (Offset e = rows.row_begin(local_row); e < rows.row_end(local_row); ++e) {
    const Index g = owner[at(rows.targets[at(e)])];
    if (stamp_[at(g)] != v) {
      stamp_[at(g)] = v;
      conn_[at(g)] = 0.0;
      touched_.push_back(g);
    }
    conn_[at(g)] += rows.weights[at(e)];
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
  for (std::size_t t = 0; t < keep; ++t) {
    const Index b = targets_[t];
    for (Index u : groups.group(b)) out.push_back(SwapOption{u, a, b, conn_[at(b)] - own});
  }
}

double partner_balance(CsrView rows, Index local_row, std::span<const Index> owner, Index a,
                       Index b) {
  double to_a = 0.0;
  double to_b = 0.0;
  for (Offset e = rows.row_begin(local_row); e < rows.row_end(local_row); ++e) {
    const Index g = owner[at(rows.targets[at(e)])];
    if (g == a) to_a += rows.weights[at(e)];
    if (g == b) to_b += rows.weights[at(e)];
  }
  return to_a - to_b;
}

double partner_gain(CsrView rows, Index local_row, std::span<const Index> owner, Index a, Index b,
                    Index v) {
  return partner_balance(rows, local_row, owner, a, b) - 2.0 * rows.weight(local_row, v);
}

SwapProposal best_swap(Index v, std::span<const SwapOption> options,
                       std::span<const double> partner_gains) {
  SwapProposal best;
  best.gain = 1e-9;
  for (std::size_t o = 0; o < options.size(); ++o) {
    const double gain = options[o].base + partner_gains[o];
    if (gain > best.gain) best = SwapProposal{gain, v, options[o].u};
  }
  return best.u >= 0 ? best : SwapProposal{};
}

long long apply_swaps(std::vector<SwapProposal> proposals, Groups& groups,
                      std::vector<Index>& owner) {
  std::erase_if(proposals, [](const SwapProposal& p) { return p.u < 0; });
  std::sort(proposals.begin(), proposals.end(), [](const SwapProposal& x, const SwapProposal& y) {
    return x.gain != y.gain ? x.gain > y.gain : x.v < y.v;
  });
  // A swap whose groups another swap changed would have a stale gain: skipped.
  std::vector<std::uint8_t> changed(at(groups.count()), 0);
  long long applied = 0;
  for (const SwapProposal& p : proposals) {
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
  return applied;
}

long long refine_partition(CsrView graph, Groups& groups, int rounds) {
  return refine(graph, groups, rounds, true);
}
long long refine_partition_seq(CsrView graph, Groups& groups, int rounds) {
  return refine(graph, groups, rounds, false);
}

}  // namespace treematch::kernels
