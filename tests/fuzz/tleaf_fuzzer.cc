// libFuzzer target: a Scotch architecture (tleaf, sub) as --topology reads it, also as the part
// a small job uses. A bad text must end in io::InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/input_error.h"
#include "io/tleaf_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // As the command line reads it, knowing the job's size (a huge description is read as the part
  // the job uses).
  try {
    (void)treematch::io::parse_scotch_architecture(text, "fuzz", {.leaves_needed = 64});
  } catch (const treematch::io::InputError&) {
    // a clean refusal
  }
  return 0;
}
