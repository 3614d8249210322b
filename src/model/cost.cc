// Hop-bytes, weighted cost and per-level traffic of a mapping, with a thread-count-independent sum.
#include "src/model/cost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace treematch {
namespace {

/// Distances by height of the lowest common ancestor, read once from the topology so that the hot
/// loop computes one common_ancestor_height per entry instead of one per distance kind.
struct DistanceByHeight {
  std::vector<double> hops;
  std::vector<double> weighted;

  explicit DistanceByHeight(const Topology& topology) {
    const int depth = topology.depth();
    hops.resize(static_cast<std::size_t>(depth) + 1);
    weighted.resize(static_cast<std::size_t>(depth) + 1);
    for (int h = 0; h <= depth; ++h) {
      // Leaf 0 and the first leaf of the next subtree at depth (depth - h + 1) meet h levels up.
      const Index other = h == 0 ? 0 : topology.leaves_below(depth - h + 1);
      hops[static_cast<std::size_t>(h)] = static_cast<double>(topology.hops(0, other));
      weighted[static_cast<std::size_t>(h)] = topology.weighted_distance(0, other);
    }
  }
};

}  // namespace

void check_costable(const CommGraph& graph, const Topology& topology, const Mapping& mapping) {
  const auto& leaves = mapping.leaf_of_rank;
  if (leaves.size() != static_cast<std::size_t>(graph.size())) {
    throw std::invalid_argument("mapping cost: the mapping has " + std::to_string(leaves.size()) +
                                " ranks but the communication graph has " +
                                std::to_string(graph.size()) +
                                " processes; map every process of the matrix exactly once");
  }
  for (std::size_t rank = 0; rank < leaves.size(); ++rank) {
    if (leaves[rank] < 0 || leaves[rank] >= topology.leaf_count()) {
      throw std::invalid_argument(
          "mapping cost: rank " + std::to_string(rank) + " is on leaf " +
          std::to_string(leaves[rank]) + " but the topology has " +
          std::to_string(topology.leaf_count()) +
          " leaves (pass the oversubscribed topology when ranks share cores)");
    }
  }
}

namespace {

Index block_count(Index ranks) {
  return (ranks + kCostBlockRanks - 1) / kCostBlockRanks;
}

/// Visits the stored entries of the rows of one block in row order: visit(height, weight). `graph`
/// holds the rows from `first_row` on (0: all of them).
template <typename Visit>
void for_block_entries(const kernels::CsrView& graph, const Topology& topology,
                       const std::vector<Index>& leaf, Index block, Visit&& visit,
                       Index first_row = 0) {
  const Index begin = block * kCostBlockRanks;
  const Index held_end = first_row + static_cast<Index>(graph.offsets.size()) - 1;
  const Index end = std::min({graph.n, begin + kCostBlockRanks, held_end});
  for (Index i = begin; i < end; ++i) {
    const Index leaf_i = leaf[static_cast<std::size_t>(i)];
    for (Offset e = graph.row_begin(i - first_row); e < graph.row_end(i - first_row); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const Index leaf_j = leaf[static_cast<std::size_t>(graph.targets[entry])];
      visit(topology.common_ancestor_height(leaf_i, leaf_j), graph.weights[entry]);
    }
  }
}

MappingCost block_cost(const kernels::CsrView& graph, const Topology& topology,
                       const DistanceByHeight& distance, const std::vector<Index>& leaf,
                       Index block, Index first_row = 0) {
  MappingCost sum;
  for_block_entries(
      graph, topology, leaf, block,
      [&](int height, Weight weight) {
        sum.hop_bytes += weight * distance.hops[static_cast<std::size_t>(height)];
        sum.weighted += weight * distance.weighted[static_cast<std::size_t>(height)];
      },
      first_row);
  return sum;
}

std::vector<double> block_traffic(const kernels::CsrView& graph, const Topology& topology,
                                  const std::vector<Index>& leaf, Index block) {
  std::vector<double> sum(static_cast<std::size_t>(topology.depth()) + 1, 0.0);
  for_block_entries(graph, topology, leaf, block, [&](int height, Weight weight) {
    sum[static_cast<std::size_t>(height)] += weight;
  });
  return sum;
}

/// Computes every block's partial result, in parallel or not; the caller then sums them in order.
template <typename Result, typename BlockFn>
std::vector<Result> block_partials(Index ranks, bool parallel, BlockFn&& block_fn) {
  const Index blocks = block_count(ranks);
  std::vector<Result> partial(static_cast<std::size_t>(blocks));
  if (parallel) {
    tbb::parallel_for(tbb::blocked_range<Index>(0, blocks, /*grainsize=*/1),
                      [&](const tbb::blocked_range<Index>& r) {
                        for (Index b = r.begin(); b < r.end(); ++b)
                          partial[static_cast<std::size_t>(b)] = block_fn(b);
                      });
  } else {
    for (Index b = 0; b < blocks; ++b) partial[static_cast<std::size_t>(b)] = block_fn(b);
  }
  return partial;
}

MappingCost evaluate_cost_impl(const CommGraph& graph, const Topology& topology,
                               const Mapping& mapping, bool parallel) {
  check_costable(graph, topology, mapping);
  const DistanceByHeight distance(topology);
  const kernels::CsrView view = graph.view();
  const auto partial = block_partials<MappingCost>(graph.size(), parallel, [&](Index block) {
    return block_cost(view, topology, distance, mapping.leaf_of_rank, block);
  });
  return sum_block_costs(partial, graph.cost_scale());
}

std::vector<double> traffic_by_height_impl(const CommGraph& graph, const Topology& topology,
                                           const Mapping& mapping, bool parallel) {
  check_costable(graph, topology, mapping);
  const kernels::CsrView view = graph.view();
  const auto partial = block_partials<std::vector<double>>(
      graph.size(), parallel,
      [&](Index block) { return block_traffic(view, topology, mapping.leaf_of_rank, block); });
  std::vector<double> total(static_cast<std::size_t>(topology.depth()) + 1, 0.0);
  for (const auto& part : partial) {
    for (std::size_t h = 0; h < total.size(); ++h) total[h] += part[h];
  }
  for (double& volume : total) volume *= graph.cost_scale();
  return total;
}

}  // namespace

