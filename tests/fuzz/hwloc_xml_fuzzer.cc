// libFuzzer target: an hwloc XML export as --topology reads it: treematch's checks, then hwloc,
// then the tree (unbalanced ones included). A bad file must end in io::InputError; anything else
// (hwloc crashing on what the checks let through) is a finding.
#include <cstddef>
#include <cstdint>

#include "io/hwloc_topology.h"
#include "io/input_error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
