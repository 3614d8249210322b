// Checks a mapping against the placement it claims: length, usable leaves, ranks per leaf.
#include "src/model/mapping_check.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace treematch {

std::string mapping_problem(const Mapping& mapping, Index ranks, const Topology& topology,
                            const std::vector<Index>& allowed, Index oversubscribe) {
  const auto& leaves = mapping.leaf_of_rank;
  if (static_cast<Index>(leaves.size()) != ranks) {
    return "maps " + std::to_string(leaves.size()) + " ranks but the matrix has " +
           std::to_string(ranks);
  }
  for (std::size_t rank = 0; rank < leaves.size(); ++rank) {
    const Index leaf = leaves[rank];
    if (leaf < 0 || leaf >= topology.leaf_count() || !topology.is_present(leaf)) {
      return "rank " + std::to_string(rank) + " is on no core of the topology";
    }
    if (!allowed.empty() && !std::binary_search(allowed.begin(), allowed.end(), leaf)) {
      return "rank " + std::to_string(rank) + " is on core " +
             std::to_string(topology.logical_index(leaf)) +
             ", which the job may not use (--cores or the allocation)";
    }
  }
  std::vector<std::pair<Index, Index>> by_leaf;  // (leaf, rank)
  by_leaf.reserve(leaves.size());
  for (std::size_t rank = 0; rank < leaves.size(); ++rank)
    by_leaf.emplace_back(leaves[rank], static_cast<Index>(rank));
  std::sort(by_leaf.begin(), by_leaf.end());
  for (std::size_t i = 0; i < by_leaf.size();) {
    std::size_t j = i;
    while (j < by_leaf.size() && by_leaf[j].first == by_leaf[i].first) ++j;
    if (static_cast<Index>(j - i) > oversubscribe) {
      return "core " + std::to_string(topology.logical_index(by_leaf[i].first)) + " holds " +
             std::to_string(j - i) + " ranks (" + std::to_string(by_leaf[i].second) + ", " +
             std::to_string(by_leaf[i + 1].second) + ", ...) but --oversubscribe allows " +
             std::to_string(oversubscribe);
    }
    i = j;
  }
  return {};
}

}  // namespace treematch
