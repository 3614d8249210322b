// Multilevel recursive bisection into parts of exact sizes: coarsen, partition, uncoarsen + FM.
#include "src/partition/multilevel_partition.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/held_csr.h"
#include "kernels/parallel_tasks.h"
#include "kernels/part_subgraphs.h"
#include "kernels/utility.h"
#include "src/partition/coarsening.h"
#include "src/partition/flow_refinement.h"
#include "src/partition/fm_refinement.h"

namespace treematch {
namespace {

using kernels::Csr;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// Below this many vertices the two halves of a bisection are not worth a task each.
constexpr Index kParallelVertices = 2048;
/// Attempts made together while a bisection's attempts disagree (PartitionContext::
/// disagreement_attempts): as many as the first round of the default preset, and a fixed count,
/// so the attempts made do not depend on the thread count.
constexpr std::size_t kAttemptsPerRound = 3;

using kernels::at;

/// Greedy graph growing: side `grown` takes `start`, then the free vertex whose move lowers the
/// cut most (any free vertex, smallest index, when none touches it) until it weighs its target.
/// Its cut is left for the caller, who may drop it as a repeat first.
Bisection grow(const CoarseLevel& level, Load target0, Index start, Index grown) {
  const CsrView g = level.g;
  const Load total = std::accumulate(level.weight.begin(), level.weight.end(), Load{0});
  const Load goal = grown == 0 ? target0 : total - target0;
  Bisection b;
  b.side.assign(at(g.n), 1 - grown);
  std::vector<Weight> gain(at(g.n), 0.0);
  for (Index v = 0; v < g.n; ++v) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) gain[at(v)] -= g.weights[at(e)];
  }
  kernels::GainHeap frontier(g.n);
  Load load = 0;
  Index next_free = 0;
  Index v = start;
  while (load < goal) {
    b.side[at(v)] = grown;
    load += level.weight[at(v)];
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[at(e)];
      if (b.side[at(u)] == grown) continue;
      gain[at(u)] += 2.0 * g.weights[at(e)];
      frontier.set(u, gain[at(u)]);
    }
    if (load >= goal) break;
    if (!frontier.empty()) {
      v = frontier.top();
      frontier.pop();
    } else {
      while (b.side[at(next_free)] == grown) ++next_free;
      v = next_free;
    }
  }
  b.load0 = grown == 0 ? load : total - load;
  return b;
}

/// Moves the cheapest vertices off the heavier side until side 0 weighs exactly `target0`
/// (finest level: unit weights), for the rare case where FM could not balance.
void force_balance(const CoarseLevel& level, Bisection& b, Load target0) {
  const CsrView g = level.g;
  const Index heavy = b.load0 > target0 ? 0 : 1;
  const Load surplus = std::abs(b.load0 - target0);
  if (surplus == 0) return;
  std::vector<std::pair<Weight, Index>> candidates;  // (-gain, v): best gain first
  for (Index v = 0; v < g.n; ++v) {
    if (b.side[at(v)] != heavy) continue;
    Weight gain = 0.0;
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e)
      gain += (b.side[at(g.targets[at(e)])] == heavy ? -1.0 : 1.0) * g.weights[at(e)];
    candidates.emplace_back(-gain, v);
  }
  std::sort(candidates.begin(), candidates.end());
  for (std::size_t i = 0; i < at(static_cast<Index>(surplus)); ++i)
    b.side[at(candidates[i].second)] = 1 - heavy;
  b.load0 = target0;
  b.cut = cut_of(g, b.side);
}

Balance balance_at(const std::vector<CoarseLevel>& levels, std::size_t l) {
  if (l == 0) return {2, 0};
  const Load tolerance = levels[l - 1].max_weight;
  return {std::max({levels[l].max_weight, Load{2}, tolerance}), tolerance};
}

