// libFuzzer target: a Scotch architecture (tleaf, sub) as --topology reads it, also as the part
// a small job uses. A bad text must end in io::InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/input_error.h"
#include "io/tleaf_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const std::int64_t needed : {std::int64_t{0}, std::int64_t{8}}) {
    try {
      (void)treematch::io::parse_scotch_architecture(text, "fuzz", {.leaves_needed = needed});
    } catch (const treematch::io::InputError&) {
      // a clean refusal
    }
  }
  return 0;
}
