// The profiling library's state in one process (see profile_session.h).
#include "apps/profile/profile_session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/profile/profile_writer.h"
#include "io/matrix_hdf5_parallel.h"

namespace treematch::profile {
namespace {

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

/// The last communicator or window a thread looked up, valid while the session's epoch is the
/// same (a freed handle may be reused by a new communicator). Zero-initialised: epoch 0 never
/// matches.
struct CachedComm {
  MPI_Comm comm;
  PeerGroup* group;
  std::uint64_t epoch;
};
struct CachedWin {
  MPI_Win win;
  PeerGroup* group;
  std::uint64_t epoch;
};
thread_local CachedComm t_last_comm{};
thread_local CachedWin t_last_win{};

int delete_comm_group(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* session) {
  static_cast<ProfileSession*>(session)->retire(static_cast<PeerGroup*>(value));
  return MPI_SUCCESS;
}

int delete_win_group(MPI_Win /*win*/, int /*keyval*/, void* value, void* session) {
  static_cast<ProfileSession*>(session)->retire(static_cast<PeerGroup*>(value));
  return MPI_SUCCESS;
}

std::vector<int> identity(int n) {
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

}  // namespace

ProfileOptions ProfileOptions::from_environment(int world_rank) {
  ProfileOptions options;
  const char* out = std::getenv("TREEMATCH_PROFILE_OUT");
  if (out != nullptr && *out != '\0') options.output = out;
  const char* start = std::getenv("TREEMATCH_PROFILE_START");
  if (start != nullptr && *start != '\0') {
    const std::string value = start;
    if (value == "off" || value == "0" || value == "no" || value == "false") {
      options.counting = false;
    } else if (!(value == "on" || value == "1" || value == "yes" || value == "true") &&
               world_rank == 0) {
      std::fprintf(stderr,
                   "treematch-profile: TREEMATCH_PROFILE_START=%s is neither on nor off; "
                   "counting from MPI_Init\n",
                   start);
    }
  }
  return options;
}

ProfileSession::ProfileSession(const ProfileOptions& options, int thread_level)
    : options_(options),
      world_rank_([] {
        int rank = 0;
        check(PMPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
        return rank;
      }()),
      world_size_([] {
        int size = 0;
        check(PMPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
        return size;
      }()),
      recorder_(
          world_size_,
          thread_level == MPI_THREAD_MULTIPLE ? Concurrency::kConcurrent : Concurrency::kSerialized,
          options.counting),
      world_(identity(world_size_), world_rank_),
      phases_(world_size_, options.counting ? 1 : 0) {
  check(PMPI_Comm_group(MPI_COMM_WORLD, &world_group_), "MPI_Comm_group");
  check(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_comm_group, &comm_keyval_, this),
        "MPI_Comm_create_keyval");
  check(PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_win_group, &win_keyval_, this),
        "MPI_Win_create_keyval");
}

ProfileSession::~ProfileSession() {
  // Groups detach_all() could not detach (finish() never ran, or memory ran out).
  for (const auto& entry : live_groups_) delete entry.first;
}

std::unique_ptr<PeerGroup> ProfileSession::translate(MPI_Group group, int rank) const {
  // Frees `group` whatever happens.
  struct GroupFree {
    MPI_Group* group;
    ~GroupFree() { PMPI_Group_free(group); }
  } release{&group};
  int size = 0;
  check(PMPI_Group_size(group, &size), "MPI_Group_size");
  const std::vector<int> members = identity(size);
  std::vector<int> world(static_cast<std::size_t>(size));
  check(PMPI_Group_translate_ranks(group, size, members.data(), world_group_, world.data()),
        "MPI_Group_translate_ranks");
  for (int& w : world) {
    if (w == MPI_UNDEFINED) w = -1;  // a process outside MPI_COMM_WORLD
  }
  return std::make_unique<PeerGroup>(std::move(world), rank);
}

PeerGroup* ProfileSession::other_peers(MPI_Comm comm) noexcept {
  const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
  CachedComm& cached = t_last_comm;
  if (cached.epoch == epoch && cached.comm == comm) return cached.group;
  try {
    void* value = nullptr;
    int found = 0;
    check(PMPI_Comm_get_attr(comm, comm_keyval_, &value, &found), "MPI_Comm_get_attr");
    PeerGroup* group = found != 0 ? static_cast<PeerGroup*>(value) : attach_comm_group(comm);
    if (group != nullptr) cached = CachedComm{comm, group, epoch};
    return group;
  } catch (...) {
    return nullptr;
  }
}

PeerGroup* ProfileSession::attach_comm_group(MPI_Comm comm) {
  // create_mutex_ keeps two threads from attaching a group to the same communicator; it is never
  // taken inside an MPI callback, so holding it across MPI calls cannot deadlock with MPI's locks.
  const std::lock_guard<std::mutex> lock(create_mutex_);
  void* value = nullptr;
  int found = 0;
  check(PMPI_Comm_get_attr(comm, comm_keyval_, &value, &found), "MPI_Comm_get_attr");
  if (found != 0) return static_cast<PeerGroup*>(value);
  int inter = 0;
  check(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  MPI_Group group = MPI_GROUP_NULL;
  int rank = -1;
  if (inter != 0) {
    check(PMPI_Comm_remote_group(comm, &group), "MPI_Comm_remote_group");
  } else {
    check(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check(PMPI_Comm_group(comm, &group), "MPI_Comm_group");
  }
  PeerGroup* peers = adopt(translate(group, rank), Holder{comm, MPI_WIN_NULL});
  if (PMPI_Comm_set_attr(comm, comm_keyval_, peers) != MPI_SUCCESS) {
    disown(peers);
    return nullptr;
  }
  return peers;
}

PeerGroup* ProfileSession::window_peers(MPI_Win win) noexcept {
  const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
  CachedWin& cached = t_last_win;
  if (cached.epoch == epoch && cached.win == win) return cached.group;
  try {
    void* value = nullptr;
    int found = 0;
    check(PMPI_Win_get_attr(win, win_keyval_, &value, &found), "MPI_Win_get_attr");
    PeerGroup* group = found != 0 ? static_cast<PeerGroup*>(value) : attach_win_group(win);
    if (group != nullptr) cached = CachedWin{win, group, epoch};
    return group;
  } catch (...) {
    return nullptr;
  }
}

PeerGroup* ProfileSession::attach_win_group(MPI_Win win) {
  const std::lock_guard<std::mutex> lock(create_mutex_);
  void* value = nullptr;
  int found = 0;
  check(PMPI_Win_get_attr(win, win_keyval_, &value, &found), "MPI_Win_get_attr");
  if (found != 0) return static_cast<PeerGroup*>(value);
  MPI_Group group = MPI_GROUP_NULL;
  check(PMPI_Win_get_group(win, &group), "MPI_Win_get_group");
  int rank = MPI_UNDEFINED;
  if (PMPI_Group_rank(group, &rank) != MPI_SUCCESS) {
    PMPI_Group_free(&group);
    throw std::runtime_error("MPI_Group_rank failed");
  }
  PeerGroup* peers =
      adopt(translate(group, rank == MPI_UNDEFINED ? -1 : rank), Holder{MPI_COMM_NULL, win});
  if (PMPI_Win_set_attr(win, win_keyval_, peers) != MPI_SUCCESS) {
    disown(peers);
    return nullptr;
  }
  return peers;
}

PeerGroup* ProfileSession::adopt(std::unique_ptr<PeerGroup> group, Holder holder) {
  const std::lock_guard<std::mutex> lock(groups_mutex_);
  live_groups_.emplace(group.get(), holder);
  return group.release();
}

void ProfileSession::disown(PeerGroup* group) noexcept {
  {
    const std::lock_guard<std::mutex> lock(groups_mutex_);
    live_groups_.erase(group);
  }
  delete group;
}

void ProfileSession::retire(PeerGroup* group) noexcept {
  const std::lock_guard<std::mutex> lock(groups_mutex_);
  if (!finished_) group->flush(recorder_);
  live_groups_.erase(group);
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  delete group;
}

void ProfileSession::remember_persistent(MPI_Request request, const PersistentSend& send) noexcept {
  try {
    std::unique_lock<std::mutex> lock(persistent_mutex_, std::defer_lock);
    if (recorder_.concurrency() == Concurrency::kConcurrent) lock.lock();
    persistent_[request] = send;
  } catch (...) {
    // Out of memory: this request's sends go uncounted.
  }
}

bool ProfileSession::find_persistent(MPI_Request request, PersistentSend& send) noexcept {
  std::unique_lock<std::mutex> lock(persistent_mutex_, std::defer_lock);
  if (recorder_.concurrency() == Concurrency::kConcurrent) lock.lock();
  const auto it = persistent_.find(request);
  if (it == persistent_.end()) return false;
  send = it->second;
  return true;
}

void ProfileSession::forget_persistent(MPI_Request request) noexcept {
  std::unique_lock<std::mutex> lock(persistent_mutex_, std::defer_lock);
  if (recorder_.concurrency() == Concurrency::kConcurrent) lock.lock();
  persistent_.erase(request);
}

void ProfileSession::pcontrol(int level) noexcept {
  if (finished_ || level < 0) return;
  change_phase(level);
  recorder_.set_counting(level > 0);
}

void ProfileSession::change_phase(int level) noexcept {
  const std::lock_guard<std::mutex> lock(phases_mutex_);
  if (phases_.level() == level) return;  // e.g. MPI_Pcontrol(1) at every step: no snapshot
  try {
    std::vector<Volume> counters(static_cast<std::size_t>(world_size_));
    snapshot(counters);
    phases_.change(level, counters);
  } catch (const std::bad_alloc&) {
    // The phase goes on as before; counting still follows the level.
  }
}

void ProfileSession::exchange_incoming() {
  // What this process fetched from j (MPI_Get...) is j's traffic: send it to j, all at once.
  int mine = recorder_.has_incoming() ? 1 : 0;
  int any = 0;
  check(PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  if (any == 0) return;
  static_assert(sizeof(Volume) == 2 * sizeof(std::uint64_t), "Volume is two uint64_t");
  const std::span<const Volume> out = recorder_.incoming();
  std::vector<Volume> in(static_cast<std::size_t>(world_size_));
  check(PMPI_Alltoall(out.data(), 2, MPI_UINT64_T, in.data(), 2, MPI_UINT64_T, MPI_COMM_WORLD),
        "MPI_Alltoall");
  recorder_.add_from_peers(in);
}

void ProfileSession::snapshot(std::span<Volume> by_world_rank) noexcept {
  std::fill(by_world_rank.begin(), by_world_rank.end(), Volume{});
  const std::size_t peers = std::min(by_world_rank.size(), static_cast<std::size_t>(world_size_));
  for (const TrafficClass traffic :
       {TrafficClass::kPointToPoint, TrafficClass::kCollective, TrafficClass::kOneSided}) {
    const std::span<const Volume> row = recorder_.row(traffic);
    for (std::size_t peer = 0; peer < peers; ++peer) {
      by_world_rank[peer].messages += row[peer].messages;
      by_world_rank[peer].bytes += row[peer].bytes;
    }
  }
  const std::lock_guard<std::mutex> lock(groups_mutex_);
  world_.add_deferred(by_world_rank);
  for (const auto& entry : live_groups_) entry.first->add_deferred(by_world_rank);
}

void ProfileSession::finish() noexcept {
  change_phase(0);
  recorder_.set_counting(false);
  {
    const std::lock_guard<std::mutex> lock(groups_mutex_);
    finished_ = true;
    world_.flush(recorder_);
    for (const auto& entry : live_groups_) entry.first->flush(recorder_);
  }
  try {
    exchange_incoming();
    write_profile(MPI_COMM_WORLD, options_.output, recorder_, phases_);
  } catch (const io::Hdf5PeerError&) {
    // Another rank failed and printed why.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "treematch-profile: no profile written to %s: %s\n",
                 options_.output.c_str(), e.what());
  }
  detach_all();
}

void ProfileSession::detach_all() noexcept {
  // MPI_Finalize frees neither keyvals nor groups, and a keyval lives on while a communicator the
  // application never freed still carries its attribute. Copied first: each deletion calls
  // retire(), which takes groups_mutex_ and erases the group.
  std::vector<Holder> holders;
  try {
    const std::lock_guard<std::mutex> lock(groups_mutex_);
    holders.reserve(live_groups_.size());
    for (const auto& entry : live_groups_) holders.push_back(entry.second);
  } catch (...) {
    // Out of memory: the groups stay attached and are deleted with the session.
  }
  for (const Holder& holder : holders) {
    if (holder.comm != MPI_COMM_NULL) {
      static_cast<void>(PMPI_Comm_delete_attr(holder.comm, comm_keyval_));
    } else {
      static_cast<void>(PMPI_Win_delete_attr(holder.win, win_keyval_));
    }
  }
  static_cast<void>(PMPI_Comm_free_keyval(&comm_keyval_));
  static_cast<void>(PMPI_Win_free_keyval(&win_keyval_));
  static_cast<void>(PMPI_Group_free(&world_group_));
}

}  // namespace treematch::profile
