// The MPI entry points of libtreematch-profile.so (PMPI interposition, C bindings only): each one
// calls the MPI library through its PMPI_ name and, when it succeeded and counting is on, tells
// the process's ProfileSession what the call sent. Nothing else happens here.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <span>
#include <vector>

#include "apps/profile/collective_volume.h"
#include "apps/profile/profile_session.h"

namespace {

using treematch::profile::PeerGroup;
using treematch::profile::PersistentSend;
using treematch::profile::ProfileOptions;
using treematch::profile::ProfileSession;
using treematch::profile::TrafficClass;
using treematch::profile::TrafficRecorder;
namespace collective = treematch::profile::collective;

/// The session of this process, between PMPI_Init* and PMPI_Finalize. Process-wide state is what
/// PMPI interposition is: an MPI_ entry point has no argument to carry a context.
std::atomic<ProfileSession*> g_session{nullptr};

/// The session when counting is on, nullptr otherwise (before MPI_Init, after MPI_Pcontrol(0)).
inline ProfileSession* counting_session() noexcept {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  return session != nullptr && session->counting() ? session : nullptr;
}

/// The size of `type` in bytes, from MPI.
std::uint64_t type_size(MPI_Datatype type) noexcept {
  int size = 0;
  if (PMPI_Type_size(type, &size) == MPI_SUCCESS && size != MPI_UNDEFINED && size >= 0) {
    return static_cast<std::uint64_t>(size);
  }
  MPI_Count large = 0;  // a type larger than INT_MAX bytes
  if (PMPI_Type_size_x(type, &large) != MPI_SUCCESS || large < 0) return 0;
  return static_cast<std::uint64_t>(large);
}

/// The sizes of the datatypes used lately, direct-mapped on the handle, so that a send costs a
/// comparison instead of a call to MPI_Type_size. Any MPI_Type_free empties it (a freed handle may
/// come back as another type). Used only when one thread at a time calls MPI; under
/// MPI_THREAD_MULTIPLE every call asks MPI.
class TypeSizeCache {
 public:
  std::uint64_t size(MPI_Datatype type) noexcept {
    Entry& entry = entries_[std::hash<MPI_Datatype>{}(type) / 16 % kEntries];
    if (entry.type != type) entry = Entry{type, type_size(type)};
    return entry.size;
  }
  void clear() noexcept { entries_.fill(Entry{}); }

