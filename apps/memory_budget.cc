// Sharing a machine's memory among the job's ranks, and refusing inputs that do not fit.
#include "apps/memory_budget.h"

#include <optional>
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

namespace {

/// The fewest ranks, one per machine, over which the rows of an HDF5 matrix would be spread so
/// that each rank fits in `available`; nothing when even many ranks would not.
std::optional<int> ranks_that_fit(const MemoryBudget& budget, Index processes, Offset entries,
                                  std::int64_t available) {
  constexpr int kMostRanks = 1 << 16;
  for (int ranks = 2; ranks <= kMostRanks; ranks *= 2) {
    if (budget.need(processes, entries, ranks) > available) continue;
    // The fewest between ranks / 2 and ranks.
    int fewest = ranks;
    for (int r = ranks / 2 + 1; r < ranks; ++r) {
      if (budget.need(processes, entries, r) <= available) {
        fewest = r;
        break;
      }
    }
    return fewest;
  }
  return std::nullopt;
}

}  // namespace

void check_memory(const MemoryBudget& budget, const std::string& matrix, Index processes,
                  Offset entries, int ranks) {
  const std::int64_t need = budget.need(processes, entries, ranks);
  if (need <= budget.per_rank()) return;
  const std::string available =
      budget.ranks_here > 1
          ? fmt::format("the {} that each of this machine's {} ranks has ({} {})",
                        io::format_bytes(budget.per_rank()), budget.ranks_here,
                        io::format_bytes(budget.available.bytes), budget.available.source)
          : fmt::format("the {} available ({})", io::format_bytes(budget.available.bytes),
                        budget.available.source);
  // Spread over more machines, one rank on each, every rank holds less.
  const std::optional<int> fit = ranks_that_fit(budget, processes, entries, budget.available.bytes);
  const std::string spread =
      fit ? fmt::format(
                "map it from an HDF5 matrix under mpirun -n {} with one rank per machine "
                "(about {} a rank)",
                *fit, io::format_bytes(budget.need(processes, entries, *fit)))
          : std::string("no number of ranks would fit it");
  const std::string remedy =
      budget.ranks_here > 1
          ? "start fewer ranks per machine, " + spread + ", or give --max-memory"
          : spread + ", run it where more memory is free, or give --max-memory to try anyway";
  throw io::InputError(
      matrix, fmt::format("mapping {} processes ({} entries) with {} needs about {}{}, more than "
                          "{}: {}",
                          processes, entries, budget.what, io::format_bytes(need),
                          budget.ranks_here > 1 ? " per rank" : "", available, remedy));
}

}  // namespace treematch::apps
