// Loads hwloc topologies (RAII handle, every return code checked) and walks them into a Topology.
#include "io/hwloc_topology.h"

#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/input_error.h"

namespace treematch::io {

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const noexcept { hwloc_topology_destroy(topology); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// "<call> failed: <errno text>", read right after the failing call.
std::string call_failed(const char* call) {
  const int error = errno;
  return std::string(call) + " failed" +
         (error != 0 ? ": " + std::generic_category().message(error) : std::string());
}

// A topology with the filters every source shares: instruction caches kept, like the project's
// own synthetic parser (their levels have arity 1 on real machines and are dropped anyway).
TopologyHandle new_topology(unsigned long flags) {
  hwloc_topology_t raw = nullptr;
  errno = 0;
  if (hwloc_topology_init(&raw) != 0) throw HwlocError(call_failed("hwloc_topology_init"));
  TopologyHandle topology(raw);
  errno = 0;
  if (hwloc_topology_set_icache_types_filter(topology.get(), HWLOC_TYPE_FILTER_KEEP_ALL) != 0) {
    throw HwlocError(call_failed("hwloc_topology_set_icache_types_filter"));
  }
  errno = 0;
  if (flags != 0 && hwloc_topology_set_flags(topology.get(), flags) != 0) {
    throw HwlocError(call_failed("hwloc_topology_set_flags"));
  }
  return topology;
}

void load(hwloc_topology_t topology, const std::string& source) {
  errno = 0;
  if (hwloc_topology_load(topology) != 0)
    throw InputError(source, call_failed("hwloc_topology_load"));
}

std::string level_name(hwloc_obj_t object) {
  std::array<char, 64> buffer{};
  if (hwloc_obj_type_snprintf(buffer.data(), buffer.size(), object, /*verbose=*/1) <= 0) {
    return hwloc_obj_type_string(object->type);
  }
  return std::string(buffer.data());
}

Index checked_index(unsigned value, const std::string& source, const char* what) {
  if (value > static_cast<unsigned>(std::numeric_limits<Index>::max())) {
    throw InputError(source, std::string(what) + " " + std::to_string(value) + " is too large");
  }
  return static_cast<Index>(value);
}

hwloc_obj_t object_at(hwloc_topology_t topology, int depth, unsigned index) {
  hwloc_obj_t object = hwloc_get_obj_by_depth(topology, depth, index);
  if (object == nullptr) {
    throw HwlocError("hwloc_get_obj_by_depth(" + std::to_string(depth) + ", " +
                     std::to_string(index) + ") returned no object");
  }
  return object;
}

// Where the machine boundary lies in a synthetic hwloc tree: below the leading Group levels, if
// the first level that is not a plain Group is a Package, Die, L3 or a Group holding NUMA memory.
int synthetic_machine_level(hwloc_topology_t topology, int leaf_depth) {
  for (int d = 1; d < leaf_depth; ++d) {
    const hwloc_obj_t first = object_at(topology, d, 0);
    const bool holds_memory = first->memory_arity > 0;
    if (first->type == HWLOC_OBJ_GROUP && !holds_memory) continue;
    const bool anchor = first->type == HWLOC_OBJ_PACKAGE || first->type == HWLOC_OBJ_DIE ||
                        first->type == HWLOC_OBJ_L3CACHE || holds_memory;
    return anchor ? d - 1 : 0;
  }
  return 0;
}

enum class MachineRule { kOneMachine, kSynthetic };

Topology convert(hwloc_topology_t topology, const std::string& source, MachineRule rule) {
  const int depth_count = hwloc_topology_get_depth(topology);
  const int leaf_depth = depth_count - 1;
  if (leaf_depth < 0 || hwloc_get_type_depth(topology, HWLOC_OBJ_PU) != leaf_depth) {
    throw InputError(source, "hwloc topology has no PU level at the bottom");
  }
  std::vector<TreeLevel> levels;
  for (int d = 0; d < leaf_depth; ++d) {
    const int count = hwloc_get_nbobjs_by_depth(topology, d);
    if (count <= 0) throw HwlocError("hwloc_get_nbobjs_by_depth(" + std::to_string(d) + ") failed");
    const hwloc_obj_t first = object_at(topology, d, 0);
    for (unsigned i = 0; i < static_cast<unsigned>(count); ++i) {
      const hwloc_obj_t node = object_at(topology, d, i);
      if (node->arity != first->arity) {
        throw InputError(source, "asymmetric tree: level '" + level_name(node) + "' (depth " +
                                     std::to_string(d) + ") has nodes of arity " +
                                     std::to_string(first->arity) + " and " +
                                     std::to_string(node->arity));
      }
      for (hwloc_obj_t child = node->first_child; child != nullptr; child = child->next_sibling) {
        if (child->depth != d + 1) {
          throw InputError(
              source, "asymmetric tree: level '" + level_name(node) + "' (depth " +
                          std::to_string(d) + ") has a node whose '" + level_name(child) +
                          "' child is at depth " + std::to_string(child->depth) + " instead of " +
                          std::to_string(d + 1) + " (a level is missing under some nodes)");
        }
      }
    }
    const Index arity = checked_index(first->arity, source, "arity");
    levels.push_back(TreeLevel{arity, 1.0, level_name(object_at(topology, d + 1, 0))});
  }
  const int leaf_count = hwloc_get_nbobjs_by_depth(topology, leaf_depth);
  std::vector<Index> os(static_cast<std::size_t>(std::max(leaf_count, 0)));
  for (unsigned leaf = 0; leaf < os.size(); ++leaf) {
    const hwloc_obj_t pu = object_at(topology, leaf_depth, leaf);
    if (pu->os_index == HWLOC_UNKNOWN_INDEX) {
      throw InputError(source, "PU L#" + std::to_string(leaf) + " has no OS index");
    }
    os[leaf] = checked_index(pu->os_index, source, "PU OS index");
  }
  int machine_level = 0;
  switch (rule) {
    case MachineRule::kOneMachine:
      machine_level = 0;
      break;
    case MachineRule::kSynthetic:
      machine_level = synthetic_machine_level(topology, leaf_depth);
      break;
  }
  try {
    return Topology(std::move(levels), std::move(os), machine_level);
  } catch (const std::invalid_argument& error) {
    throw InputError(source, error.what());
  }
}

}  // namespace

Topology read_hwloc_xml(const std::string& path) {
  TopologyHandle topology = new_topology(HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  errno = 0;
  if (hwloc_topology_set_xml(topology.get(), path.c_str()) != 0) {
    throw InputError(path,
                     call_failed("hwloc_topology_set_xml") + " (not a readable hwloc XML file?)");
  }
  load(topology.get(), path);
  return convert(topology.get(), path, MachineRule::kOneMachine);
}

Topology read_this_machine() {
  const std::string source = "this machine";
  TopologyHandle topology = new_topology(0);
  load(topology.get(), source);
  return convert(topology.get(), source, MachineRule::kOneMachine);
}

Topology read_hwloc_synthetic(const std::string& description, const std::string& source) {
  TopologyHandle topology = new_topology(0);
  errno = 0;
  if (hwloc_topology_set_synthetic(topology.get(), description.c_str()) != 0) {
    throw InputError(source,
                     call_failed("hwloc_topology_set_synthetic") + " for '" + description + "'");
  }
  load(topology.get(), source);
  return convert(topology.get(), source, MachineRule::kSynthetic);
}

}  // namespace treematch::io