 private:
  static constexpr std::size_t kEntries = 64;
  /// An empty entry holds a zero handle, which no valid datatype has (Open MPI: a null pointer;
  /// MPICH: 0 is not a datatype handle), and a call with an invalid type is not counted.
  struct Entry {
    MPI_Datatype type;
    std::uint64_t size;
  };
  std::array<Entry, kEntries> entries_{};
};

TypeSizeCache g_type_sizes;
/// Whether g_type_sizes may be used: set by MPI_Init* when MPI_THREAD_MULTIPLE was not granted.
bool g_cache_type_sizes = false;

/// count x size of `type`, in bytes.
inline std::uint64_t bytes_of(int count, MPI_Datatype type) noexcept {
  if (count <= 0) return 0;
  const std::uint64_t size = g_cache_type_sizes ? g_type_sizes.size(type) : type_size(type);
  return static_cast<std::uint64_t>(count) * size;
}

/// A point-to-point send of count x type to `dest` of `comm` (MPI_COMM_WORLD: no translation).
inline void count_send(MPI_Comm comm, int dest, int count, MPI_Datatype type) noexcept {
  ProfileSession* session = counting_session();
  if (session == nullptr || dest == MPI_PROC_NULL) return;
  TrafficRecorder& recorder = session->recorder();
  if (comm == MPI_COMM_WORLD) {
    if (dest >= 0 && dest < recorder.world_size()) {
      recorder.record(TrafficClass::kPointToPoint, dest, bytes_of(count, type));
    }
    return;
  }
  PeerGroup* peers = session->peers(comm);
  if (peers == nullptr || dest < 0 || dest >= peers->size()) return;
  peers->send(recorder, TrafficClass::kPointToPoint, dest, bytes_of(count, type));
}

/// A persistent send prepared in `request` (counted at each start).
void remember_send(MPI_Request request, MPI_Comm comm, int dest, int count,
                   MPI_Datatype type) noexcept {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  if (session == nullptr || dest == MPI_PROC_NULL) return;
  PeerGroup* peers = session->peers(comm);
  if (peers == nullptr || dest < 0 || dest >= peers->size()) return;
  const int peer = peers->world_rank(dest);
  if (peer >= 0) session->remember_persistent(request, PersistentSend{peer, bytes_of(count, type)});
}

/// A started request that was `before` the start and is `after` it (Open MPI may substitute a
/// buffered send's request): counted when it is a persistent send.
inline void count_started(ProfileSession& session, MPI_Request before, MPI_Request after) noexcept {
  PersistentSend send;
  if (!session.find_persistent(before, send)) return;
  session.recorder().record(TrafficClass::kPointToPoint, send.peer, send.bytes);
  if (after != before) {
    session.forget_persistent(before);
    session.remember_persistent(after, send);
  }
}

/// A collective on `comm`: `record(recorder, group)` applies the model of collective_volume.h.
template <typename Record>
inline void count_collective(MPI_Comm comm, const Record& record) noexcept {
  ProfileSession* session = counting_session();
  if (session == nullptr) return;
  PeerGroup* group = session->collective_peers(comm);
  if (group != nullptr) record(session->recorder(), *group);
}

/// The block a rank contributes to Allgather/Alltoall: the send block, or the receive block named
/// for in-place use.
inline std::uint64_t block_bytes(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 int recvcount, MPI_Datatype recvtype) noexcept {
  return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
}

inline std::span<const int> counts_of(const int counts[], const PeerGroup& group) noexcept {
  return {counts, static_cast<std::size_t>(group.size())};
}

/// A one-sided operation on member `target` of the group of `win`.
template <typename Record>
inline void count_onesided(MPI_Win win, int target, const Record& record) noexcept {
  ProfileSession* session = counting_session();
  if (session == nullptr || target == MPI_PROC_NULL) return;
  PeerGroup* group = session->window_peers(win);
  if (group == nullptr || target < 0 || target >= group->size()) return;
  record(session->recorder(), *group);
}

void start_session(int thread_level) noexcept {
  g_cache_type_sizes = thread_level != MPI_THREAD_MULTIPLE;
  int rank = 0;
  static_cast<void>(PMPI_Comm_rank(MPI_COMM_WORLD, &rank));
  try {
    g_session.store(new ProfileSession(ProfileOptions::from_environment(rank), thread_level),
                    std::memory_order_release);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "treematch-profile: rank %d records nothing: %s\n", rank, e.what());
  }
}

// Shorthands for the wrappers below.
constexpr TrafficClass kOneSided = TrafficClass::kOneSided;

// The counting of each collective and one-sided call, shared by its blocking and non-blocking
// (or request-based) forms.

/// The root sends `count` elements to every other member: MPI_Bcast, MPI_Scatter and their
/// non-blocking forms (collective_volume.h).
void count_from_root(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::from_root(r, g, root, bytes_of(count, type));
  });
}

/// Every other member sends `count` elements to the root: MPI_Reduce, MPI_Gather, MPI_Gatherv and
/// their non-blocking forms (collective_volume.h).
void count_to_root(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_root(r, g, root, bytes_of(count, type));
  });
}

/// What MPI_Allreduce and MPI_Iallreduce send (collective_volume.h).
void count_allreduce(int count, MPI_Datatype type, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_all(r, g, bytes_of(count, type));
  });
}

