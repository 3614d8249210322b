// Launchers' environment variables: ranks, job sizes, process managers.
#include "src/mpi/launcher_variables.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace treematch::distributed {
namespace {

/// The value of `variable` as a non-negative integer; nullopt when it is not set.
std::optional<long> number_of(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return std::nullopt;
  const std::string_view text(value);
  long number = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || number < 0) {
    throw LauncherVariableError(std::string(variable) + "='" + std::string(text.substr(0, 20)) +
                                "' is not a non-negative integer");
  }
  return number;
}

}  // namespace

std::optional<LauncherRank> launcher_rank() {
  for (const char* variable : kLauncherRankVariables) {
    if (const auto rank = number_of(variable)) return LauncherRank{variable, *rank};
  }
  return std::nullopt;
}

LauncherJob launcher_job() {
  struct Source {
    const char* launcher;
    const char* remedy;
    const char* size;
    const char* rank;
  };
  // srun without an MPI plugin sets only its own variables, and the ranks of any MPI start alone.
  for (const Source& source :
       {Source{"Open MPI's mpirun", "", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
        Source{"a PMI launcher (MPICH's Hydra, srun --mpi=pmi2)", "", "PMI_SIZE", "PMI_RANK"},
        Source{"srun",
               "give srun the plugin of its MPI (--mpi=pmi2 for MPICH, --mpi=pmix for Open MPI)",
               "SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}}) {
    const auto size = number_of(source.size);
    if (!size) continue;
    return LauncherJob{source.launcher, source.remedy, *size, number_of(source.rank).value_or(0)};
  }
  return {};
}

bool has_process_manager() {
  for (const char* variable :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

bool srun_of_several_tasks() {
  return number_of("SLURM_STEP_NUM_TASKS").value_or(0) > 1;
}

}  // namespace treematch::distributed
