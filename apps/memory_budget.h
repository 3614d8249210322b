// The memory a command may spend on one input, and the refusal of an input that needs more.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <mpi.h>

#include "io/available_memory.h"
#include "src/model/comm_graph.h"

namespace treematch::apps {

/// Bytes one process of a command takes at its peak for a matrix of so many processes and
/// entries, its rows spread over `ranks` MPI ranks (1: read whole by each process).
using MemoryNeed = std::function<std::int64_t(Index processes, Offset entries, int ranks)>;

/// What one process may take, decided before any matrix is read.
struct MemoryBudget {
  io::AvailableMemory available;  ///< on this machine (or --max-memory)
  int ranks_here = 1;             ///< the processes of the job on this machine, which share it
  MemoryNeed need;
  std::string what;  ///< the work the need is for, e.g. "--preset default"

  [[nodiscard]] std::int64_t per_rank() const { return available.bytes / ranks_here; }
};

/// The budget for `max_memory` ("auto", "none" or a size, per process: see
/// io::parse_memory_limit); with "auto", the machine's available memory shared by the ranks of
/// `comm` on this machine (collective over `comm` unless it is MPI_COMM_NULL). Nothing when the
/// machine's memory cannot be read. Throws io::InputError for a bad --max-memory.
std::optional<MemoryBudget> memory_budget(const std::string& max_memory, MPI_Comm comm,
                                          MemoryNeed need, std::string what);

/// Throws io::InputError(matrix, ...) when mapping `processes` and `entries`, the rows spread
/// over `ranks` ranks (1: read whole), needs more than the budget: the need, what is available
/// and what to do (fewer ranks per machine, or the mpirun -n R, one rank per machine, whose
/// ranks would each fit), in one line.
void check_memory(const MemoryBudget& budget, const std::string& matrix, Index processes,
                  Offset entries, int ranks);

}  // namespace treematch::apps
