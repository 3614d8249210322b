// The peak memory a mapping takes, estimated from the input's size before it is read.
#pragma once

#include <cstdint>

#include "src/model/context.h"

namespace treematch {

/// Bytes one process of a `treematch map` with `ctx` reaches at its peak (reading, the
/// strategies, the report) on a matrix of `processes` rows and `entries` stored entries (both
/// directions). Read whole (`ranks` = 1): a fixed part (the libraries and the machine's tree), a
/// part per process and a part per entry, larger when the driver holds the whole matrix for the
/// top-down strategies and the refinement (their subgraphs and coarse levels) than when only the
/// walk runs. Spread over `ranks` MPI ranks in row blocks (an HDF5 matrix under mpirun): where the
/// driver gathers the matrix on every rank (a matrix of at most driver.whole_matrix_max_entries
/// entries), a whole run's need and the rank's block besides; else a fixed part (the libraries,
/// MPI, the levels gathered once small), the arrays every rank holds whole (per process) and the
/// rank's share of the entries. Fitted to stencils of 16k to 10M ranks (src/README.md gives the
/// measurements).
[[nodiscard]] std::int64_t estimated_peak_bytes(std::int64_t processes, std::int64_t entries,
                                                const Context& ctx, int ranks = 1);

}  // namespace treematch
