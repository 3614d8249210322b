// The identity mapping.
#include "src/strategies/identity.h"

#include <numeric>

namespace treematch {

Mapping identity_mapping(kernels::Index processes) {
  Mapping identity;
  identity.leaf_of_rank.resize(static_cast<std::size_t>(processes));
  std::iota(identity.leaf_of_rank.begin(), identity.leaf_of_rank.end(), kernels::Index{0});
  return identity;
}

}  // namespace treematch
