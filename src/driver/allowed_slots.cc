// Slots of allowed leaves: the virtual leaves of the oversubscribed tree and back.
#include "src/driver/allowed_slots.h"

#include <cstddef>

namespace treematch {

AllowedSlots::AllowedSlots(const Topology& topology, const std::vector<Index>& allowed,
                           Index per_leaf)
    : topology_(topology), per_leaf_(per_leaf) {
  if (per_leaf > 1) oversubscribed_ = topology.with_oversubscription(per_leaf);
  open_.reserve(allowed.size() * static_cast<std::size_t>(per_leaf));
  for (const Index leaf : allowed) {
    for (Index slot = 0; slot < per_leaf; ++slot) open_.push_back(leaf * per_leaf + slot);
  }
}

std::vector<Index> AllowedSlots::slots_of(const Mapping& mapping) const {
  std::vector<Index> taken(static_cast<std::size_t>(topology_.leaf_count()), 0);
  std::vector<Index> slots;
  slots.reserve(mapping.leaf_of_rank.size());
  for (const Index leaf : mapping.leaf_of_rank)
    slots.push_back(leaf * per_leaf_ + taken[static_cast<std::size_t>(leaf)]++);
  return slots;
}

Mapping AllowedSlots::mapping_of(const std::vector<Index>& slots) const {
  Mapping mapping{slots};
  for (Index& leaf : mapping.leaf_of_rank) leaf /= per_leaf_;
  return mapping;
}

}  // namespace treematch
