// libFuzzer target: one rank file of Open MPI's monitoring (prof.0.prof of a 1-rank run), read
// as `treematch convert --from ompi-monitoring` reads it. A bad file must end in io::InputError;
// anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "io/input_error.h"
#include "io/ompi_monitoring_reader.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const treematch::fuzz::FuzzFile file("prof.0.prof", data, size);
  try {
    (void)treematch::io::read_ompi_monitoring(file.path());
  } catch (const treematch::io::InputError&) {
    // a clean refusal
  }
  return 0;
}
