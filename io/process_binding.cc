// hwloc process binding: a cpuset from OS indexes, set for the whole process, read back; the PU
// a thread runs on.
#include "io/process_binding.h"

#include <hwloc.h>

#include <cerrno>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "io/hwloc_topology.h"

namespace treematch::io {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const noexcept { hwloc_topology_destroy(topology); }
};
struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const noexcept { hwloc_bitmap_free(bitmap); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

std::string failed(const std::string& call) {
  const int error = errno;
  return call + " failed" +
         (error != 0 ? ": " + std::generic_category().message(error) : std::string());
}

TopologyHandle this_machine() {
  hwloc_topology_t raw = nullptr;
  errno = 0;
  if (hwloc_topology_init(&raw) != 0) throw HwlocError(failed("hwloc_topology_init"));
  TopologyHandle topology(raw);
  errno = 0;
  if (hwloc_topology_load(topology.get()) != 0) throw HwlocError(failed("hwloc_topology_load"));
  return topology;
}

Bitmap new_bitmap() {
  Bitmap bitmap(hwloc_bitmap_alloc());
  if (!bitmap) throw HwlocError("hwloc_bitmap_alloc failed");
  return bitmap;
}

}  // namespace

void bind_this_process(const std::vector<kernels::Index>& cpus) {
  const TopologyHandle topology = this_machine();
  const Bitmap set = new_bitmap();
  std::string list;
  for (const kernels::Index cpu : cpus) {
    if (hwloc_bitmap_set(set.get(), static_cast<unsigned>(cpu)) != 0) {
      throw HwlocError("hwloc_bitmap_set failed");
    }
    if (!list.empty()) list.push_back(',');
    list.append(std::to_string(cpu));
  }
  errno = 0;
  if (hwloc_set_cpubind(topology.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    throw HwlocError(failed("hwloc_set_cpubind to PUs " + list));
  }
}

std::vector<kernels::Index> this_process_binding() {
  const TopologyHandle topology = this_machine();
  const Bitmap set = new_bitmap();
  errno = 0;
  if (hwloc_get_cpubind(topology.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    throw HwlocError(failed("hwloc_get_cpubind"));
  }
  std::vector<kernels::Index> cpus;
  for (int pu = hwloc_bitmap_first(set.get()); pu >= 0; pu = hwloc_bitmap_next(set.get(), pu))
    cpus.push_back(static_cast<kernels::Index>(pu));
  return cpus;
}

kernels::Index this_thread_pu() {
  const TopologyHandle topology = this_machine();
  const Bitmap where = new_bitmap();
  errno = 0;
  if (hwloc_get_cpubind(topology.get(), where.get(), HWLOC_CPUBIND_THREAD) != 0) {
    throw HwlocError(failed("hwloc_get_cpubind"));
  }
  if (hwloc_bitmap_weight(where.get()) != 1) {
    // Unbound or bound to several PUs: where the thread runs now.
    errno = 0;
    if (hwloc_get_last_cpu_location(topology.get(), where.get(), HWLOC_CPUBIND_THREAD) != 0) {
      throw HwlocError(failed("hwloc_get_last_cpu_location"));
    }
  }
  const int pu = hwloc_bitmap_first(where.get());
  if (pu < 0) throw HwlocError("hwloc_get_last_cpu_location returned an empty cpuset");
  return static_cast<kernels::Index>(pu);
}

}  // namespace treematch::io
