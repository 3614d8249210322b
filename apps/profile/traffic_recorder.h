// Per-process traffic counters of the profiling library: messages and bytes per destination, per
// class (point-to-point, collective, one-sided). Plain C++: the MPI side lives in apps/profile/.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "kernels/types.h"

namespace treematch::profile {

/// The kinds of traffic a profile keeps apart.
enum class TrafficClass : std::uint8_t {
  kPointToPoint = 0,  ///< MPI_Send and its variants; persistent sends counted at MPI_Start
  kCollective = 1,    ///< the logical per-peer volume of collectives (collective_volume.h)
  kOneSided = 2,      ///< RMA: Put/Accumulate origin -> target, Get target -> origin
};
inline constexpr std::size_t kTrafficClasses = 3;

/// Messages and bytes towards one peer.
struct Volume {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;

  friend bool operator==(const Volume&, const Volume&) = default;
};

/// Whether several threads may record at the same time (MPI_THREAD_MULTIPLE was granted).
enum class Concurrency : std::uint8_t {
  kSerialized,  ///< one thread at a time calls MPI (SINGLE, FUNNELED, SERIALIZED): plain adds
  kConcurrent,  ///< MULTIPLE: relaxed atomic adds (counters are read only at MPI_Finalize)
};

/// Adds `messages` messages carrying `bytes` bytes in total to `v`.
inline void add_volume(Volume& v, std::uint64_t bytes, std::uint64_t messages,
                       Concurrency concurrency) noexcept {
  if (concurrency == Concurrency::kConcurrent) {
    std::atomic_ref<std::uint64_t>(v.messages).fetch_add(messages, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(v.bytes).fetch_add(bytes, std::memory_order_relaxed);
  } else {
    v.messages += messages;
    v.bytes += bytes;
  }
}

/// Which count a matrix holds.
enum class VolumeMetric : std::uint8_t {
  kBytes,     ///< the "size" matrices
  kMessages,  ///< the "msg" matrices
};

/// The count `metric` names in `v`.
inline std::uint64_t count_of(const Volume& v, VolumeMetric metric) noexcept {
  return metric == VolumeMetric::kBytes ? v.bytes : v.messages;
}

/// One row (n = 1) of a `peers`-wide matrix as CSR: value_of(peer) for every peer where it is not
/// zero, by increasing column. Throws std::bad_alloc.
template <class ValueOfPeer>
kernels::Csr one_row(int peers, ValueOfPeer value_of) {
  kernels::Csr row;
  row.n = 1;
  for (int peer = 0; peer < peers; ++peer) {
    const std::uint64_t value = value_of(peer);
    if (value == 0) continue;
    row.targets.push_back(peer);
    row.weights.push_back(static_cast<kernels::Weight>(value));
  }
  row.offsets.push_back(static_cast<kernels::Offset>(row.targets.size()));
  return row;
}

/// This process's row of the communication matrices: dense counters indexed by world rank, one
/// block per class plus one for one-sided data flowing towards this rank (MPI_Get), which belongs
/// to the peer's row and is handed over at the end (take_incoming / add_from_peers).
///
/// Dense, not hashed: recording is one indexed add (a few ns, no probing, no allocation), and the
/// blocks come from calloc, so the pages of peers never addressed are never touched: resident
/// memory follows the peers actually used, up to 4 x 16 bytes x world size (4 MiB at 65536
/// ranks) for a process that talks to everyone.
class TrafficRecorder {
 public:
  /// Zero counters for `world_size` peers. Throws std::bad_alloc.
  TrafficRecorder(int world_size, Concurrency concurrency, bool counting);

  [[nodiscard]] int world_size() const noexcept { return world_size_; }
  [[nodiscard]] Concurrency concurrency() const noexcept { return concurrency_; }

  /// Whether calls are being counted (MPI_Pcontrol). The flag is atomic so that a thread may
  /// switch it while others record; a call in flight may still be counted.
  [[nodiscard]] bool counting() const noexcept { return counting_.load(std::memory_order_relaxed); }
  void set_counting(bool on) noexcept { counting_.store(on, std::memory_order_relaxed); }

  /// `messages` messages of `bytes` bytes in total sent to world rank `peer` (0 <= peer < size).
  void record(TrafficClass traffic, int peer, std::uint64_t bytes,
              std::uint64_t messages = 1) noexcept {
    add_volume(counters(traffic, peer), bytes, messages, concurrency_);
  }

  /// The counters of `traffic` towards world rank `peer`, for a caller that looks them up before
  /// an MPI call and adds to them (add_volume with concurrency()) once the call succeeded.
  [[nodiscard]] Volume& counters(TrafficClass traffic, int peer) noexcept {
    return block(static_cast<std::size_t>(traffic))[peer];
  }

  /// One-sided data that world rank `peer` sends to this process (the reply of a Get).
  void record_incoming(int peer, std::uint64_t bytes, std::uint64_t messages = 1) noexcept {
    add_volume(block(kTrafficClasses)[peer], bytes, messages, concurrency_);
    if (!has_incoming_.load(std::memory_order_relaxed))
      has_incoming_.store(true, std::memory_order_relaxed);
  }

  /// The counters of one class, indexed by world rank.
  [[nodiscard]] std::span<const Volume> row(TrafficClass traffic) const noexcept;

  /// Whether record_incoming was ever called.
  [[nodiscard]] bool has_incoming() const noexcept {
    return has_incoming_.load(std::memory_order_relaxed);
  }

  /// The incoming one-sided counters, indexed by the sending world rank.
  [[nodiscard]] std::span<const Volume> incoming() const noexcept;

  /// Adds `from_peers[j]` (what world rank j saw coming from this process) to the one-sided row.
  void add_from_peers(std::span<const Volume> from_peers) noexcept;

  /// This process's row summed over `classes`, as one CSR row (n = 1) of the world-size matrix:
  /// non-zero entries only, by increasing column. Throws std::bad_alloc.
  [[nodiscard]] kernels::Csr matrix_row(std::span<const TrafficClass> classes,
                                        VolumeMetric metric) const;

 private:
  struct FreeDeleter {
    void operator()(Volume* blocks) const noexcept { std::free(blocks); }
  };

  [[nodiscard]] Volume* block(std::size_t b) const noexcept {
    return blocks_.get() + b * static_cast<std::size_t>(world_size_);
  }

  int world_size_;
  Concurrency concurrency_;
  std::atomic<bool> counting_;
  std::atomic<bool> has_incoming_{false};
  std::unique_ptr<Volume[], FreeDeleter> blocks_;  ///< (classes + incoming) x world size
};

/// A communicator (or the group of a window) seen from this process: the world rank of every
/// member, and the collective volume this process owes "every other member" or "every member of
/// higher rank", kept as two sums so that an Allreduce or a Scan costs O(1) whatever the size.
/// flush() spreads them over the members (when the communicator is freed, or at MPI_Finalize).
class PeerGroup {
 public:
  /// `world_ranks[m]`: the world rank of member m, or -1 for a process outside MPI_COMM_WORLD
  /// (spawned, connected): its traffic is not recorded. `rank`: this process's member index, -1
  /// when the members are the remote group of an intercommunicator.
  PeerGroup(std::vector<int> world_ranks, int rank);

  [[nodiscard]] int size() const noexcept { return static_cast<int>(world_ranks_.size()); }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// World rank of member `member` (0 <= member < size), -1 when outside MPI_COMM_WORLD.
  [[nodiscard]] int world_rank(int member) const noexcept {
    return world_ranks_[static_cast<std::size_t>(member)];
  }

  /// One message of `bytes` to member `member` (to itself too: the diagonal, which mappers ignore).
  void send(TrafficRecorder& recorder, TrafficClass traffic, int member, std::uint64_t bytes,
            std::uint64_t messages = 1) const noexcept {
    const int peer = world_rank(member);
    if (peer >= 0) recorder.record(traffic, peer, bytes, messages);
  }
  /// `bytes` coming back from member `member` to this process (one-sided replies).
  void receive(TrafficRecorder& recorder, int member, std::uint64_t bytes) const noexcept {
    const int peer = world_rank(member);
    if (peer >= 0) recorder.record_incoming(peer, bytes);
  }

  /// One collective message of `bytes` to every other member (deferred, O(1)).
  void to_all_others(const TrafficRecorder& recorder, std::uint64_t bytes) noexcept {
    add_volume(to_others_, bytes, 1, recorder.concurrency());
  }
  /// One collective message of `bytes` to every member of higher rank (deferred, O(1)).
  void to_higher(const TrafficRecorder& recorder, std::uint64_t bytes) noexcept {
    add_volume(to_higher_, bytes, 1, recorder.concurrency());
  }

  /// Records the deferred volumes as collective traffic, member by member, and clears them.
  void flush(TrafficRecorder& recorder) noexcept;

  /// Adds the deferred volumes, spread as flush() would spread them, to `by_world_rank` (one entry
  /// per world rank) without recording or clearing them: a snapshot taken while the communicator
  /// lives.
  void add_deferred(std::span<Volume> by_world_rank) const noexcept;

 private:
  std::vector<int> world_ranks_;
  int rank_;
  Volume to_others_;
  Volume to_higher_;
};

}  // namespace treematch::profile
