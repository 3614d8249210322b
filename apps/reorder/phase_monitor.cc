// Phase counters: Open MPI's monitoring through MPI_T, or libtreematch-profile.so's snapshot.
#include "apps/reorder/phase_monitor.h"

#include <dlfcn.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "src/mpi/mpi_collectives.h"
#include "src/mpi/mpi_environment.h"

namespace treematch::distributed {
namespace {

constexpr const char* kBytesVariable = "pml_monitoring_messages_size";
constexpr const char* kMessagesVariable = "pml_monitoring_messages_count";

/// Open MPI's monitoring as seed 003 reads it: one MPI_T session, a handle per variable bound to
/// the communicator (one value per rank), started at once.
class MpiToolCounters final : public SentCounters {
 public:
  /// Throws std::runtime_error naming what is missing; everything taken so far is released.
  explicit MpiToolCounters(MPI_Comm comm) : comm_(comm), size_(size_of(comm)) {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_T_init_thread failed");
    initialized_ = true;
    int bytes_index = 0;
    int messages_index = 0;
    if (MPI_T_pvar_get_index(kBytesVariable, MPI_T_PVAR_CLASS_SIZE, &bytes_index) != MPI_SUCCESS ||
        MPI_T_pvar_get_index(kMessagesVariable, MPI_T_PVAR_CLASS_SIZE, &messages_index) !=
            MPI_SUCCESS) {
      // Open MPI 4.1 loses them once its monitoring PML is interposed (open-mpi/ompi#9260),
      // while the collective component's variables stay: say so when that is the case.
      int collective_index = 0;
      const bool monitoring_loaded =
          MPI_T_pvar_get_index("coll_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE,
                               &collective_index) == MPI_SUCCESS;
      release();
      throw std::runtime_error(std::string("no MPI_T variable ") + kBytesVariable +
                               (monitoring_loaded ? " although the monitoring is loaded "
                                                    "(Open MPI 4.1 drops it: open-mpi/ompi#9260)"
                                                  : " (mpirun --mca pml_monitoring_enable 1)"));
    }
    if (MPI_T_pvar_session_create(&session_) != MPI_SUCCESS) {
      release();
      throw std::runtime_error("MPI_T_pvar_session_create failed");
    }
    if (!bind(bytes_index, bytes_handle_) || !bind(messages_index, messages_handle_)) {
      release();
      throw std::runtime_error(std::string("cannot bind ") + kBytesVariable +
                               " to the communicator");
    }
  }
  ~MpiToolCounters() override { release(); }
  MpiToolCounters(const MpiToolCounters&) = delete;
  MpiToolCounters& operator=(const MpiToolCounters&) = delete;

  [[nodiscard]] PhaseSource source() const override { return PhaseSource::kMpiTool; }

  void read(std::vector<std::uint64_t>& bytes, std::vector<std::uint64_t>& messages) override {
    std::vector<unsigned long long> values(static_cast<std::size_t>(size_));
    if (MPI_T_pvar_read(session_, bytes_handle_, values.data()) != MPI_SUCCESS)
      throw std::runtime_error(std::string("MPI_T_pvar_read of ") + kBytesVariable + " failed");
    bytes.assign(values.begin(), values.end());
    if (MPI_T_pvar_read(session_, messages_handle_, values.data()) != MPI_SUCCESS)
      throw std::runtime_error(std::string("MPI_T_pvar_read of ") + kMessagesVariable + " failed");
    messages.assign(values.begin(), values.end());
  }

 private:
  /// A handle of variable `index` bound to the communicator, started unless continuous.
  bool bind(int index, MPI_T_pvar_handle& handle) {
    int count = 0;
    if (MPI_T_pvar_handle_alloc(session_, index, &comm_, &handle, &count) != MPI_SUCCESS) {
      handle = MPI_T_PVAR_HANDLE_NULL;
      return false;
    }
    if (count != size_) return false;
    const int started = MPI_T_pvar_start(session_, handle);
    return started == MPI_SUCCESS || started == MPI_T_ERR_PVAR_NO_STARTSTOP;
  }

  void release() noexcept {
    for (MPI_T_pvar_handle* handle : {&bytes_handle_, &messages_handle_}) {
      if (*handle == MPI_T_PVAR_HANDLE_NULL) continue;
      MPI_T_pvar_stop(session_, *handle);
      MPI_T_pvar_handle_free(session_, handle);
      *handle = MPI_T_PVAR_HANDLE_NULL;
    }
    if (session_ != MPI_T_PVAR_SESSION_NULL) MPI_T_pvar_session_free(&session_);
    session_ = MPI_T_PVAR_SESSION_NULL;
    if (initialized_) MPI_T_finalize();
    initialized_ = false;
  }

  MPI_Comm comm_;
  int size_;  ///< the communicator's: one value per rank
  bool initialized_ = false;
  MPI_T_pvar_session session_ = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle bytes_handle_ = MPI_T_PVAR_HANDLE_NULL;
  MPI_T_pvar_handle messages_handle_ = MPI_T_PVAR_HANDLE_NULL;
};

/// libtreematch-profile.so's counters (indexed by world rank), seen through the communicator.
class ProfileCounters final : public SentCounters {
 public:
  using Snapshot = int (*)(int, unsigned long long[], unsigned long long[]);

