// Per-link loads of a mapping, summed link by link so that threads never change a result.
#include "src/model/link_load.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "src/model/cost.h"

namespace treematch {
namespace {

/// The ranks on each leaf, in rank order (CSR by leaf).
struct RanksByLeaf {
  std::vector<Offset> offsets;
  std::vector<Index> ranks;

  RanksByLeaf(const Mapping& mapping, Index leaves)
      : offsets(static_cast<std::size_t>(leaves) + 1) {
    for (const Index leaf : mapping.leaf_of_rank) ++offsets[static_cast<std::size_t>(leaf) + 1];
    for (std::size_t l = 1; l < offsets.size(); ++l) offsets[l] += offsets[l - 1];
    ranks.resize(mapping.leaf_of_rank.size());
    std::vector<Offset> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t rank = 0; rank < mapping.leaf_of_rank.size(); ++rank) {
      const auto leaf = static_cast<std::size_t>(mapping.leaf_of_rank[rank]);
      ranks[static_cast<std::size_t>(next[leaf]++)] = static_cast<Index>(rank);
    }
  }
};

/// Bytes leaving the subtree of vertex `v` at a depth whose vertices hold `below` leaves each.
double uplink_bytes(const kernels::CsrView& graph, const RanksByLeaf& by_leaf,
                    const std::vector<Index>& leaf_of_rank, Index v, Index below) {
  double bytes = 0.0;
  const auto first = static_cast<std::size_t>(by_leaf.offsets[static_cast<std::size_t>(v * below)]);
  const auto last =
      static_cast<std::size_t>(by_leaf.offsets[static_cast<std::size_t>((v + 1) * below)]);
  for (std::size_t k = first; k < last; ++k) {
    const Index rank = by_leaf.ranks[k];
    for (Offset e = graph.row_begin(rank); e < graph.row_end(rank); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const Index other = leaf_of_rank[static_cast<std::size_t>(graph.targets[entry])];
      if (other / below != v) bytes += graph.weights[entry];
    }
  }
  return bytes;
}

/// The busiest of consecutive links per cell.
std::vector<double> picture(const std::vector<double>& bytes) {
  const auto links = static_cast<Index>(bytes.size());
  const Index cells = std::min(links, kLinkPictureCells);
  std::vector<double> cell_bytes(static_cast<std::size_t>(cells), 0.0);
  for (Index c = 0; c < cells; ++c) {
    const Index begin = c * links / cells;
    const Index end = (c + 1) * links / cells;
    cell_bytes[static_cast<std::size_t>(c)] =
        *std::max_element(bytes.begin() + begin, bytes.begin() + end);
  }
  return cell_bytes;
}

std::vector<std::vector<double>> bytes_by_level_impl(const CommGraph& graph,
                                                     const Topology& topology,
                                                     const Mapping& mapping, bool parallel) {
  check_costable(graph, topology, mapping);
  const RanksByLeaf by_leaf(mapping, topology.leaf_count());
  const kernels::CsrView view = graph.view();
  std::vector<std::vector<double>> bytes_by_level;
  for (int depth = 1; depth <= topology.depth(); ++depth) {
    const Index below = topology.leaves_below(depth);
    const Index links = topology.leaf_count() / below;
    std::vector<double> bytes(static_cast<std::size_t>(links), 0.0);
    const auto sum_range = [&](Index begin, Index end) {
      for (Index v = begin; v < end; ++v) {
        bytes[static_cast<std::size_t>(v)] =
            graph.cost_scale() * uplink_bytes(view, by_leaf, mapping.leaf_of_rank, v, below);
      }
    };
    if (parallel) {
      tbb::parallel_for(tbb::blocked_range<Index>(0, links),
                        [&](const tbb::blocked_range<Index>& r) { sum_range(r.begin(), r.end()); });
    } else {
      sum_range(0, links);
    }
    bytes_by_level.push_back(std::move(bytes));
  }
  return bytes_by_level;
}

LinkLoads link_loads_impl(const CommGraph& graph, const Topology& topology, const LinkModel& model,
                          const Mapping& mapping, bool parallel) {
  if (model.links.size() != static_cast<std::size_t>(topology.depth())) {
    throw std::invalid_argument("link loads: the link model has " +
                                std::to_string(model.links.size()) + " levels but the topology " +
                                topology.shape() + " has " + std::to_string(topology.depth()));
  }
  const std::vector<std::vector<double>> bytes_by_level =
      bytes_by_level_impl(graph, topology, mapping, parallel);
  LinkLoads loads;
  for (int depth = 1; depth <= topology.depth(); ++depth) {
    const std::vector<double>& bytes = bytes_by_level[static_cast<std::size_t>(depth - 1)];
    const Index links = static_cast<Index>(bytes.size());
    LevelLinkLoad level;
    level.depth = depth;
    level.links = links;
    level.spec = model.links[static_cast<std::size_t>(depth - 1)];
    for (const double b : bytes) {
      level.max_bytes = std::max(level.max_bytes, b);
      level.total_bytes += b;
    }
    level.max_seconds = level.max_bytes / level.spec.bandwidth;
    level.picture_bytes = picture(bytes);
    if (level.max_seconds > loads.bottleneck_seconds) {
      loads.bottleneck_seconds = level.max_seconds;
      loads.bottleneck_depth = depth;
    }
    loads.levels.push_back(std::move(level));
  }

  // The highest level any message climbs to sets the longest path.
  const auto highest =
      std::find_if(loads.levels.begin(), loads.levels.end(),
                   [](const LevelLinkLoad& level) { return level.total_bytes > 0; });
  for (auto level = highest; level != loads.levels.end(); ++level) {
    loads.latency_seconds += 2.0 * level->spec.latency;
  }

  const double busiest = loads.bottleneck_seconds;
  if (busiest > 0.0) {
    for (std::size_t l = 0; l < loads.levels.size(); ++l) {
      LevelLinkLoad& level = loads.levels[l];
      for (const double b : bytes_by_level[l]) {
        if (b / level.spec.bandwidth / busiest >= kHotLinkShare) ++level.hot_links;
      }
    }
  }
  loads.congestion_norm = congestion_norm(bytes_by_level, model);
  loads.predicted_seconds = loads.bottleneck_seconds + loads.latency_seconds;
  return loads;
}

}  // namespace

