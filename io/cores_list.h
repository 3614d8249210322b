// Parses a --cores constraint: a list like "0-3,8,10-11" or a file holding leaf ids (*.bind).
#pragma once

#include <string>
#include <vector>

#include "kernels/types.h"

namespace treematch::io {

/// Returns the sorted, de-duplicated leaf ids named by `spec` (inline list, or a path to a file of
/// whitespace-separated ids). Throws InputError for malformed text, or an id >= `leaf_count`
/// ("--cores names leaf 70 but the topology has 64 leaves").
std::vector<kernels::Index> parse_cores_list(const std::string& spec, kernels::Index leaf_count);

}  // namespace treematch::io
