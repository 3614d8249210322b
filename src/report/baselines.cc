// Packed, round-robin, random and MPIPP mappings: the baselines TreeMatch is compared with.
#include "src/report/baselines.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "src/model/cost.h"

namespace treematch {
namespace {

void check_enough_slots(const std::string& who, Index ranks, std::size_t slots) {
  if (ranks < 0)
    throw std::invalid_argument(who + ": the number of ranks is negative (" +
                                std::to_string(ranks) + ")");
  if (static_cast<std::size_t>(ranks) > slots) {
    throw std::invalid_argument(who + ": " + std::to_string(ranks) + " ranks but only " +
                                std::to_string(slots) +
                                " usable slots; allow more cores or place several ranks per core");
  }
}

void check_slots_are_leaves(const std::string& who, const Topology& topology,
                            const std::vector<Index>& slots) {
  for (const Index leaf : slots) {
    if (leaf < 0 || leaf >= topology.leaf_count()) {
      throw std::invalid_argument(who + ": slot on leaf " + std::to_string(leaf) +
                                  " but the topology has " + std::to_string(topology.leaf_count()) +
                                  " leaves");
    }
  }
}

/// Uniform integer in [0, bound), bound >= 1, from raw generator outputs by rejection: outputs
/// below 2^64 mod bound are redrawn, so every residue is equally likely. Unlike
/// std::uniform_int_distribution, the result is the same with every standard library.
std::uint64_t uniform_below(std::mt19937_64& generator, std::uint64_t bound) {
  const std::uint64_t rejected_below =
      (std::numeric_limits<std::uint64_t>::max() - bound + 1) % bound;
  for (;;) {
    const std::uint64_t draw = generator();
    if (draw >= rejected_below) return draw % bound;
  }
}

/// All slot positions, shuffled so that the first `ranks` are a uniform random arrangement
/// (partial Fisher-Yates); the rest are the unused positions, sorted.
std::vector<Index> random_positions(Index ranks, std::size_t slot_count, std::uint64_t seed) {
  std::vector<Index> position(slot_count);
  std::iota(position.begin(), position.end(), Index{0});
  std::mt19937_64 generator(seed);
  const auto used = static_cast<std::size_t>(ranks);
  for (std::size_t i = 0; i < used; ++i) {
    const auto j = i + static_cast<std::size_t>(uniform_below(generator, slot_count - i));
    std::swap(position[i], position[j]);
  }
  std::sort(position.begin() + static_cast<std::ptrdiff_t>(used), position.end());
  return position;
}

/// A candidate exchange for one rank: `partner` < p is a rank, partner >= p the free slot
/// free[partner - p]; -1 = keep. Ordered by (delta, partner), so the min is unique.
struct Exchange {
  double delta = 0.0;
  Index partner = -1;
};

bool better(const Exchange& a, const Exchange& b) {
  return a.delta < b.delta || (a.delta == b.delta && a.partner < b.partner);
}

/// MPIPP local search from one start; state is the slot position of each rank and the free slots.
class MpippSearch {
 public:
  MpippSearch(const CommGraph& graph, const Topology& topology, const std::vector<Index>& slots,
              const std::vector<Index>& positions)
      : graph_(graph.view()), topology_(topology), slots_(slots), ranks_(graph.size()) {
    const auto used = static_cast<std::size_t>(ranks_);
    position_.assign(positions.begin(), positions.begin() + static_cast<std::ptrdiff_t>(used));
    free_.assign(positions.begin() + static_cast<std::ptrdiff_t>(used), positions.end());
    leaf_.resize(used);
    for (std::size_t r = 0; r < used; ++r)
      leaf_[r] = slots_[static_cast<std::size_t>(position_[r])];
  }

  void run(bool parallel) {
    for (int pass = 0; pass < kMpippMaxPasses; ++pass) {
      bool improved = false;
      for (Index i = 0; i < ranks_; ++i) {
        const Exchange best = best_exchange(i, parallel);
        if (best.partner >= 0 && best.delta < 0.0) {
          apply(i, best.partner);
          improved = true;
        }
      }
      if (!improved) return;
    }
  }

  [[nodiscard]] Mapping mapping() const { return Mapping{leaf_}; }

 private:
  // Candidates per task: each costs O(deg), about a microsecond.
  static constexpr Index kGrain = 32;

  /// Change of the hop-bytes of rank i's edges (each counted once) if i moves from leaf `from` to
  /// leaf `to`, ignoring the edge to `skip` (the swap partner, whose distance to i is unchanged).
  [[nodiscard]] double move_delta(Index i, Index from, Index to, Index skip) const {
    double delta = 0.0;
    for (Offset e = graph_.row_begin(i); e < graph_.row_end(i); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const Index n = graph_.targets[entry];
      if (n == skip) continue;
      const Index leaf_n = leaf_[static_cast<std::size_t>(n)];
      delta += graph_.weights[entry] *
               static_cast<double>(topology_.hops(to, leaf_n) - topology_.hops(from, leaf_n));
    }
    return delta;
  }

  [[nodiscard]] double exchange_delta(Index i, Index partner) const {
    const Index leaf_i = leaf_[static_cast<std::size_t>(i)];
    if (partner < ranks_) {
      const Index leaf_j = leaf_[static_cast<std::size_t>(partner)];
      if (leaf_i == leaf_j) return 0.0;
      return move_delta(i, leaf_i, leaf_j, partner) + move_delta(partner, leaf_j, leaf_i, i);
    }
    const Index leaf_f =
        slots_[static_cast<std::size_t>(free_[static_cast<std::size_t>(partner - ranks_)])];
    if (leaf_i == leaf_f) return 0.0;
    return move_delta(i, leaf_i, leaf_f, /*skip=*/-1);
  }

