// Loads hwloc topologies (RAII handle, every return code checked) and walks them into a Topology.
#include "io/hwloc_topology.h"

#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/contained_call.h"
#include "io/hwloc_xml_check.h"
#include "io/input_error.h"
#include "src/tree/unbalanced_tree.h"

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
  // hwloc prints its own multi-line reports of damaged input on stderr; treematch reports the
  // failure in one line. The user can still ask for them (HWLOC_HIDE_ERRORS=0).
  setenv("HWLOC_HIDE_ERRORS", "2", /*overwrite=*/0);
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

/// Depth-first walk of hwloc's normal children into the leaf paths of an UnbalancedTree.
class TreeWalk {
 public:
  TreeWalk(const std::string& source, int leaf_depth, UnbalancedTree& tree)
      : source_(source),
        leaf_depth_(leaf_depth),
        tree_(tree),
        path_(static_cast<std::size_t>(leaf_depth), 0) {}

  void visit(hwloc_obj_t object) {
    if (object->depth >= leaf_depth_ || object->type == HWLOC_OBJ_PU) {
      add_leaf(object);
      return;
    }
    Index child_index = 0;
    for (hwloc_obj_t child = object->first_child; child != nullptr; child = child->next_sibling) {
      // A child may sit deeper than the next level (a level missing under this node): the
      // levels in between get a single child; a PU outside any core stops at the leaf level.
      const int child_depth = std::min(child->depth, leaf_depth_);
      std::fill(path_.begin() + object->depth, path_.end(), 0);
      path_[static_cast<std::size_t>(child_depth - 1)] = child_index++;
      visit(child);
    }
  }

 private:
  /// The OS indexes of the PUs in `object`'s subtree (as its PUs name themselves, like the PU
  /// leaves of --hwthreads; hand-written XML files may disagree with the cpuset bits).
  void collect_pus(hwloc_obj_t object) {
    if (object->type == HWLOC_OBJ_PU) {
      if (object->os_index == HWLOC_UNKNOWN_INDEX) {
        throw InputError(source_,
                         "PU L#" + std::to_string(object->logical_index) + " has no OS index");
      }
      cpus_.push_back(checked_index(object->os_index, source_, "PU OS index"));
      return;
    }
    for (hwloc_obj_t child = object->first_child; child != nullptr; child = child->next_sibling)
      collect_pus(child);
  }

  void add_leaf(hwloc_obj_t object) {
    cpus_.clear();
    collect_pus(object);
    if (cpus_.empty()) {
      throw InputError(source_, level_name(object) + " L#" + std::to_string(object->logical_index) +
                                    " has no PU");
    }
    std::sort(cpus_.begin(), cpus_.end());
    std::fill(path_.begin() + std::min(object->depth, leaf_depth_), path_.end(), 0);
    try {
      tree_.add_leaf(path_, cpus_.front(), cpus_);
    } catch (const std::invalid_argument& error) {
      throw InputError(source_, std::string("hwloc tree: ") + error.what());
    }
  }

  const std::string& source_;
  int leaf_depth_;
  UnbalancedTree& tree_;
  std::vector<Index> path_;
  std::vector<Index> cpus_;
};

Topology convert(hwloc_topology_t topology, const std::string& source, MachineRule rule,
                 const TopologyOptions& options) {
  const int depth_count = hwloc_topology_get_depth(topology);
  const int pu_depth = depth_count - 1;
  if (pu_depth < 0 || hwloc_get_type_depth(topology, HWLOC_OBJ_PU) != pu_depth) {
    throw InputError(source, "hwloc topology has no PU level at the bottom");
  }
  const int core_depth = hwloc_get_type_depth(topology, HWLOC_OBJ_CORE);
  // Cores are the leaves, as launchers bind by default; PUs when asked or when there is no core.
  const int leaf_depth = !options.hardware_threads && core_depth > 0 ? core_depth : pu_depth;
  std::vector<TreeLevel> levels;
  for (int d = 1; d <= leaf_depth; ++d) {
    levels.push_back(TreeLevel{1, 1.0, level_name(object_at(topology, d, 0))});
  }
  int machine_level = 0;
  switch (rule) {
    case MachineRule::kOneMachine:
      machine_level = 0;
      break;
    case MachineRule::kSynthetic:
      machine_level = std::min(synthetic_machine_level(topology, pu_depth), leaf_depth);
      break;
  }
  UnbalancedTree tree(std::move(levels), machine_level);
  TreeWalk walk(source, leaf_depth, tree);
  walk.visit(hwloc_get_root_obj(topology));
  try {
    return balanced_superset(tree);
  } catch (const std::invalid_argument& error) {
    throw InputError(source, error.what());
  }
}

}  // namespace

Topology read_hwloc_xml(const std::string& path, const TopologyOptions& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, "cannot open the file");
  const std::string xml((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw InputError(path, "cannot read the file");
  if (xml.size() >= static_cast<std::size_t>(INT_MAX)) {
    throw InputError(path, "an hwloc XML file of 2 GiB or more");
  }
  // hwloc trusts some attributes it does not check (a damaged file can crash it): check first.
  if (const std::string problem = hwloc_xml_problem(xml); !problem.empty()) {
    throw InputError(path, "damaged hwloc XML: " + problem);
  }
  const auto load_xml = [&] {
    TopologyHandle topology = new_topology(HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    errno = 0;
    if (hwloc_topology_set_xmlbuffer(topology.get(), xml.c_str(),
                                     static_cast<int>(xml.size() + 1)) != 0) {
      throw InputError(
          path, call_failed("hwloc_topology_set_xmlbuffer") + " (not a readable hwloc XML file?)");
    }
    load(topology.get(), path);
    return topology;
  };
  // The checks above cannot foresee every crash: hwloc's own minimal XML parser (used when the
  // libxml2 plugin is not installed) dereferences null on some damaged files the checks let
  // through. hwloc loads the file in a child process first; large files get one more second per
  // MiB, as loading them takes longer.
  const unsigned seconds = library_probe_seconds() + static_cast<unsigned>(xml.size() >> 20);
  if (const std::optional<std::string> failure = failure_in_child([&] { load_xml(); }, seconds)) {
    throw InputError(path, "damaged hwloc XML: hwloc " + *failure + " loading it");
  }
  const TopologyHandle topology = load_xml();
  return convert(topology.get(), path, MachineRule::kOneMachine, options);
}

Topology read_this_machine(const TopologyOptions& options) {
  const std::string source = "this machine";
  TopologyHandle topology = new_topology(0);
  load(topology.get(), source);
  return convert(topology.get(), source, MachineRule::kOneMachine, options);
}

Topology read_hwloc_synthetic(const std::string& description, const std::string& source,
                              const TopologyOptions& options) {
  const auto build = [&] {
    TopologyHandle topology = new_topology(0);
    errno = 0;
    if (hwloc_topology_set_synthetic(topology.get(), description.c_str()) != 0) {
      throw InputError(source, call_failed("hwloc_topology_set_synthetic") + " for '" +
                                   excerpt(description, 60) + "'");
    }
    load(topology.get(), source);
    return topology;
  };
  // hwloc asserts (aborts) on some malformed strings it accepts at first, e.g. an empty
  // "(indexes=...)" list: it builds the machine in a child process first.
  if (const std::optional<std::string> failure =
          failure_in_child([&] { build(); }, library_probe_seconds())) {
    throw InputError(source, "hwloc " + *failure + " building '" + excerpt(description, 60) +
                                 "': not a synthetic description it can read");
  }
  const TopologyHandle topology = build();
  return convert(topology.get(), source, MachineRule::kSynthetic, options);
}

}  // namespace treematch::io
