// The peak memory a mapping takes, estimated from the input's size before it is read.
#pragma once

#include <cstdint>

#include "src/model/context.h"

namespace treematch {

/// Bytes a `treematch map` with `ctx` reaches at its peak (reading, the strategies, the report) on
/// a matrix of `processes` rows and `entries` stored entries (both directions): a fixed part (the
/// libraries and the machine's tree), a part per process and a part per entry. The part per entry
/// is larger when the driver holds the whole matrix for the top-down strategies and the refinement
/// (their subgraphs and coarse levels) than when only the walk runs. Fitted to stencils of 16k to
/// 10M ranks (src/README.md gives the measurements); under mpirun each rank holds about as much.
[[nodiscard]] std::int64_t estimated_peak_bytes(std::int64_t processes, std::int64_t entries,
                                                const Context& ctx);

}  // namespace treematch