/// `rounds` of max-flow refinement of `b` at `level`, each followed by FM and kept when it lowers
/// the cut at no worse balance; a round that finds nothing better halves the reach.
void improve_by_flows(const CoarseLevel& level, Bisection& b, Load target0, Balance bounds,
                      FmRefiner& fm, int rounds, const PartitionContext& ctx) {
  if (rounds <= 0) return;
  const Load total = std::accumulate(level.weight.begin(), level.weight.end(), Load{0});
  Load reach =
      std::max(bounds.slack, static_cast<Load>(ctx.flow_reach * static_cast<double>(total)));
  for (int round = 0; round < rounds && reach >= 1; ++round) {
    Bisection trial = b;
    if (!refine_by_flow(level.g, level.weight, target0, reach, trial)) break;
    fm.refine(trial, ctx.fm_passes);
    const Load was = fm.excess(b.load0);
    const Load now = fm.excess(trial.load0);
    if (now < was || (now == was && trial.cut < b.cut - 1e-12 * std::max(1.0, b.cut))) {
      b = std::move(trial);
    } else {
      reach /= 2;
    }
  }
}

/// Projects the coarsest level's bisection down the hierarchy, FM at each level with the next
/// finer level's vertex weight as tolerance, then `flow_rounds` of flows; exact at the finest
/// level.
Bisection uncoarsen(const std::vector<CoarseLevel>& levels, Bisection b, Load target0,
                    const PartitionContext& ctx, int flow_rounds) {
  for (std::size_t l = levels.size() - 1; l-- > 0;) {
    const CoarseLevel& fine = levels[l];
    b.side = project_to_finer(fine, b.side);
    const Balance bounds = balance_at(levels, l);
    FmRefiner fm(fine.g, fine.weight, target0, bounds, ctx);
    fm.refine(b, ctx.fm_passes);
    improve_by_flows(fine, b, target0, bounds, fm, flow_rounds, ctx);
  }
  if (b.load0 != target0) {
    force_balance(levels[0], b, target0);
    FmRefiner fm(levels[0].g, levels[0].weight, target0, balance_at(levels, 0), ctx);
    fm.refine(b, ctx.fm_passes);
  }
  return b;
}

/// One V-cycle from `best`: coarsen again without merging across its cut, FM at every level.
Bisection vcycle(CsrView graph, const Bisection& best, Load target0, Load cap,
                 const PartitionContext& ctx) {
  std::vector<CoarseLevel> levels = coarsen(graph, cap, ctx, &best.side);
  Bisection b;
  b.side = project_to_coarsest(levels, best.side);
  b.load0 = best.load0;
  b.cut = best.cut;
  const Balance bounds = balance_at(levels, levels.size() - 1);
  FmRefiner fm(levels.back().g, levels.back().weight, target0, bounds, ctx);
  fm.refine(b, ctx.fm_passes);
  return uncoarsen(levels, std::move(b), target0, ctx, ctx.flow_rounds);
}

/// The heaviest coarse vertex a bisection of `graph` may build: at most twice the average at the
/// coarsest level, and no more than the smaller side, so that the sizes can still be met.
Load coarse_weight_cap(CsrView graph, Load target0, const PartitionContext& ctx) {
  const Load total = graph.n;
  return std::max<Load>(
      2, std::min(std::min(target0, total - target0), 2 * total / coarsening_stop(ctx)));
}

