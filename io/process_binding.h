// Where the calling process runs and binding it to PUs, through hwloc (`treematch bind`, the
// in-job reorder).
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

/// The OS index of the PU the calling thread runs on: the PU of its binding
/// (hwloc_get_cpubind) when bound to a single PU, otherwise (unbound, or bound to several PUs)
/// the PU it last ran on (hwloc_get_last_cpu_location). Throws HwlocError naming the call.
kernels::Index this_thread_pu();

}  // namespace treematch::io
