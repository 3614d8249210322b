// The presets against the best peer mapper (Scotch, VieM, SharedMap) per case: the corpus goals'
// table.
#pragma once

#include <string>
#include <vector>

#include "apps/bench/report.h"

namespace treematch::bench {

/// The cheapest one-process-per-core peer mapping of the case (weighted cost): Scotch default,
/// -cq, -cq -b0, VieM strong and SharedMap strong, each only where it mapped and put at most one
/// process on a core (Scotch's default may put two on one core, which no launcher binds); null if
/// none.
const ToolResult* best_peer(const CaseResult& c);

/// Its name ("scotch", "scotch-cq", "scotch-b0", "viem", "sharedmap").
std::string peer_name(const CaseResult& c, const ToolResult* peer);

/// One line per case: each peer's cost (VieM's and SharedMap's with their times), the best peer,
/// and per preset cost / best peer and time / VieM's; then per preset the geometric mean of cost /
/// best peer, the cases at or below it, and the worst case. "" when no case ran a preset.
std::string render_peers(const std::vector<CaseResult>& results);

}  // namespace treematch::bench