/// What MPI_Scatterv and MPI_Iscatterv send (collective_volume.h).
void count_scatterv(const int sendcounts[], MPI_Datatype sendtype, int root,
                    MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    if (g.rank() == root) {
      collective::scatterv(r, g, root, counts_of(sendcounts, g), bytes_of(1, sendtype));
    }
  });
}

/// What MPI_Allgather, MPI_Iallgather, MPI_Alltoall and MPI_Ialltoall send (collective_volume.h).
void count_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_all(r, g, block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype));
  });
}

/// What MPI_Allgatherv and MPI_Iallgatherv send (collective_volume.h).
void count_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_all(r, g,
                       block_bytes(sendbuf, sendcount, sendtype,
                                   recvcounts[static_cast<std::size_t>(g.rank())], recvtype));
  });
}

/// What MPI_Alltoallv and MPI_Ialltoallv send (collective_volume.h).
void count_alltoallv(const void* sendbuf, const int sendcounts[], MPI_Datatype sendtype,
                     const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    collective::to_each_counted(r, g, counts_of(in_place ? recvcounts : sendcounts, g),
                                bytes_of(1, in_place ? recvtype : sendtype));
  });
}

/// What MPI_Alltoallw and MPI_Ialltoallw send (collective_volume.h).
void count_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Datatype sendtypes[],
                     const int recvcounts[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const int* counts = in_place ? recvcounts : sendcounts;
    const MPI_Datatype* types = in_place ? recvtypes : sendtypes;
    collective::to_each(r, g, [&](int m) { return bytes_of(counts[m], types[m]); });
  });
}

/// What MPI_Reduce_scatter and MPI_Ireduce_scatter send (collective_volume.h).
void count_reduce_scatter(const int recvcounts[], MPI_Datatype type, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_each_counted(r, g, counts_of(recvcounts, g), bytes_of(1, type));
  });
}

/// What MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block send (collective_volume.h).
void count_reduce_scatter_block(int recvcount, MPI_Datatype type, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_all(r, g, bytes_of(recvcount, type));
  });
}

/// What MPI_Scan, MPI_Iscan, MPI_Exscan and MPI_Iexscan send (collective_volume.h).
void count_scan(int count, MPI_Datatype type, MPI_Comm comm) noexcept {
  count_collective(comm, [&](TrafficRecorder& r, PeerGroup& g) {
    collective::to_higher(r, g, bytes_of(count, type));
  });
}

/// What MPI_Put, MPI_Rput, MPI_Accumulate and MPI_Raccumulate move.
void count_put(int origin_count, MPI_Datatype origin_type, int target_rank, MPI_Win win) noexcept {
  count_onesided(win, target_rank, [&](TrafficRecorder& r, const PeerGroup& g) {
    g.send(r, kOneSided, target_rank, bytes_of(origin_count, origin_type));
  });
}

/// What MPI_Get and MPI_Rget move.
void count_get(int origin_count, MPI_Datatype origin_type, int target_rank, MPI_Win win) noexcept {
  count_onesided(win, target_rank, [&](TrafficRecorder& r, const PeerGroup& g) {
    g.receive(r, target_rank, bytes_of(origin_count, origin_type));
  });
}

/// What MPI_Get_accumulate and MPI_Rget_accumulate move.
void count_get_accumulate(int origin_count, MPI_Datatype origin_type, int result_count,
                          MPI_Datatype result_type, int target_rank, MPI_Op op,
                          MPI_Win win) noexcept {
  count_onesided(win, target_rank, [&](TrafficRecorder& r, const PeerGroup& g) {
    if (op != MPI_NO_OP) g.send(r, kOneSided, target_rank, bytes_of(origin_count, origin_type));
    g.receive(r, target_rank, bytes_of(result_count, result_type));
  });
}

}  // namespace

