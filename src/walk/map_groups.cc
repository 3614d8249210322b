// MapGroups: a top-down traversal of the group hierarchy gives each process its leaf.
#include "src/walk/map_groups.h"

#include <stdexcept>

namespace treematch {

std::vector<Index> map_groups(const std::vector<GroupLevel>& levels) {
  if (levels.empty()) return {};
  if (levels.back().groups.count() != 1)
    throw std::logic_error("map_groups: the top level must form one group");
  std::vector<Index> upper_position{0};  // the root
  for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
    const kernels::Groups& groups = level->groups;
    std::vector<Index> position(static_cast<std::size_t>(level->real), -1);
    for (Index g = 0; g < groups.count(); ++g) {
      const auto members = groups.group(g);
      for (Index j = 0; j < groups.k; ++j) {
        const Index member = members[static_cast<std::size_t>(j)];
        if (member < level->real)
          position[static_cast<std::size_t>(member)] =
              upper_position[static_cast<std::size_t>(g)] * groups.k + j;
      }
    }
    upper_position.swap(position);
  }
  return upper_position;
}

}  // namespace treematch