std::vector<std::vector<double>> uplink_bytes_by_level(const CommGraph& graph,
                                                       const Topology& topology,
                                                       const Mapping& mapping) {
  return bytes_by_level_impl(graph, topology, mapping, /*parallel=*/true);
}

double congestion_norm(const std::vector<std::vector<double>>& bytes_by_level,
                       const LinkModel& model) {
  double busiest = 0.0;
  for (std::size_t l = 0; l < bytes_by_level.size(); ++l) {
    for (const double b : bytes_by_level[l])
      busiest = std::max(busiest, b / model.links[l].bandwidth);
  }
  if (busiest == 0.0) return 0.0;
  double powers = 0.0;
  for (std::size_t l = 0; l < bytes_by_level.size(); ++l) {
    for (const double b : bytes_by_level[l]) {
      powers += 2.0 * std::pow(b / model.links[l].bandwidth / busiest, kCongestionNormP);
    }
  }
  return busiest * std::pow(powers, 1.0 / kCongestionNormP);
}

LinkLoads link_loads(const CommGraph& graph, const Topology& topology, const LinkModel& model,
                     const Mapping& mapping) {
  return link_loads_impl(graph, topology, model, mapping, /*parallel=*/true);
}

LinkLoads link_loads_seq(const CommGraph& graph, const Topology& topology, const LinkModel& model,
                         const Mapping& mapping) {
  return link_loads_impl(graph, topology, model, mapping, /*parallel=*/false);
}

}  // namespace treematch
