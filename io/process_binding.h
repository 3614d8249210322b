// Binds the calling process to PUs through hwloc (for `treematch bind`, under any launcher).
#pragma once

#include <vector>

#include "kernels/types.h"

namespace treematch::io {

/// Binds the calling process, all its threads, to the PUs of these OS indexes
/// (hwloc_set_cpubind with HWLOC_CPUBIND_PROCESS); the binding survives exec. Throws
/// HwlocError naming the call and the PUs when hwloc cannot (a PU this machine lacks or the
/// process may not use).
void bind_this_process(const std::vector<kernels::Index>& cpus);

/// The OS indexes of the PUs the calling process is bound to (hwloc_get_cpubind). Throws
/// HwlocError naming the call.
std::vector<kernels::Index> this_process_binding();

}  // namespace treematch::io
