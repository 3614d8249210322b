// libFuzzer target: an hwloc synthetic description as --topology reads it (treematch's own
// parser, hwloc for the rest up to 4096 PUs), cores or hardware threads as leaves. A bad
// description must end in io::InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/input_error.h"
#include "io/synthetic_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool threads : {false, true}) {
    try {
      (void)treematch::io::read_synthetic(text, {.hardware_threads = threads, .leaves_needed = 64});
    } catch (const treematch::io::InputError&) {
      // a clean refusal
    }
  }
  return 0;
}
