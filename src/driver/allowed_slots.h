// The slots of a machine of allowed leaves as distinct leaves: what the refinements take.
#pragma once

#include <optional>
#include <vector>

#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch {

/// A machine of allowed leaves (--cores, holes) holding up to `per_leaf` processes on each: the
/// refinements want one process per leaf, so each core's processes sit on virtual leaves of it
/// (the oversubscribed tree, as the driver's), and only the allowed cores' virtual leaves are open.
class AllowedSlots {
 public:
  AllowedSlots(const Topology& topology, const std::vector<Index>& allowed, Index per_leaf);

  /// The tree whose leaves are the slots (the topology itself for one process per leaf).
  [[nodiscard]] const Topology& tree() const {
    return oversubscribed_ ? *oversubscribed_ : topology_;
  }
  /// The slots processes may take, ascending.
  [[nodiscard]] const std::vector<Index>& open() const { return open_; }
  /// Each process on its own slot of its leaf, in process order.
  [[nodiscard]] std::vector<Index> slots_of(const Mapping& mapping) const;
  /// The leaves of those slots.
  [[nodiscard]] Mapping mapping_of(const std::vector<Index>& slots) const;

 private:
  const Topology& topology_;
  Index per_leaf_;
  std::optional<Topology> oversubscribed_;
  std::vector<Index> open_;
};

}  // namespace treematch