/// Multilevel bisection of a unit-weight graph: side 0 gets exactly `target0` vertices.
Bisection bisect_multilevel(CsrView graph, Load target0, const PartitionContext& ctx) {
  std::vector<CoarseLevel> levels =
      coarsen(graph, coarse_weight_cap(graph, target0, ctx), ctx, nullptr);
  // Initial partition: greedy growing from several starts, each polished by FM; the best wins.
  const CoarseLevel& top_level = levels.back();
  const Balance top_bounds = balance_at(levels, levels.size() - 1);
  FmRefiner top(top_level.g, top_level.weight, target0, top_bounds, ctx);
  Bisection best;
  Load best_excess = 0;
  // FM is deterministic: a start that grows a bisection an earlier start grew would end where that
  // one ended, and ties go to the earlier one. With side-blind ties FM also ends at the mirror of
  // that end from the mirror of a start, as cheap, when the two sides have one target. On the
  // 16-vertex graphs inside S1's nodes, 41% of the starts repeat an earlier start's bisection and
  // 44% mirror one.
  const Load total = std::accumulate(top_level.weight.begin(), top_level.weight.end(), Load{0});
  const bool mirrors = ctx.side_blind_ties && 2 * target0 == total;
  std::vector<std::vector<Index>> grown;
  const auto seen = [&](const std::vector<Index>& side) {
    return std::any_of(grown.begin(), grown.end(), [&](const std::vector<Index>& earlier) {
      return earlier == side ||
             (mirrors && std::equal(earlier.begin(), earlier.end(), side.begin(), side.end(),
                                    [](Index a, Index b) { return a != b; }));
    });
  };
  const bool coarsened = levels.size() > 1;
  const int tries =
      coarsened || ctx.uncoarsened_tries == 0 ? ctx.initial_tries : ctx.uncoarsened_tries;
  for (int t = 0; t < std::max(1, tries); ++t) {
    const Index start =
        static_cast<Index>(kernels::splitmix64(ctx.seed * 7919 + static_cast<std::uint64_t>(t)) %
                           static_cast<std::uint64_t>(top_level.g.n));
    Bisection b = grow(top_level, target0, start, /*grown=*/t % 2);
    if (seen(b.side)) continue;
    grown.push_back(b.side);
    b.cut = cut_of(top_level.g, b.side);
    top.refine(b, ctx.fm_passes);
    const Load ex = top.excess(b.load0);
    if (t == 0 || ex < best_excess || (ex == best_excess && b.cut < best.cut)) {
      best = std::move(b);
      best_excess = ex;
    }
  }
  // No flows here: they lower the cut of the V-cycles' start as well, but from there the V-cycles
  // found less (corpus, partition.flow_rounds in src/model/context.h).
  return uncoarsen(levels, std::move(best), target0, ctx, /*flow_rounds=*/0);
}

/// ctx.vcycles V-cycles from `best`: coarsen again without merging across the cut, so FM at the
/// coarse levels moves whole clusters of the current bisection; each kept only when the cut
/// drops. A graph too small to coarsen gets no cluster moves: its V-cycle is one more FM run at
/// the finest level, a repeat when the last one settled.
Bisection improve_by_vcycles(CsrView graph, Bisection best, Load target0,
                             const PartitionContext& ctx) {
  const Load cap = coarse_weight_cap(graph, target0, ctx);
  const bool too_small = graph.n <= coarsening_stop(ctx);
  for (int cycle = 0; cycle < ctx.vcycles && !(too_small && best.settled); ++cycle) {
    PartitionContext again = ctx;
    again.seed = kernels::splitmix64(ctx.seed + 1000003 * static_cast<std::uint64_t>(cycle + 1));
    Bisection b = vcycle(graph, best, target0, cap, again);
    if (b.cut < best.cut) best = std::move(b);
  }
  return best;
}

/// The earliest of some attempts at their lowest cut, and how many of them reach that cut.
struct LowestAttempt {
  Bisection* earliest;
  std::ptrdiff_t reached;
};

/// The lowest of the first `count` (>= 1) attempts.
LowestAttempt lowest_attempt(std::vector<Bisection>& tried, std::size_t count) {
  const auto first = tried.begin();
  const auto last = first + static_cast<std::ptrdiff_t>(count);
  const auto lowest = std::min_element(
      first, last, [](const Bisection& a, const Bisection& b) { return a.cut < b.cut; });
  return {&*lowest,
          std::count_if(first, last, [&](const Bisection& b) { return b.cut == lowest->cut; })};
}

