// What a launcher tells each process it starts, read from the variables it sets: the one place
// that knows them (the MPI start-up checks and `treematch bind` both read them here).
#pragma once

#include <array>
#include <optional>
#include <stdexcept>

namespace treematch::distributed {

/// Thrown when a launcher's variable is set to something that is not a non-negative integer; the
/// message names the variable and its value.
class LauncherVariableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// This process's rank and the variable it came from.
struct LauncherRank {
  const char* variable = "";
  long rank = 0;
};

/// The rank as the launcher says, from the first set of OMPI_COMM_WORLD_RANK (Open MPI's
/// mpirun), PMIX_RANK (PMIx launchers), PMI_RANK (Hydra: MPICH, Intel MPI, MVAPICH's mpiexec;
/// srun --mpi=pmi2), MV2_COMM_WORLD_RANK (MVAPICH's mpirun_rsh), SLURM_PROCID (srun);
/// nullopt when none is set. Throws LauncherVariableError.
std::optional<LauncherRank> launcher_rank();

/// The variables launcher_rank() reads, in its order.
inline constexpr std::array<const char*, 5> kLauncherRankVariables{
    "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"};

/// How many processes a launcher says it started, this one's place among them, and what to do
/// when the MPI cannot see them as one job; size 0 when no launcher's size variable is set.
struct LauncherJob {
  const char* launcher = "";
  const char* remedy = "";  ///< "" = start it with its own MPI's launcher
  long size = 0;
  long rank = 0;
};

/// The job from Open MPI's mpirun, a PMI launcher, or srun (OMPI_COMM_WORLD_SIZE/RANK,
/// PMI_SIZE/RANK, SLURM_STEP_NUM_TASKS/SLURM_PROCID, in this order: Open MPI's mpirun also sets
/// PMIx variables). Throws LauncherVariableError.
LauncherJob launcher_job();

/// True when one of the variables a process manager that an MPI can join sets is present
/// (mpirun, Hydra, srun with an MPI plugin).
bool has_process_manager();

/// True when srun started this step with several tasks (SLURM_STEP_NUM_TASKS above 1). Throws
/// LauncherVariableError.
bool srun_of_several_tasks();

}  // namespace treematch::distributed