  ProfileCounters(MPI_Comm comm, Snapshot snapshot)
      : snapshot_(snapshot), world_size_(size_of(MPI_COMM_WORLD)) {
    const int n = size_of(comm);
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Group world = MPI_GROUP_NULL;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> members(static_cast<std::size_t>(n));
    std::iota(members.begin(), members.end(), 0);
    world_rank_.assign(static_cast<std::size_t>(n), MPI_UNDEFINED);
    MPI_Group_translate_ranks(group, n, members.data(), world, world_rank_.data());
    MPI_Group_free(&group);
    MPI_Group_free(&world);
  }

  [[nodiscard]] PhaseSource source() const override { return PhaseSource::kProfile; }

  void read(std::vector<std::uint64_t>& bytes, std::vector<std::uint64_t>& messages) override {
    std::vector<unsigned long long> world_bytes(static_cast<std::size_t>(world_size_));
    std::vector<unsigned long long> world_messages(static_cast<std::size_t>(world_size_));
    if (snapshot_(world_size_, world_bytes.data(), world_messages.data()) != 0)
      throw std::runtime_error("treematch_profile_snapshot failed (outside MPI_Init..Finalize?)");
    bytes.assign(world_rank_.size(), 0);
    messages.assign(world_rank_.size(), 0);
    for (std::size_t r = 0; r < world_rank_.size(); ++r) {
      const int peer = world_rank_[r];
      if (peer == MPI_UNDEFINED || peer < 0 || peer >= world_size_) continue;
      bytes[r] = world_bytes[static_cast<std::size_t>(peer)];
      messages[r] = world_messages[static_cast<std::size_t>(peer)];
    }
  }

 private:
  Snapshot snapshot_;
  int world_size_ = 0;
  std::vector<int> world_rank_;  ///< per rank of the communicator; MPI_UNDEFINED outside world
};

}  // namespace

const char* to_string(PhaseSource source) {
  switch (source) {
    case PhaseSource::kMpiTool:
      return "mpi_t:pml_monitoring";
    case PhaseSource::kProfile:
      return "treematch-profile";
    case PhaseSource::kNone:
      break;
  }
  return "none";
}

std::unique_ptr<SentCounters> open_sent_counters(MPI_Comm comm, std::string& why_not) {
  try {
    return std::make_unique<MpiToolCounters>(comm);
  } catch (const std::runtime_error& error) {
    why_not = std::string("Open MPI's monitoring: ") + error.what();
  }
  void* symbol = dlsym(RTLD_DEFAULT, "treematch_profile_snapshot");
  if (symbol != nullptr) {
    return std::make_unique<ProfileCounters>(comm,
                                             reinterpret_cast<ProfileCounters::Snapshot>(symbol));
  }
  why_not += "; libtreematch-profile.so is not loaded (LD_PRELOAD)";
  return nullptr;
}

Phase::Phase(MPI_Comm comm) {
  agree_on_problem(comm, "");  // an intercommunicator fails here, on every rank
  MPI_Comm own = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &own) != MPI_SUCCESS)
    throw ReorderError("MPI_Comm_dup failed", MPI_ERR_OTHER, true);
  comm_ = Communicator(own);
  std::string why_not;
  counters_ = open_sent_counters(comm, why_not);
  const int mine = static_cast<int>(counters_ ? counters_->source() : PhaseSource::kNone);
  int lowest = 0;
  int highest = 0;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, own);
  MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, own);
  int rank = 0;
  MPI_Comm_rank(own, &rank);
  if (lowest == static_cast<int>(PhaseSource::kNone)) {
    const std::string what = mine == lowest ? why_not : "another rank has no counters";
    throw ReorderError("no counters to measure a phase with: " + what,
                       MPI_ERR_UNSUPPORTED_OPERATION, rank == 0);
  }
  if (lowest != highest) {
    throw ReorderError(
        "the ranks read different counters (MPI_T on some, the profiling "
        "library on others)",
        MPI_ERR_UNSUPPORTED_OPERATION, rank == 0);
  }
  source_ = counters_->source();
  std::string problem;
  try {
    counters_->read(bytes_, messages_);
  } catch (const std::exception& error) {
    problem = error.what();
  }
  agree_on_problem(own, problem, MPI_ERR_OTHER);
  // Read again: the agreement's own messages are not the application's.
  try {
    counters_->read(bytes_, messages_);
  } catch (const std::exception& error) {
    broken_ = error.what();
  }
}

void Phase::stop() {
  if (stopped_) throw std::logic_error("the phase is already stopped");
  if (!broken_.empty()) throw std::runtime_error(broken_);
  std::vector<std::uint64_t> bytes;
  std::vector<std::uint64_t> messages;
  counters_->read(bytes, messages);
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    bytes_[r] = bytes[r] - std::min(bytes[r], bytes_[r]);
    messages_[r] = messages[r] - std::min(messages[r], messages_[r]);
  }
  counters_.reset();  // MPI_T handles stopped and freed
  stopped_ = true;
}

std::vector<Triplet> Phase::gather(bool messages) const {
  const int rank = rank_of(comm_.get());
  const std::vector<std::uint64_t>& row = messages ? messages_ : bytes_;
  std::vector<Triplet> mine;
  for (std::size_t col = 0; col < row.size(); ++col) {
    if (row[col] == 0 || static_cast<int>(col) == rank) continue;
    mine.push_back({rank, static_cast<Index>(col), static_cast<Weight>(row[col])});
  }
  return gather_to_root(comm_.get(), 0, std::span<const Triplet>(mine));
}

}  // namespace treematch::distributed
