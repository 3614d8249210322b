// The logical per-peer volume of each MPI collective: what this process must get to each other
// member in the naive (flat, direct) algorithm, whatever algorithm the MPI library really runs.
#pragma once

#include <cstdint>
#include <span>

#include "apps/profile/traffic_recorder.h"

/// The model, per call, seen from a member `me` of a communicator of p members ("bytes" = count
/// x type size of the argument named; one message per peer reached):
///
/// | collective                      | me sends                                               |
/// |---------------------------------|--------------------------------------------------------|
/// | Barrier                         | 0 bytes to every other member (1 message each)         |
/// | Bcast                           | root: count to every other member                      |
/// | Reduce                          | non-root: count to the root                            |
/// | Allreduce                       | count to every other member                            |
/// | Gather, Gatherv                 | non-root: its sendcount to the root                    |
/// | Scatter                         | root: sendcount to every other member                  |
/// | Scatterv                        | root: sendcounts[m] to member m                        |
/// | Allgather, Allgatherv           | its own block (sendcount) to every other member        |
/// | Alltoall                        | sendcount to every other member                        |
/// | Alltoallv, Alltoallw            | sendcounts[m] (of sendtypes[m]) to member m            |
/// | Reduce_scatter                  | recvcounts[m] to member m (m's block of the result)    |
/// | Reduce_scatter_block            | recvcount to every other member                        |
/// | Scan, Exscan                    | count to every member of higher rank                   |
///
/// Non-blocking variants (Ibcast, ...) count the same, when they are posted. With MPI_IN_PLACE
/// the block is the one the call names for in-place use (recvcount for Allgather/Alltoall,
/// recvcounts[me] for Allgatherv). Self traffic is never counted. Collectives on
/// intercommunicators are not counted. The volumes owed to every (higher) member are summed per
/// communicator and spread over its members when it is freed or at MPI_Finalize (PeerGroup).
namespace treematch::profile::collective {

inline void barrier(TrafficRecorder& recorder, PeerGroup& group) noexcept {
  group.to_all_others(recorder, 0);
}

/// Bcast, and Scatter (bytes = sendcount x size, the same block to every member).
inline void from_root(TrafficRecorder& recorder, PeerGroup& group, int root,
                      std::uint64_t bytes) noexcept {
  if (group.rank() == root) group.to_all_others(recorder, bytes);
}

/// Reduce, Gather, Gatherv (bytes = what this member contributes).
inline void to_root(TrafficRecorder& recorder, PeerGroup& group, int root,
                    std::uint64_t bytes) noexcept {
  if (group.rank() != root) group.send(recorder, TrafficClass::kCollective, root, bytes);
}

/// Allreduce, Allgather(v), Alltoall, Reduce_scatter_block: the same bytes to every other member.
inline void to_all(TrafficRecorder& recorder, PeerGroup& group, std::uint64_t bytes) noexcept {
  group.to_all_others(recorder, bytes);
}

/// Scan, Exscan.
inline void to_higher(TrafficRecorder& recorder, PeerGroup& group, std::uint64_t bytes) noexcept {
  group.to_higher(recorder, bytes);
}

/// Alltoallv, Alltoallw, Reduce_scatter, and Scatterv at the root: bytes_of(m) to member m.
template <class BytesOf>
void to_each(TrafficRecorder& recorder, PeerGroup& group, BytesOf bytes_of) noexcept {
  for (int m = 0; m < group.size(); ++m) {
    if (m != group.rank()) group.send(recorder, TrafficClass::kCollective, m, bytes_of(m));
  }
}

/// Scatterv: the root sends counts[m] x type_size to member m.
inline void scatterv(TrafficRecorder& recorder, PeerGroup& group, int root,
                     std::span<const int> counts, std::uint64_t type_size) noexcept {
  if (group.rank() != root) return;
  to_each(recorder, group, [&](int m) {
    return static_cast<std::uint64_t>(counts[static_cast<std::size_t>(m)]) * type_size;
  });
}

/// Alltoallv and Reduce_scatter: counts[m] x type_size to member m.
inline void to_each_counted(TrafficRecorder& recorder, PeerGroup& group,
                            std::span<const int> counts, std::uint64_t type_size) noexcept {
  to_each(recorder, group, [&](int m) {
    return static_cast<std::uint64_t>(counts[static_cast<std::size_t>(m)]) * type_size;
  });
}

}  // namespace treematch::profile::collective