// Every MPI_ entry point below is exported whatever mpi.h says: Open MPI's mpi.h marks its
// declarations visible, MPICH's does not, and under the library's hidden default they would be
// left out of the dynamic symbol table (preloaded, the library would record nothing).
#pragma GCC visibility push(default)
extern "C" {

// ---- Start, stop, phases --------------------------------------------------------------------

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    int provided = MPI_THREAD_SINGLE;
    static_cast<void>(PMPI_Query_thread(&provided));
    start_session(provided);
  }
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start_session(*provided);
  return rc;
}

int MPI_Finalize(void) {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  if (session != nullptr) session->finish();
  const int rc = PMPI_Finalize();
  // MPI may call the attribute callbacks (which use the session) until PMPI_Finalize returns.
  g_session.store(nullptr, std::memory_order_release);
  delete session;
  return rc;
}

int MPI_Pcontrol(const int level, ...) {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  if (session != nullptr) session->pcontrol(level);
  return PMPI_Pcontrol(level);
}

/// The counters the phase API (apps/reorder/treematch_phase.h) reads when the library is
/// loaded: what this process sent so far to each of the `world_size` world ranks, all classes
/// together. Found with dlsym, so the phase API needs no link to this library. Returns 0, or -1
/// outside MPI_Init..MPI_Finalize, for a world size that is not MPI_COMM_WORLD's, or out of memory.
__attribute__((visibility("default"))) int treematch_profile_snapshot(
    int world_size, unsigned long long bytes[], unsigned long long messages[]) {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  int size = 0;
  if (session == nullptr || PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
      size != world_size || bytes == nullptr || messages == nullptr) {
    return -1;
  }
  try {
    std::vector<treematch::profile::Volume> sent(static_cast<std::size_t>(size));
    session->snapshot(sent);
    for (std::size_t peer = 0; peer < sent.size(); ++peer) {
      bytes[peer] = sent[peer].bytes;
      messages[peer] = sent[peer].messages;
    }
  } catch (...) {
    return -1;
  }
  return 0;
}

// ---- Point-to-point -------------------------------------------------------------------------

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const int rc = PMPI_Send(buf, count, type, dest, tag, comm);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const int rc = PMPI_Bsend(buf, count, type, dest, tag, comm);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const int rc = PMPI_Ssend(buf, count, type, dest, tag, comm);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const int rc = PMPI_Rsend(buf, count, type, dest, tag, comm);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  const int rc = PMPI_Isend(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const int rc = PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const int rc = PMPI_Issend(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const int rc = PMPI_Irsend(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, status);
  if (rc == MPI_SUCCESS) count_send(comm, dest, sendcount, sendtype);
  return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  const int rc =
      PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  if (rc == MPI_SUCCESS) count_send(comm, dest, count, type);
  return rc;
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) remember_send(*request, comm, dest, count, type);
  return rc;
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Bsend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) remember_send(*request, comm, dest, count, type);
  return rc;
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Ssend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) remember_send(*request, comm, dest, count, type);
  return rc;
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Rsend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) remember_send(*request, comm, dest, count, type);
  return rc;
}

int MPI_Start(MPI_Request* request) {
  const MPI_Request before = *request;
  const int rc = PMPI_Start(request);
  ProfileSession* session = counting_session();
  if (rc == MPI_SUCCESS && session != nullptr) count_started(*session, before, *request);
  return rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  ProfileSession* session = counting_session();
  if (session == nullptr || count <= 0) return PMPI_Startall(count, requests);
  constexpr int kOnStack = 64;
  std::array<MPI_Request, kOnStack> stack_before{};
  std::vector<MPI_Request> heap_before;
  MPI_Request* before = stack_before.data();
  if (count > kOnStack) {
    try {
      heap_before.assign(requests, requests + count);
    } catch (...) {
      return PMPI_Startall(count, requests);  // out of memory: not counted
    }
    before = heap_before.data();
  } else {
    std::copy(requests, requests + count, before);
  }
  const int rc = PMPI_Startall(count, requests);
  if (rc == MPI_SUCCESS) {
    for (int i = 0; i < count; ++i) count_started(*session, before[i], requests[i]);
  }
  return rc;
}

