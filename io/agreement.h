// Agreeing over an MPI communicator on whether a step failed, so that a collective step fails on
// every rank or on none and no rank is left waiting alone in a later collective call.
#pragma once

#include <mpi.h>

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

namespace treematch::io {

/// What was agreed to have failed, for the exit code of a command.
enum class FailureKind {
  kInput,        ///< bad input (InputError): the user's file or option
  kOutOfMemory,  ///< std::bad_alloc
  kOther,        ///< anything else
};

/// Thrown on every rank of a communicator at once, with the same message, once the ranks agreed
/// that a step failed: the error of the lowest rank where it failed. Every rank then unwinds
/// normally (collective resources such as a parallel HDF5 file are closed by all of them); one
/// rank should print the message.
class AgreedError : public std::runtime_error {
 public:
  AgreedError(const std::string& message, FailureKind kind, int failed_rank)
      : std::runtime_error(message), kind_(kind), failed_rank_(failed_rank) {}
  [[nodiscard]] FailureKind kind() const { return kind_; }
  /// The lowest rank where the step failed (the one whose message this is).
  [[nodiscard]] int failed_rank() const { return failed_rank_; }

 private:
  FailureKind kind_;
  int failed_rank_;
};

/// One rank's failure, as every rank learns it.
struct RankFailure {
  int rank = 0;
  int code = 0;
  std::string message;
};

/// Collective over `comm`: each rank passes `code` 0 when its step succeeded, else a non-zero code
/// and its message. Returns, on every rank, the lowest failing rank with its code and message (one
/// MPI_Allreduce, and two broadcasts when something failed), or nothing when no rank failed.
/// Throws std::runtime_error naming the call when an MPI call fails.
std::optional<RankFailure> lowest_failure(MPI_Comm comm, int code, const std::string& message);

/// Collective over `comm`: `error` is this rank's failure (null when it succeeded). Returns when
/// no rank failed; otherwise every rank throws AgreedError with the lowest failing rank's message
/// and kind (InputError: kInput, std::bad_alloc: kOutOfMemory, an AgreedError its own kind,
/// anything else kOther).
void agree_on_failure(MPI_Comm comm, const std::exception_ptr& error);

/// Runs `step` on this rank, then agree_on_failure over `comm`: either the step succeeded on every
/// rank or every rank throws the same AgreedError. With MPI_COMM_NULL the step just runs and its
/// exceptions pass unchanged.
template <typename Step>
void run_agreed(MPI_Comm comm, Step&& step) {
  if (comm == MPI_COMM_NULL) {
    step();
    return;
  }
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  agree_on_failure(comm, error);
}

}  // namespace treematch::io