/// The earliest of the first `count` attempts at their lowest cut when all of them but at most one
/// (at least two) reach it, else null.
Bisection* agreeing_attempt(std::vector<Bisection>& tried, std::size_t count) {
  const LowestAttempt lowest = lowest_attempt(tried, count);
  const auto needed = std::max<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(count) - 1);
  return lowest.reached >= needed ? lowest.earliest : nullptr;
}

/// The best of ctx.attempts multilevel bisections, each followed by its V-cycles (attempt 0 with
/// ctx.seed, the others with seeds hashed from it): the lowest cut, the earliest attempt on ties.
/// The attempts share nothing, so they run as tasks and the result does not depend on the thread
/// count. On a graph of at least ctx.agreement_vertices vertices, the first ctx.agreeing_attempts
/// are made without their V-cycles; when they agree (agreeing_attempt), the earliest at the
/// lowest cut is kept as it is and nothing more is made. Otherwise they get their V-cycles, and
/// when they agree then, the same; else the other attempts are made. Independent multilevel runs
/// that agree on a large graph have found the cut the others would find: logged at the default
/// preset, in the 60 bisections of S1 and S2 where three attempts agreed, and the 30 (before
/// V-cycles) and 5 (after) of the 22 bench cases where two of three did, no V-cycle and no later
/// attempt found a lower cut. Two attempts out of two are not enough: on S2 they agreed above a
/// cut a third found. When all ctx.attempts are made and only one reached the lowest cut, up to
/// ctx.disagreement_attempts in all, kAttemptsPerRound at a time, until two reach it.
std::vector<Index> bisect(CsrView graph, Load target0, const PartitionContext& ctx) {
  std::vector<Bisection> tried(at(std::max(1, ctx.attempts)));
  const auto seeded = [&](std::size_t a) {
    PartitionContext own = ctx;
    if (a > 0) own.seed = kernels::splitmix64(ctx.seed * 31 + a);
    return own;
  };
  const auto attempt = [&](std::size_t first, std::size_t last) {
    kernels::parallel_for_all(last - first, [&](std::size_t i) {
      const PartitionContext own = seeded(first + i);
      tried[first + i] =
          improve_by_vcycles(graph, bisect_multilevel(graph, target0, own), target0, own);
    });
  };
  const std::size_t agreeing = at(std::max(0, ctx.agreeing_attempts));
  std::size_t made = 0;
  if (agreeing >= 2 && agreeing < tried.size() && graph.n >= ctx.agreement_vertices) {
    kernels::parallel_for_all(
        agreeing, [&](std::size_t a) { tried[a] = bisect_multilevel(graph, target0, seeded(a)); });
    if (const auto agreed = agreeing_attempt(tried, agreeing)) return std::move(agreed->side);
    kernels::parallel_for_all(agreeing, [&](std::size_t a) {
      tried[a] = improve_by_vcycles(graph, std::move(tried[a]), target0, seeded(a));
    });
    if (const auto agreed = agreeing_attempt(tried, agreeing)) return std::move(agreed->side);
    made = agreeing;
  }
  attempt(made, tried.size());
  const std::size_t most = at(std::max(0, ctx.disagreement_attempts));
  while (tried.size() < most && lowest_attempt(tried, tried.size()).reached < 2) {
    const std::size_t before = tried.size();
    tried.resize(std::min(most, before + kAttemptsPerRound));
    attempt(before, tried.size());
  }
  return std::move(lowest_attempt(tried, tried.size()).earliest->side);
}

