// Dynamic master-worker distribution of independent tasks over MPI point-to-point messages.
#include "src/batch/batch_scheduler.h"

#include <algorithm>
#include <climits>
#include <future>
#include <numeric>
#include <optional>
#include <utility>

#include "src/mpi/mpi_environment.h"

namespace treematch::distributed {
namespace {

constexpr int kRoot = 0;

/// Message tags of the protocol (see run_tasks).
enum Tag : int { kRequest = 1, kAssign = 2, kStop = 3, kDone = 4 };

/// A private duplicate of a communicator, freed on scope exit; never throws from its destructor.
class DuplicateComm {
 public:
  explicit DuplicateComm(MPI_Comm comm) {
    check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    // The duplicate inherits the error handler, but say it: codes, not a silent abort.
    check_mpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  }
  ~DuplicateComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);  // not checked: destructors do not throw
  }
  DuplicateComm(const DuplicateComm&) = delete;
  DuplicateComm& operator=(const DuplicateComm&) = delete;
  [[nodiscard]] MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

int message_bytes(const MPI_Status& status) {
  int count = 0;
  check_mpi(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  return count;
}

/// The root: hands tasks out in largest_first order, collects results, works when idle.
void serve(MPI_Comm comm, int size, std::span<const std::uint64_t> sizes, const TaskFunction& task,
           const ResultFunction& on_result, const SchedulerOptions& options) {
  const std::vector<std::size_t> order = largest_first(sizes);
  std::size_t next = 0;
  const auto take = [&]() -> std::optional<std::size_t> {
    if (next == order.size()) return std::nullopt;
    return order[next++];
  };
  std::vector<std::optional<std::size_t>> held(static_cast<std::size_t>(size));  // per worker
  int active_workers = size - 1;  // workers that have not been sent STOP
  std::future<std::string> local;
  std::size_t local_index = 0;

  while (true) {
    if (options.root_works && !local.valid()) {
      if (const std::optional<std::size_t> index = take()) {
        local_index = *index;
        local = std::async(std::launch::async, [&task, i = *index] { return task(i); });
      }
    }
    if (active_workers == 0) {
      if (!local.valid()) return;  // every worker stopped, so every task was handed out
      on_result(local_index, local.get());
      continue;
    }
    MPI_Status status;
    if (local.valid()) {
      int arrived = 0;
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &arrived, &status), "MPI_Iprobe");
      if (arrived == 0) {
        if (local.wait_for(options.poll) == std::future_status::ready) {
          on_result(local_index, local.get());
        }
        continue;
      }
    } else {
      check_mpi(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status), "MPI_Probe");
    }

    const int worker = status.MPI_SOURCE;
    std::optional<std::size_t>& holding = held[static_cast<std::size_t>(worker)];
    if (status.MPI_TAG == kDone) {
      if (!holding)
        throw MpiError("batch scheduler: DONE from rank " + std::to_string(worker) +
                       ", which holds no task");
      std::string result(static_cast<std::size_t>(message_bytes(status)), '\0');
      check_mpi(MPI_Recv(result.data(), static_cast<int>(result.size()), MPI_BYTE, worker, kDone,
                         comm, MPI_STATUS_IGNORE),
                "MPI_Recv(DONE)");
      const std::size_t index = *holding;
      holding.reset();
      on_result(index, std::move(result));
    } else if (status.MPI_TAG == kRequest) {
      check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, worker, kRequest, comm, MPI_STATUS_IGNORE),
                "MPI_Recv(REQUEST)");
    } else {
      throw MpiError("batch scheduler: unexpected message tag " + std::to_string(status.MPI_TAG) +
                     " from rank " + std::to_string(worker));
    }

    if (const std::optional<std::size_t> index = take()) {
      const auto assigned = static_cast<std::uint64_t>(*index);
      check_mpi(MPI_Send(&assigned, 1, MPI_UINT64_T, worker, kAssign, comm), "MPI_Send(ASSIGN)");
      holding = *index;
    } else {
      check_mpi(MPI_Send(nullptr, 0, MPI_BYTE, worker, kStop, comm), "MPI_Send(STOP)");
      --active_workers;
    }
  }
}

/// A worker: asks, runs what it is given, sends the result back, until STOP.
void work(MPI_Comm comm, const TaskFunction& task) {
  check_mpi(MPI_Send(nullptr, 0, MPI_BYTE, kRoot, kRequest, comm), "MPI_Send(REQUEST)");
  while (true) {
    MPI_Status status;
    check_mpi(MPI_Probe(kRoot, MPI_ANY_TAG, comm, &status), "MPI_Probe");
    if (status.MPI_TAG == kStop) {
      check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, kRoot, kStop, comm, MPI_STATUS_IGNORE),
                "MPI_Recv(STOP)");
      return;
    }
    if (status.MPI_TAG != kAssign) {
      throw MpiError("batch scheduler: unexpected message tag " + std::to_string(status.MPI_TAG) +
                     " from the root");
    }
    std::uint64_t index = 0;
    check_mpi(MPI_Recv(&index, 1, MPI_UINT64_T, kRoot, kAssign, comm, MPI_STATUS_IGNORE),
              "MPI_Recv(ASSIGN)");
    const std::string result = task(static_cast<std::size_t>(index));
    if (result.size() > static_cast<std::size_t>(INT_MAX)) {
      throw MpiError("batch scheduler: the result of task " + std::to_string(index) + " is " +
                     std::to_string(result.size()) + " bytes, more than one MPI message holds");
    }
    check_mpi(
        MPI_Send(result.data(), static_cast<int>(result.size()), MPI_BYTE, kRoot, kDone, comm),
        "MPI_Send(DONE)");
  }
}

}  // namespace

std::vector<std::size_t> largest_first(std::span<const std::uint64_t> sizes) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  return order;
}

void run_tasks(MPI_Comm comm, std::span<const std::uint64_t> sizes, const TaskFunction& task,
               const ResultFunction& on_result, const SchedulerOptions& options) {
  if (comm == MPI_COMM_NULL || size_of(comm) == 1) {
    for (std::size_t i = 0; i < sizes.size(); ++i) on_result(i, task(i));
    return;
  }
  const DuplicateComm own(comm);
  if (rank_of(own.get()) == kRoot) {
    serve(own.get(), size_of(own.get()), sizes, task, on_result, options);
  } else {
    work(own.get(), task);
  }
}

void broadcast_string(MPI_Comm comm, std::string& text) {
  if (comm == MPI_COMM_NULL) return;
  auto length = static_cast<std::uint64_t>(text.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_UINT64_T, kRoot, comm), "MPI_Bcast(length)");
  if (length > static_cast<std::uint64_t>(INT_MAX)) {
    throw MpiError("broadcast_string: " + std::to_string(length) +
                   " bytes, more than one MPI message holds");
  }
  text.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(text.data(), static_cast<int>(length), MPI_BYTE, kRoot, comm),
            "MPI_Bcast(text)");
}

int broadcast_int(MPI_Comm comm, int value) {
  if (comm == MPI_COMM_NULL) return value;
  check_mpi(MPI_Bcast(&value, 1, MPI_INT, kRoot, comm), "MPI_Bcast(int)");
  return value;
}

}  // namespace treematch::distributed