std::vector<MappingCost> block_costs(kernels::CsrView rows, Index first_row,
                                     const Topology& topology, const Mapping& mapping) {
  if (first_row % kCostBlockRanks != 0) {
    throw std::invalid_argument("block_costs: rows must start at a multiple of kCostBlockRanks");
  }
  const DistanceByHeight distance(topology);
  const Index held = static_cast<Index>(rows.offsets.size()) - 1;
  const Index first_block = first_row / kCostBlockRanks;
  std::vector<MappingCost> partial(static_cast<std::size_t>(block_count(held)));
  tbb::parallel_for(Index{0}, block_count(held), [&](Index b) {
    partial[static_cast<std::size_t>(b)] =
        block_cost(rows, topology, distance, mapping.leaf_of_rank, first_block + b, first_row);
  });
  return partial;
}

MappingCost sum_block_costs(std::span<const MappingCost> blocks, double cost_scale) {
  MappingCost total;
  for (const MappingCost& part : blocks) {
    total.hop_bytes += part.hop_bytes;
    total.weighted += part.weighted;
  }
  total.hop_bytes *= cost_scale;
  total.weighted *= cost_scale;
  return total;
}

std::string cost_overflow_problem(double total_volume, const Topology& topology) {
  if (!std::isfinite(total_volume)) {
    return "its entries add up to more than the largest double (1.8e308)";
  }
  const int depth = topology.depth();
  const double hops = 2.0 * depth;
  const double weighted =
      depth == 0 ? 0.0 : topology.weighted_distance(0, topology.leaf_count() - 1);
  const double farthest = std::max(hops, weighted);
  if (!std::isfinite(total_volume * farthest)) {
    std::array<char, 200> text{};
    std::snprintf(text.data(), text.size(),
                  "its entries add up to %.3g, which times the largest distance of the topology "
                  "(%.3g) overflows a double: scale the matrix down",
                  total_volume, farthest);
    return text.data();
  }
  return {};
}

MappingCost evaluate_cost(const CommGraph& graph, const Topology& topology,
                          const Mapping& mapping) {
  return evaluate_cost_impl(graph, topology, mapping, /*parallel=*/true);
}

MappingCost evaluate_cost_seq(const CommGraph& graph, const Topology& topology,
                              const Mapping& mapping) {
  return evaluate_cost_impl(graph, topology, mapping, /*parallel=*/false);
}

std::vector<double> traffic_by_height(const CommGraph& graph, const Topology& topology,
                                      const Mapping& mapping) {
  return traffic_by_height_impl(graph, topology, mapping, /*parallel=*/true);
}

std::vector<double> traffic_by_height_seq(const CommGraph& graph, const Topology& topology,
                                          const Mapping& mapping) {
  return traffic_by_height_impl(graph, topology, mapping, /*parallel=*/false);
}

}  // namespace treematch
