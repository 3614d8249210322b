// The identity mapping: rank i on slot i, what a launcher does by default.
#pragma once

#include "src/model/mapping.h"

namespace treematch {

/// Rank i on leaf i of the (oversubscribed) tree, for p processes.
Mapping identity_mapping(kernels::Index processes);

}  // namespace treematch
