// The C entry points' guard: exceptions become MPI error classes and one line on stderr.
#pragma once

#include <mpi.h>

#include <iostream>
#include <new>

#include "src/distributed/reorder.h"

namespace treematch::distributed {

/// The communicator a guarded call made, given up to the caller.
inline MPI_Comm released(ReorderResult& result) {
  return result.comm.release();
}
inline MPI_Comm released(Communicator& comm) {
  return comm.release();
}

/// Runs `reorder` (returning a ReorderResult or a Communicator) and hands its communicator to the
/// caller; nothing escapes but an error class. Every entry point starts with agree_on_problem, so a
/// rank that found a problem here (a NULL `reordered`) still meets the others in that first
/// collective and all of them fail together.
template <class Reorder>
inline int guarded(const char* function, MPI_Comm comm, MPI_Comm* reordered,
                   Reorder&& reorder) noexcept {
  if (reordered != nullptr) *reordered = MPI_COMM_NULL;
  try {
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized == 0 || finalized != 0) {
      std::cerr << function << ": MPI is not initialised (call MPI_Init first)\n";
      return MPI_ERR_OTHER;
    }
    if (comm == MPI_COMM_NULL) {
      std::cerr << function << ": the communicator is MPI_COMM_NULL\n";
      return MPI_ERR_COMM;
    }
    if (reordered == nullptr) {
      agree_on_problem(comm, "the `reordered` argument is NULL");
    }
    auto made = reorder();
    *reordered = released(made);
    return MPI_SUCCESS;
  } catch (const ReorderError& error) {
    if (error.origin()) std::cerr << function << ": " << error.what() << '\n';
    return error.error_class();
  } catch (const std::bad_alloc&) {
    std::cerr << function << ": out of memory\n";
    return MPI_ERR_NO_MEM;
  } catch (const std::exception& error) {
    std::cerr << function << ": " << error.what() << '\n';
    return MPI_ERR_OTHER;
  } catch (...) {
    std::cerr << function << ": unknown error\n";
    return MPI_ERR_OTHER;
  }
}

}  // namespace treematch::distributed
