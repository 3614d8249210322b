// libFuzzer target: an hwloc XML export as --topology reads it: treematch's checks, then hwloc,
// then the tree (unbalanced ones included). A bad file must end in io::InputError; anything else
// (hwloc crashing on what the checks let through) is a finding.
#include <cstddef>
#include <cstdint>

#include <hwloc.h>

#include "io/hwloc_topology.h"
#include "io/input_error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One topology kept for the whole run keeps hwloc's plugins (its libxml2 reader) loaded, so
  // that a leak report names their modules (lsan.supp) instead of unloaded code.
  static const hwloc_topology_t keep_plugins = [] {
    hwloc_topology_t topology = nullptr;
    hwloc_topology_init(&topology);
    return topology;
  }();
  static_cast<void>(keep_plugins);
  const treematch::fuzz::FuzzFile file("input.xml", data, size);
  for (const bool threads : {false, true}) {
    try {
      (void)treematch::io::read_hwloc_xml(file.path(), {.hardware_threads = threads});
    } catch (const treematch::io::InputError&) {
      // a clean refusal
    }
  }
  return 0;
}
