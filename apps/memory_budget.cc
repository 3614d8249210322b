// Sharing a machine's memory among the job's ranks, and refusing inputs that do not fit.
#include "apps/memory_budget.h"

#include <utility>

#include <fmt/format.h>

#include "io/input_error.h"
#include "src/mpi/mpi_environment.h"
#include "src/mpi/owned_comm.h"

namespace treematch::apps {
namespace {

/// The ranks of `comm` on this machine (MPI_COMM_TYPE_SHARED).
int ranks_on_this_machine(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return 1;
  distributed::OwnedComm here;
  distributed::check_mpi(
      MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, here.out()),
      "MPI_Comm_split_type");
  return distributed::size_of(here.get());
}

}  // namespace

std::optional<MemoryBudget> memory_budget(const std::string& max_memory, MPI_Comm comm,
                                          MemoryNeed need, std::string what) {
  const std::optional<io::AvailableMemory> limit = io::parse_memory_limit(max_memory);
  // Collective whatever this rank's limit: every rank makes the same calls.
  const int ranks_here = ranks_on_this_machine(comm);
  if (limit) return MemoryBudget{*limit, 1, std::move(need), std::move(what)};
  const std::optional<io::AvailableMemory> available = io::available_memory();
  if (!available) return std::nullopt;
  return MemoryBudget{*available, ranks_here, std::move(need), std::move(what)};
}

void check_memory(const MemoryBudget& budget, const std::string& matrix, Index processes,
                  Offset entries) {
  const std::int64_t need = budget.need(processes, entries);
  if (need <= budget.per_rank()) return;
  const std::string available =
      budget.ranks_here > 1
          ? fmt::format("the {} that each of this machine's {} ranks has ({} {})",
                        io::format_bytes(budget.per_rank()), budget.ranks_here,
                        io::format_bytes(budget.available.bytes), budget.available.source)
          : fmt::format("the {} available ({})", io::format_bytes(budget.available.bytes),
                        budget.available.source);
  const std::string remedy =
      budget.ranks_here > 1
          ? "start fewer ranks per machine (each rank holds about this much), or give --max-memory"
          : "run it where more memory is free, or give --max-memory to try anyway";
  throw io::InputError(
      matrix, fmt::format("mapping {} processes ({} entries) with {} needs about {}{}, more than "
                          "{}: {}",
                          processes, entries, budget.what, io::format_bytes(need),
                          budget.ranks_here > 1 ? " per rank" : "", available, remedy));
}

}  // namespace treematch::apps
