// The matrices of one measured phase of a running job, added to an HDF5 pattern file as the group
// /phase/NAME (the layout of the capture tools: size and msg as csr_matrix groups).
#pragma once

#include <string>

#include "kernels/types.h"

namespace treematch::io {

/// One phase: n x n directed matrices (row i, column j = sent by rank i to rank j).
struct PhaseMatrices {
  std::string name;    ///< the group under /phase: letters, digits, '_', '-', '.'
  std::string source;  ///< which counters measured it (the attribute `source`)
  kernels::Csr bytes;
  kernels::Csr messages;
};

/// Adds /phase/<name> (csr_matrix groups `size` and `msg`, attributes `source` and `ranks`) to the
/// HDF5 file `path`, creating the file when it does not exist. All or nothing: the new content is
/// written beside `path` (a copy of the old file when there is one) and renamed over it. Throws
/// InputError naming the file when the name is not allowed or the phase is already there, and
/// when it cannot be written; `path` is then unchanged.
void add_phase(const std::string& path, const PhaseMatrices& phase);

}  // namespace treematch::io
