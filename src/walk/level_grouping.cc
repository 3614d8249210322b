// GroupProcesses: candidate rounds, the paper's three heuristics, and the final deterministic
// packing.
#include "src/walk/level_grouping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "kernels/independent_set.h"
#include "kernels/largest_index.h"
#include "kernels/weighted_degree.h"
#include "src/walk/arity_split.h"

namespace treematch {
namespace {

using kernels::Groups;
using kernels::Offset;
using kernels::Weight;

using kernels::at;

enum class Heuristic { kSmallestValueFirst, kLargestIndexLast, kWeightedDegreeFirst };

std::string name_of(Heuristic h) {
  switch (h) {
    case Heuristic::kSmallestValueFirst:
      return "smallest-value-first";
    case Heuristic::kLargestIndexLast:
      return "largest-value-last";
    case Heuristic::kWeightedDegreeFirst:
      return "weighted-degree-first";
  }
  return "?";
}

/// One level as the rounds see it: `full` answers values and grows candidates along each row's
/// `limit` strongest entries.
struct LevelView {
  LevelMatrix& full;
  Offset limit;
  std::span<const Weight> rowsum;
};

/// One round's candidates with their values.
struct Round {
  Groups candidates;
  std::vector<Weight> values;
};

Round make_round(const LevelView& m, std::span<const std::uint8_t> free, Index k, bool exhaustive,
                 const GroupingContext& ctx) {
  Round round;
  if (exhaustive) {
    round.candidates = kernels::all_k_subsets(free, k);
  } else {
    const std::vector<Index> fillers = kernels::filler_order(m.rowsum, free);
    round.candidates =
        m.full.neighbourhood_candidates(m.limit, m.rowsum, free, fillers, k, ctx.seeds_per_process);
  }
  round.values = m.full.group_values(m.rowsum, round.candidates);
  return round;
}

/// The candidates a heuristic keeps from one round, or nothing when it must be skipped (budget).
std::optional<std::vector<Index>> select(const Round& round, Index n, Heuristic heuristic,
                                         const GroupingContext& ctx) {
  const std::vector<Index> by_value = kernels::priority_by_value(round.values);
  switch (heuristic) {
    case Heuristic::kSmallestValueFirst:
      return kernels::greedy_independent_set(round.candidates, by_value, n);
    case Heuristic::kLargestIndexLast: {
      const std::vector<Index> greedy =
          kernels::greedy_independent_set(round.candidates, by_value, n);
      std::vector<Index> order(by_value.size());
      for (std::size_t c = 0; c < by_value.size(); ++c)
        order[at(by_value[c])] = static_cast<Index>(c);
      std::vector<Index> chosen = kernels::min_largest_rank_set(
          round.candidates, order, n, static_cast<Index>(greedy.size()), ctx.largest_index_budget);
      return chosen.empty() ? greedy : chosen;
    }
    case Heuristic::kWeightedDegreeFirst: {
      const kernels::Incidence inc = kernels::incidence(round.candidates, n);
      if (kernels::weighted_degree_work(inc) > ctx.weighted_degree_budget) return std::nullopt;
      const std::vector<Index> priority =
          kernels::priority_by_weighted_degree(round.candidates, inc, round.values);
      return kernels::greedy_independent_set(round.candidates, priority, n);
    }
  }
  return std::nullopt;
}

/// Runs one heuristic through the candidate rounds and the final packing.
std::optional<LevelGrouping> run_heuristic(const LevelView& m, Index k, bool exhaustive,
                                           const Round& first_round, Heuristic heuristic,
                                           const GroupingContext& ctx) {
  const Index n = m.full.order();
  std::vector<std::uint8_t> free(at(n), 1);
  Groups chosen;
  chosen.k = k;
  LevelGrouping result;
  for (int round_index = 0; round_index < std::max(ctx.max_rounds, 1); ++round_index) {
    const Round later = round_index == 0 ? Round{} : make_round(m, free, k, false, ctx);
    const Round& round = round_index == 0 ? first_round : later;
    if (round.candidates.count() == 0) break;
    std::optional<std::vector<Index>> kept = select(round, n, heuristic, ctx);
    if (!kept) return std::nullopt;
    if (kept->empty()) break;
    for (Index c : *kept) {
      for (Index v : round.candidates.group(c)) free[at(v)] = 0;
      const auto members = round.candidates.group(c);
      chosen.members.insert(chosen.members.end(), members.begin(), members.end());
    }
    result.rounds = round_index + 1;
    if (exhaustive || std::none_of(free.begin(), free.end(), [](std::uint8_t f) { return f != 0; }))
      break;
  }
  const Groups rest = m.full.pack_remaining(m.limit, m.rowsum, free, k);
  chosen.members.insert(chosen.members.end(), rest.members.begin(), rest.members.end());
  result.groups = kernels::ordered_by_first_member(chosen);
  const std::vector<Weight> values = m.full.group_values(m.rowsum, result.groups);
  result.total_value = std::accumulate(values.begin(), values.end(), 0.0);
  result.heuristic = name_of(heuristic);
  result.exhaustive = exhaustive;
  result.candidates = static_cast<std::size_t>(first_round.candidates.count());
  return result;
}

}  // namespace

Index strong_link_limit(Index k, const GroupingContext& ctx) {
  return std::max<Index>(ctx.strongest_links, 4 * k);
}

LevelGrouping group_level(LevelMatrix& matrix, Index k, const GroupingContext& ctx) {
  const Index n = matrix.order();
  LevelGrouping best;
  if (n == k || k == 1) {  // one group of everything, or singletons: nothing to choose
    best.groups.k = k;
    best.groups.members.resize(at(n));
    std::iota(best.groups.members.begin(), best.groups.members.end(), 0);
    best.heuristic = "trivial";
    best.exhaustive = true;
    return best;
  }
  const std::vector<Weight> rowsum = matrix.row_sums();
  const bool exhaustive = log_binomial(n, k) <= std::log(ctx.exhaustive_limit);
  // Dense rows: candidates grow along each process's strongest links only.
  const Offset limit =
      exhaustive ? std::numeric_limits<Offset>::max() : Offset{strong_link_limit(k, ctx)};
  const LevelView m{matrix, limit, rowsum};
  const std::vector<std::uint8_t> all_free(at(n), 1);
  const Round first_round = make_round(m, all_free, k, exhaustive, ctx);

  std::vector<Heuristic> heuristics;
  if (ctx.smallest_value_first) heuristics.push_back(Heuristic::kSmallestValueFirst);
  if (ctx.largest_index_last) heuristics.push_back(Heuristic::kLargestIndexLast);
  if (ctx.weighted_degree_first) heuristics.push_back(Heuristic::kWeightedDegreeFirst);
  if (heuristics.empty()) heuristics.push_back(Heuristic::kSmallestValueFirst);

  bool have = false;
  for (Heuristic h : heuristics) {
    std::optional<LevelGrouping> candidate = run_heuristic(m, k, exhaustive, first_round, h, ctx);
    if (candidate && (!have || candidate->total_value < best.total_value)) {
      best = std::move(*candidate);
      have = true;
    }
  }
  if (!have) {  // every enabled heuristic was over budget: the greedy always runs
    best = *run_heuristic(m, k, exhaustive, first_round, Heuristic::kSmallestValueFirst, ctx);
  }
  // Exchanges between groups repair what the greedy selection and the packing left behind.
  if (ctx.partition_passes > 0 && matrix.refine_partition(best.groups, ctx.partition_passes) > 0) {
    const std::vector<Weight> values = matrix.group_values(rowsum, best.groups);
    best.total_value = std::accumulate(values.begin(), values.end(), 0.0);
  }
  return best;
}

}  // namespace treematch
