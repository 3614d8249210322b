// What this process asks of MPI: the bytes its data carries to other ranks, and the time inside
// the calls (what `treematch map` reports per rank under mpirun).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace treematch::distributed {

/// The totals of this process's counted MPI calls since it started.
struct MpiTraffic {
  std::uint64_t bytes_sent = 0;  ///< see CountedCall
  double seconds = 0.0;  ///< wall time inside the calls, waiting for the other ranks included
};

/// This process's totals so far.
MpiTraffic mpi_traffic();

/// Counts one MPI call while it lives (wrap the call in its scope). `bytes` is what this rank's
/// own data carries to the other ranks, whatever algorithm the MPI library picks: a block
/// gathered on every rank counts once per other rank, an all-to-all the pieces for other ranks,
/// a broadcast's root its buffer once per other rank, a gather's sender its block, a reduction
/// its vector once. Not counted: MPI-IO (the file reads of parallel HDF5) and what the MPI
/// library forwards for others.
class CountedCall {
 public:
  explicit CountedCall(std::size_t bytes);
  ~CountedCall();
  CountedCall(const CountedCall&) = delete;
  CountedCall& operator=(const CountedCall&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace treematch::distributed