  [[nodiscard]] Exchange scan(Index i, Index begin, Index end, Exchange best) const {
    for (Index partner = begin; partner < end; ++partner) {
      if (partner == i) continue;
      const Exchange candidate{exchange_delta(i, partner), partner};
      if (better(candidate, best)) best = candidate;
    }
    return best;
  }

  [[nodiscard]] Exchange best_exchange(Index i, bool parallel) const {
    const Index count = ranks_ + static_cast<Index>(free_.size());
    if (!parallel) return scan(i, 0, count, Exchange{});
    return tbb::parallel_reduce(
        tbb::blocked_range<Index>(0, count, kGrain), Exchange{},
        [&](const tbb::blocked_range<Index>& r, Exchange best) {
          return scan(i, r.begin(), r.end(), best);
        },
        [](const Exchange& a, const Exchange& b) { return better(b, a) ? b : a; });
  }

  void apply(Index i, Index partner) {
    const auto ri = static_cast<std::size_t>(i);
    if (partner < ranks_) {
      const auto rj = static_cast<std::size_t>(partner);
      std::swap(position_[ri], position_[rj]);
      std::swap(leaf_[ri], leaf_[rj]);
    } else {
      Index& free_slot = free_[static_cast<std::size_t>(partner - ranks_)];
      std::swap(position_[ri], free_slot);
      leaf_[ri] = slots_[static_cast<std::size_t>(position_[ri])];
    }
  }

  kernels::CsrView graph_;
  const Topology& topology_;
  const std::vector<Index>& slots_;
  Index ranks_;
  std::vector<Index> position_;  ///< slot position of each rank
  std::vector<Index> leaf_;      ///< slots_[position_[r]]
  std::vector<Index> free_;      ///< slot positions no rank uses
};

Mapping mpipp_impl(const CommGraph& graph, const Topology& topology,
                   const std::vector<Index>& slots, int starts, std::uint64_t seed, bool parallel) {
  const std::string who = "mpipp_mapping";
  if (starts < 1)
    throw std::invalid_argument(who + ": " + std::to_string(starts) + " starts; give at least 1");
  check_enough_slots(who, graph.size(), slots.size());
  check_slots_are_leaves(who, topology, slots);

  Mapping best;
  double best_cost = 0.0;
  for (int start = 0; start < starts; ++start) {
    MpippSearch search(
        graph, topology, slots,
        random_positions(graph.size(), slots.size(), seed + static_cast<std::uint64_t>(start)));
    search.run(parallel);
    Mapping candidate = search.mapping();
    const double cost = parallel ? evaluate_cost(graph, topology, candidate).hop_bytes
                                 : evaluate_cost_seq(graph, topology, candidate).hop_bytes;
    if (start == 0 || cost < best_cost) {
      best = std::move(candidate);
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace

std::vector<Index> usable_slots(const Topology& topology, const std::vector<Index>& allowed,
                                Index per_leaf) {
  if (per_leaf < 1) {
    throw std::invalid_argument("usable_slots: " + std::to_string(per_leaf) +
                                " ranks per core; give at least 1");
  }
  std::vector<Index> leaves = allowed;
  if (leaves.empty()) {
    leaves = topology.present_leaves();  // every leaf, holes excepted
  } else {
    std::sort(leaves.begin(), leaves.end());
    check_slots_are_leaves("usable_slots", topology, leaves);
    const auto twice = std::adjacent_find(leaves.begin(), leaves.end());
    if (twice != leaves.end()) {
      throw std::invalid_argument("usable_slots: leaf " + std::to_string(*twice) +
                                  " is allowed twice");
    }
  }
  std::vector<Index> slots;
  slots.reserve(leaves.size() * static_cast<std::size_t>(per_leaf));
  for (const Index leaf : leaves)
    slots.insert(slots.end(), static_cast<std::size_t>(per_leaf), leaf);
  return slots;
}

Mapping packed_mapping(Index ranks, const std::vector<Index>& slots) {
  check_enough_slots("packed_mapping", ranks, slots.size());
  return Mapping{std::vector<Index>(slots.begin(), slots.begin() + ranks)};
}

Mapping round_robin_mapping(Index ranks, const Topology& topology,
                            const std::vector<Index>& slots) {
  check_enough_slots("round_robin_mapping", ranks, slots.size());
  check_slots_are_leaves("round_robin_mapping", topology, slots);
  std::vector<Index> by_os(slots);
  std::stable_sort(by_os.begin(), by_os.end(),
                   [&](Index a, Index b) { return topology.os_index(a) < topology.os_index(b); });
  by_os.resize(static_cast<std::size_t>(ranks));
  return Mapping{std::move(by_os)};
}

Mapping random_mapping(Index ranks, const std::vector<Index>& slots, std::uint64_t seed) {
  check_enough_slots("random_mapping", ranks, slots.size());
  const std::vector<Index> position = random_positions(ranks, slots.size(), seed);
  Mapping mapping;
  mapping.leaf_of_rank.resize(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < mapping.leaf_of_rank.size(); ++r) {
    mapping.leaf_of_rank[r] = slots[static_cast<std::size_t>(position[r])];
  }
  return mapping;
}

Mapping mpipp_mapping(const CommGraph& graph, const Topology& topology,
                      const std::vector<Index>& slots, int starts, std::uint64_t seed) {
  return mpipp_impl(graph, topology, slots, starts, seed, /*parallel=*/true);
}

Mapping mpipp_mapping_seq(const CommGraph& graph, const Topology& topology,
                          const std::vector<Index>& slots, int starts, std::uint64_t seed) {
  return mpipp_impl(graph, topology, slots, starts, seed, /*parallel=*/false);
}

}  // namespace treematch
