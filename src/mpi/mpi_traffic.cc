// Process-wide counters of the MPI calls made (atomics: cheap, and safe whatever thread calls).
#include "src/mpi/mpi_traffic.h"

#include <atomic>

namespace treematch::distributed {
namespace {

std::atomic<std::uint64_t> bytes_sent{0};
std::atomic<std::int64_t> nanoseconds{0};

}  // namespace

MpiTraffic mpi_traffic() {
  return MpiTraffic{bytes_sent.load(), static_cast<double>(nanoseconds.load()) * 1e-9};
}

CountedCall::CountedCall(std::size_t bytes) : start_(std::chrono::steady_clock::now()) {
  bytes_sent += bytes;
}

CountedCall::~CountedCall() {
  nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - start_)
                     .count();
}

}  // namespace treematch::distributed
