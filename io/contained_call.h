// Library code that may crash or never return on damaged input, tried in a child process first.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace treematch::io {

/// Seconds a probe of library code gets by default: far more than reading the metadata of any real
/// file or building a small synthetic machine takes, less than a fuzzer's timeout (30 s).
inline constexpr unsigned kLibraryProbeSeconds = 20;

/// Seconds a probe gets: TREEMATCH_PROBE_SECONDS (1 to 3600) when set to such a number (a loaded
/// parallel file system may need more; the fuzzers give less to move on from looping inputs),
/// else kLibraryProbeSeconds.
unsigned library_probe_seconds();

/// Runs `call` in a forked child process given `seconds`: nothing when the child ends normally
/// (returning or throwing: the caller then makes the call itself and meets the same error), else
/// what ended it ("crashed with signal 11 (Segmentation fault)", "did not finish within 20 s").
/// For the libraries that trust what they parse (HDF5 metadata, hwloc XML and synthetic strings): a
/// damaged input fails in the child, never in this process, which reports it in one line. The
/// child makes no MPI call and writes nothing. Nothing is returned when fork() fails.
std::optional<std::string> failure_in_child(const std::function<void()>& call, unsigned seconds);

}  // namespace treematch::io
