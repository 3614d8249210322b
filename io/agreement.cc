// Agreeing over an MPI communicator on the first failure of a collective step.
#include "io/agreement.h"

#include <algorithm>
#include <array>
#include <climits>
#include <new>

#include "io/input_error.h"

namespace treematch::io {
namespace {

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed while the ranks agreed on an error");
  }
}

constexpr int kInputCode = 1;
constexpr int kOutOfMemoryCode = 2;
constexpr int kOtherCode = 3;

int code_of(FailureKind kind) {
  switch (kind) {
    case FailureKind::kInput:
      return kInputCode;
    case FailureKind::kOutOfMemory:
      return kOutOfMemoryCode;
    case FailureKind::kOther:
      return kOtherCode;
  }
  return kOtherCode;
}

FailureKind kind_of(int code) {
  return code == kInputCode         ? FailureKind::kInput
         : code == kOutOfMemoryCode ? FailureKind::kOutOfMemory
                                    : FailureKind::kOther;
}

}  // namespace

std::optional<RankFailure> lowest_failure(MPI_Comm comm, int code, const std::string& message) {
  int rank = 0;
  int size = 1;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const int mine = code == 0 ? size : rank;
  int first = size;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return std::nullopt;
  std::array<int, 2> header{code, static_cast<int>(std::min<std::size_t>(message.size(), INT_MAX))};
  check(MPI_Bcast(header.data(), 2, MPI_INT, first, comm), "MPI_Bcast");
  RankFailure failure{first, header[0], std::string(static_cast<std::size_t>(header[1]), '\0')};
  if (rank == first) failure.message = message.substr(0, failure.message.size());
  check(MPI_Bcast(failure.message.data(), header[1], MPI_CHAR, first, comm), "MPI_Bcast");
  return failure;
}

void agree_on_failure(MPI_Comm comm, const std::exception_ptr& error) {
  int code = 0;
  std::string message;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const AgreedError& e) {
      code = code_of(e.kind());
      message = e.what();
    } catch (const InputError& e) {
      code = kInputCode;
      message = e.what();
    } catch (const std::bad_alloc&) {
      code = kOutOfMemoryCode;
      message = "out of memory";
    } catch (const std::exception& e) {
      code = kOtherCode;
      message = e.what();
    } catch (...) {
      code = kOtherCode;
      message = "unknown error";
    }
  }
  const std::optional<RankFailure> failure = lowest_failure(comm, code, message);
  if (failure) throw AgreedError(failure->message, kind_of(failure->code), failure->rank);
}

}  // namespace treematch::io