int MPI_Request_free(MPI_Request* request) {
  ProfileSession* session = g_session.load(std::memory_order_acquire);
  if (session != nullptr && request != nullptr) session->forget_persistent(*request);
  return PMPI_Request_free(request);
}

// ---- Datatypes ------------------------------------------------------------------------------

int MPI_Type_free(MPI_Datatype* type) {
  if (g_cache_type_sizes) g_type_sizes.clear();  // its handle may come back as another type
  return PMPI_Type_free(type);
}

// ---- Collectives (model: apps/profile/collective_volume.h) ------------------------

int MPI_Barrier(MPI_Comm comm) {
  const int rc = PMPI_Barrier(comm);
  if (rc == MPI_SUCCESS) count_collective(comm, collective::barrier);
  return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Ibarrier(comm, request);
  if (rc == MPI_SUCCESS) count_collective(comm, collective::barrier);
  return rc;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int rc = PMPI_Bcast(buffer, count, type, root, comm);
  if (rc == MPI_SUCCESS) count_from_root(count, type, root, comm);
  return rc;
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  const int rc = PMPI_Ibcast(buffer, count, type, root, comm, request);
  if (rc == MPI_SUCCESS) count_from_root(count, type, root, comm);
  return rc;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (rc == MPI_SUCCESS) count_to_root(count, type, root, comm);
  return rc;
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  if (rc == MPI_SUCCESS) count_to_root(count, type, root, comm);
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (rc == MPI_SUCCESS) count_allreduce(count, type, comm);
  return rc;
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  if (rc == MPI_SUCCESS) count_allreduce(count, type, comm);
  return rc;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int rc =
      PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (rc == MPI_SUCCESS) count_to_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  const int rc =
      PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  if (rc == MPI_SUCCESS) count_to_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  const int rc =
      PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  if (rc == MPI_SUCCESS) count_to_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               root, comm, request);
  if (rc == MPI_SUCCESS) count_to_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int rc =
      PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (rc == MPI_SUCCESS) count_from_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  const int rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, request);
  if (rc == MPI_SUCCESS) count_from_root(sendcount, sendtype, root, comm);
  return rc;
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  const int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm);
  if (rc == MPI_SUCCESS) count_scatterv(sendcounts, sendtype, root, comm);
  return rc;
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                                root, comm, request);
  if (rc == MPI_SUCCESS) count_scatterv(sendcounts, sendtype, root, comm);
  return rc;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (rc == MPI_SUCCESS) count_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
  return rc;
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const int rc =
      PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (rc == MPI_SUCCESS) count_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
  return rc;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  const int rc =
      PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  if (rc == MPI_SUCCESS) count_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm);
  return rc;
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, comm, request);
  if (rc == MPI_SUCCESS) count_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm);
  return rc;
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (rc == MPI_SUCCESS) count_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
  return rc;
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const int rc =
      PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (rc == MPI_SUCCESS) count_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
  return rc;
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
  if (rc == MPI_SUCCESS) count_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm);
  return rc;
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, request);
  if (rc == MPI_SUCCESS) count_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm);
  return rc;
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm);
  if (rc == MPI_SUCCESS)
    count_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm);
  return rc;
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, request);
  if (rc == MPI_SUCCESS)
    count_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm);
  return rc;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  if (rc == MPI_SUCCESS) count_reduce_scatter(recvcounts, type, comm);
  return rc;
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
  if (rc == MPI_SUCCESS) count_reduce_scatter(recvcounts, type, comm);
  return rc;
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  const int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  if (rc == MPI_SUCCESS) count_reduce_scatter_block(recvcount, type, comm);
  return rc;
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
  if (rc == MPI_SUCCESS) count_reduce_scatter_block(recvcount, type, comm);
  return rc;
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  const int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  if (rc == MPI_SUCCESS) count_scan(count, type, comm);
  return rc;
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, request);
  if (rc == MPI_SUCCESS) count_scan(count, type, comm);
  return rc;
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  const int rc = PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
  if (rc == MPI_SUCCESS) count_scan(count, type, comm);
  return rc;
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, request);
  if (rc == MPI_SUCCESS) count_scan(count, type, comm);
  return rc;
}

