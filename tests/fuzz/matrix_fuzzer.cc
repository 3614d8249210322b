// libFuzzer target: a matrix file in the format of its extension (FUZZ_EXTENSION: .mat, .csv,
// .graph, .h5), read as `treematch map -m` reads it. A bad file must end in io::InputError; any
// other exception, a crash, a leak or memory beyond libFuzzer's limit is a finding.
#include <cstddef>
#include <cstdint>

#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_reader.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const treematch::fuzz::FuzzFile file(std::string("input") + FUZZ_EXTENSION, data, size);
  // As in a batch: an HDF5 file is tried in a child once for both metrics.
  const treematch::io::Hdf5ProbeScope probes;
  for (const treematch::io::Metric metric :
       {treematch::io::Metric::kSize, treematch::io::Metric::kMsg}) {
    try {
      (void)treematch::io::read_matrix(file.path(), metric);
    } catch (const treematch::io::InputError&) {
      // a clean refusal
    }
  }
  return 0;
}
