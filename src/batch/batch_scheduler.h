// Spreads independent tasks over the ranks of a communicator, largest first; results to rank 0.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace treematch::distributed {

/// Computes task `index` on whichever rank it was handed to and returns its result as opaque bytes,
/// which travel to the root unchanged. Must not call MPI: on the root it runs on a helper thread
/// (MPI is initialised MPI_THREAD_FUNNELED). An exception it throws ends run_tasks on that rank.
using TaskFunction = std::function<std::string(std::size_t index)>;

/// Receives one task's result on the root, on the calling (main) thread, once per task, in the
/// order the tasks finish.
using ResultFunction = std::function<void(std::size_t index, std::string result)>;

struct SchedulerOptions {
  /// With several ranks, the root also computes tasks on a helper thread while it serves the
  /// workers (otherwise it only hands out work and collects results).
  bool root_works = true;
  /// How long the root, while its own task runs, waits for it before probing for messages again.
  std::chrono::milliseconds poll{1};
};

/// The order in which tasks are handed out: by decreasing size, ties by increasing index.
std::vector<std::size_t> largest_first(std::span<const std::uint64_t> sizes);

/// Runs task(i) exactly once for every i in [0, sizes.size()), somewhere, and gives every result to
/// on_result on the root (rank 0 of `comm`). `sizes` and `on_result` are used on the root only
/// (the other ranks learn the work from the root and may pass {} and nullptr).
///
/// Sequential, in index order on the calling thread, when `comm` is MPI_COMM_NULL (MPI not
/// initialised) or has a single rank. Otherwise collective over `comm` (which is duplicated, so
/// the messages below never mix with the caller's), a dynamic master-worker scheme:
///   - every worker (rank > 0) sends an empty REQUEST, then waits;
///   - the root answers each REQUEST or DONE with ASSIGN (the next task in largest_first order, one
///     MPI_UINT64_T) or, when none is left, STOP (empty), after which that worker returns;
///   - a worker runs the assigned task and sends DONE carrying the result bytes (the root knows
///     which task each worker holds), which is also its request for more;
///   - with options.root_works the root takes the next task for itself whenever its helper thread
///     is idle, and probes for messages every options.poll while that task runs.
/// The root returns once every task's result went through on_result and every worker got STOP.
/// Throws MpiError for a failed MPI call or a result longer than one message (INT_MAX bytes);
/// whatever task or on_result throw propagates. After an exception the other ranks may be blocked
/// in a receive: the caller must end the job with MPI_Abort.
void run_tasks(MPI_Comm comm, std::span<const std::uint64_t> sizes, const TaskFunction& task,
               const ResultFunction& on_result, const SchedulerOptions& options = {});

/// Broadcasts `text` from rank 0 of `comm` to every rank (length, then bytes). Collective; does
/// nothing for MPI_COMM_NULL. Throws MpiError.
void broadcast_string(MPI_Comm comm, std::string& text);

/// Rank 0's `value` on every rank of `comm` (collective); `value` itself for MPI_COMM_NULL.
int broadcast_int(MPI_Comm comm, int value);

}  // namespace treematch::distributed