/// Parts [lo, hi) for the vertices of `held`, whose original ids are `ids`. An owned graph is
/// freed once its halves are copied.
void split_range(kernels::HeldCsr held, std::vector<Index> ids, const std::vector<Index>& sizes,
                 std::size_t lo, std::size_t hi, const PartitionContext& ctx,
                 std::vector<Index>& part) {
  const CsrView g = held.view();
  if (hi - lo == 1) {
    for (Index id : ids) part[at(id)] = static_cast<Index>(lo);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  const Load target0 = std::accumulate(sizes.begin() + static_cast<std::ptrdiff_t>(lo),
                                       sizes.begin() + static_cast<std::ptrdiff_t>(mid), Load{0});
  // A bent cut spoils the shape of every part it splits: the more parts below it, the more
  // attempts (ceil(log2(parts)), at least ctx.attempts).
  PartitionContext own = ctx;
  if (ctx.grow_attempts)
    own.attempts = std::max(ctx.attempts, static_cast<int>(std::bit_width(hi - lo - 1)));
  // On a graph too small to coarsen, attempts differ only by their growing starts.
  if (ctx.uncoarsened_attempts > 0 && g.n <= coarsening_stop(ctx)) {
    own.attempts = std::min(own.attempts, ctx.uncoarsened_attempts);
    own.disagreement_attempts = 0;
  }
  std::vector<Index> side = bisect(g, target0, own);
  std::vector<Index> ids_of[2];
  for (Index v = 0; v < g.n; ++v) ids_of[at(side[at(v)])].push_back(ids[at(v)]);
  // A half that is one part needs no subgraph: its vertices all go to that part.
  for (Index& half : side) {
    if ((half == 0 ? mid - lo : hi - mid) == 1) half = -1;
  }
  std::vector<Csr> sub = kernels::part_subgraphs(g, side, 2);
  const Index n = g.n;
  held.release();
  ids = {};
  side = {};
  // The halves share nothing, so running them as tasks cannot change the result.
  const auto left = [&] {
    split_range(kernels::HeldCsr(std::move(sub[0])), std::move(ids_of[0]), sizes, lo, mid, ctx,
                part);
  };
  const auto right = [&] {
    split_range(kernels::HeldCsr(std::move(sub[1])), std::move(ids_of[1]), sizes, mid, hi, ctx,
                part);
  };
  if (n >= kParallelVertices) {
    kernels::parallel_invoke_all(left, right);
  } else {
    left();
    right();
  }
}

}  // namespace

void check_part_sizes(std::string_view caller, Index n, const std::vector<Index>& sizes,
                      std::string_view member, std::string_view members) {
  const std::string who(caller);
  std::int64_t total = 0;
  for (Index size : sizes) {
    if (size < 1) {
      throw std::invalid_argument(who + ": part size " + std::to_string(size) +
                                  "; every part needs at least one " + std::string(member));
    }
    total += size;
  }
  if (total != n) {
    throw std::invalid_argument(who + ": part sizes sum to " + std::to_string(total) +
                                " but the graph has " + std::to_string(n) + " " +
                                std::string(members) + "; they must be equal");
  }
}

std::vector<Index> multilevel_partition(CsrView graph, const std::vector<Index>& sizes,
                                        const PartitionContext& ctx) {
  check_part_sizes("multilevel_partition", graph.n, sizes, "vertex", "vertices");
  std::vector<Index> part(at(graph.n), 0);
  if (sizes.size() <= 1) return part;
  std::vector<Index> ids(at(graph.n));
  std::iota(ids.begin(), ids.end(), 0);
  split_range(kernels::HeldCsr::borrowed(graph), std::move(ids), sizes, 0, sizes.size(), ctx, part);
  return part;
}

bool refine_bisection(CsrView graph, std::vector<Index>& side, Index target0,
                      const PartitionContext& ctx) {
  Bisection start;
  start.side = side;
  start.load0 = std::count(side.begin(), side.end(), Index{0});
  start.cut = cut_of(graph, side);
  if (start.load0 != target0) {
    throw std::invalid_argument("refine_bisection: side 0 holds " + std::to_string(start.load0) +
                                " vertices, not the target " + std::to_string(target0));
  }
  const Weight before = start.cut;
  Bisection best = improve_by_vcycles(graph, std::move(start), target0, ctx);
  if (!(best.cut < before) || best.load0 != target0) return false;
  side = std::move(best.side);
  return true;
}

double edge_cut(CsrView graph, const std::vector<Index>& part) {
  return cut_of(graph, part);
}

}  // namespace treematch