// ---- One-sided ------------------------------------------------------------------------------

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  const int rc = PMPI_Put(origin_addr, origin_count, origin_type, target_rank, target_disp,
                          target_count, target_type, win);
  if (rc == MPI_SUCCESS) count_put(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win,
             MPI_Request* request) {
  const int rc = PMPI_Rput(origin_addr, origin_count, origin_type, target_rank, target_disp,
                           target_count, target_type, win, request);
  if (rc == MPI_SUCCESS) count_put(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  const int rc = PMPI_Get(origin_addr, origin_count, origin_type, target_rank, target_disp,
                          target_count, target_type, win);
  if (rc == MPI_SUCCESS) count_get(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win,
             MPI_Request* request) {
  const int rc = PMPI_Rget(origin_addr, origin_count, origin_type, target_rank, target_disp,
                           target_count, target_type, win, request);
  if (rc == MPI_SUCCESS) count_get(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  const int rc = PMPI_Accumulate(origin_addr, origin_count, origin_type, target_rank, target_disp,
                                 target_count, target_type, op, win);
  if (rc == MPI_SUCCESS) count_put(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_type, MPI_Op op, MPI_Win win, MPI_Request* request) {
  const int rc = PMPI_Raccumulate(origin_addr, origin_count, origin_type, target_rank, target_disp,
                                  target_count, target_type, op, win, request);
  if (rc == MPI_SUCCESS) count_put(origin_count, origin_type, target_rank, win);
  return rc;
}

int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                       void* result_addr, int result_count, MPI_Datatype result_type,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  const int rc = PMPI_Get_accumulate(origin_addr, origin_count, origin_type, result_addr,
                                     result_count, result_type, target_rank, target_disp,
                                     target_count, target_type, op, win);
  if (rc == MPI_SUCCESS)
    count_get_accumulate(origin_count, origin_type, result_count, result_type, target_rank, op,
                         win);
  return rc;
}

int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                        void* result_addr, int result_count, MPI_Datatype result_type,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_type, MPI_Op op, MPI_Win win, MPI_Request* request) {
  const int rc = PMPI_Rget_accumulate(origin_addr, origin_count, origin_type, result_addr,
                                      result_count, result_type, target_rank, target_disp,
                                      target_count, target_type, op, win, request);
  if (rc == MPI_SUCCESS)
    count_get_accumulate(origin_count, origin_type, result_count, result_type, target_rank, op,
                         win);
  return rc;
}

int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype type, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const int rc =
      PMPI_Fetch_and_op(origin_addr, result_addr, type, target_rank, target_disp, op, win);
  if (rc == MPI_SUCCESS) {
    count_onesided(win, target_rank, [&](TrafficRecorder& r, const PeerGroup& g) {
      if (op != MPI_NO_OP) g.send(r, kOneSided, target_rank, bytes_of(1, type));
      g.receive(r, target_rank, bytes_of(1, type));
    });
  }
  return rc;
}

int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                         MPI_Datatype type, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  const int rc = PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, type, target_rank,
                                       target_disp, win);
  if (rc == MPI_SUCCESS) {
    count_onesided(win, target_rank, [&](TrafficRecorder& r, const PeerGroup& g) {
      g.send(r, kOneSided, target_rank, bytes_of(2, type));  // the value and the comparand
      g.receive(r, target_rank, bytes_of(1, type));
    });
  }
  return rc;
}

}  // extern "C"
#pragma GCC visibility pop
