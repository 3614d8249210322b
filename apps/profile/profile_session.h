// The profiling library's state in one process: the counters, the world ranks of communicators and
// windows, persistent sends, MPI_Pcontrol, and the profile written at MPI_Finalize.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "apps/profile/pcontrol_phases.h"
#include "apps/profile/traffic_recorder.h"

namespace treematch::profile {

/// What the environment asks for, read at MPI_Init.
struct ProfileOptions {
  /// TREEMATCH_PROFILE_OUT: the HDF5 file written at MPI_Finalize (relative to each rank's
  /// working directory; all ranks must see the same file system).
  std::string output = "treematch-profile.h5";
  /// TREEMATCH_PROFILE_START=off (or 0, no, false): count nothing until MPI_Pcontrol(1).
  bool counting = true;

  /// Reads both variables; an unknown TREEMATCH_PROFILE_START value keeps counting on and is
  /// reported on stderr by rank 0.
  static ProfileOptions from_environment(int world_rank);
};

/// A send prepared by MPI_Send_init (or Bsend/Ssend/Rsend_init), counted at each MPI_Start.
struct PersistentSend {
  int peer = -1;  ///< world rank
  std::uint64_t bytes = 0;
};

/// One per process, created right after PMPI_Init* and destroyed right after PMPI_Finalize.
/// The methods the wrappers call are noexcept: the application's calls must never fail because of
/// the profile (allocation failures leave the call uncounted).
class ProfileSession {
 public:
  /// `thread_level`: what MPI granted; MPI_THREAD_MULTIPLE makes the counters atomic. Throws
  /// std::runtime_error naming a failed MPI call, or std::bad_alloc.
  ProfileSession(const ProfileOptions& options, int thread_level);
  /// Frees memory only (MPI is finalized by then).
  ~ProfileSession();
  ProfileSession(const ProfileSession&) = delete;
  ProfileSession& operator=(const ProfileSession&) = delete;

  [[nodiscard]] TrafficRecorder& recorder() noexcept { return recorder_; }
  [[nodiscard]] bool counting() const noexcept { return recorder_.counting(); }

  /// The members of `comm` as world ranks, for point-to-point calls (the remote group of an
  /// intercommunicator); nullptr when they cannot be found. MPI_COMM_WORLD costs a comparison,
  /// the last other communicator used by this thread a thread-local lookup, any other an MPI
  /// attribute lookup (the table is built once, at the first call on the communicator, and
  /// dropped when MPI_Comm_free deletes the attribute).
  [[nodiscard]] PeerGroup* peers(MPI_Comm comm) noexcept {
    if (comm == MPI_COMM_WORLD) return &world_;
    return other_peers(comm);
  }
  /// The same for collectives: nullptr for an intercommunicator (not counted).
  [[nodiscard]] PeerGroup* collective_peers(MPI_Comm comm) noexcept {
    PeerGroup* group = peers(comm);
    return group != nullptr && group->rank() >= 0 ? group : nullptr;
  }
  /// The members of the group of `win` as world ranks; nullptr when they cannot be found.
  [[nodiscard]] PeerGroup* window_peers(MPI_Win win) noexcept;

  /// Remembers the send prepared in `request` (whether counting or not: it may start later).
  void remember_persistent(MPI_Request request, const PersistentSend& send) noexcept;
  /// The send behind `request`, when it is a persistent send.
  [[nodiscard]] bool find_persistent(MPI_Request request, PersistentSend& send) noexcept;
  /// Forgets `request` (MPI_Request_free).
  void forget_persistent(MPI_Request request) noexcept;

  /// MPI_Pcontrol(level): 0 stops counting, a positive level (re)starts it and makes it the
  /// current phase (pcontrol_phases.h); negative levels are ignored (the MPI standard leaves them
  /// to the tool). No effect once finish() ran.
  void pcontrol(int level) noexcept;

  /// What this process sent so far to each world rank, all classes together (the deferred
  /// collective volumes of the communicators still alive included): `by_world_rank` has one entry
  /// per world rank. For the phase API (treematch_phase.h), which subtracts two snapshots.
  void snapshot(std::span<Volume> by_world_rank) noexcept;

  /// Collective over MPI_COMM_WORLD, before PMPI_Finalize: ends the current phase, stops
  /// counting, spreads the deferred
  /// collective volumes, hands one-sided replies (Get) to the rows of their senders, and writes
  /// the profile, then detaches the session from MPI (detach_all). A failure prints one line on
  /// stderr and is otherwise ignored.
  void finish() noexcept;

  /// Called by MPI when a communicator or window carrying a peer group is freed: the group's
  /// deferred volumes are recorded (unless finish() ran) and the group is deleted.
  void retire(PeerGroup* group) noexcept;

 private:
  PeerGroup* other_peers(MPI_Comm comm) noexcept;
  PeerGroup* attach_comm_group(MPI_Comm comm);
  PeerGroup* attach_win_group(MPI_Win win);
  /// The world ranks of the members of `group` (freed here), `rank` being this process's index.
  std::unique_ptr<PeerGroup> translate(MPI_Group group, int rank) const;
  /// What a peer group is attached to (by an attribute): a communicator or a window.
  struct Holder {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;
  };
  PeerGroup* adopt(std::unique_ptr<PeerGroup> group, Holder holder);
  void disown(PeerGroup* group) noexcept;
  void exchange_incoming();
  /// Ends the current MPI_Pcontrol phase and begins `level`'s (none for 0).
  void change_phase(int level) noexcept;
  /// Before PMPI_Finalize: removes the attribute from every communicator and window still alive
  /// (MPI retires their groups), then frees the keyvals and the world group, so that the session
  /// leaves nothing behind in MPI.
  void detach_all() noexcept;

  ProfileOptions options_;
  int world_rank_ = 0;
  int world_size_ = 1;
  TrafficRecorder recorder_;
  PeerGroup world_;
  MPI_Group world_group_ = MPI_GROUP_NULL;
  int comm_keyval_ = MPI_KEYVAL_INVALID;
  int win_keyval_ = MPI_KEYVAL_INVALID;
  /// Bumped whenever a peer group is deleted, so that a thread's cached group is never stale.
  std::atomic<std::uint64_t> epoch_{1};
  std::mutex create_mutex_;  ///< attaching a group to a communicator or window (never in callbacks)
  std::mutex
      groups_mutex_;  ///< live_groups_ and finished_ (taken in callbacks; no MPI call inside)
  std::unordered_map<PeerGroup*, Holder> live_groups_;
  std::atomic<bool> finished_{false};  ///< finish() ran: Pcontrol and retire stop recording
  std::mutex phases_mutex_;            ///< phases_ (MPI_Pcontrol from several threads)
  PcontrolPhases phases_;
  std::mutex persistent_mutex_;  ///< taken only under MPI_THREAD_MULTIPLE
  std::unordered_map<MPI_Request, PersistentSend> persistent_;
};

}  // namespace treematch::profile
