// MPI start-up and shut-down for the command line: only when an MPI launcher started this process.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace treematch::distributed {

/// Thrown for a failed MPI call; the message names the call and MPI's error string.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws MpiError naming `call` unless `code` is MPI_SUCCESS.
void check_mpi(int code, const char* call);

/// Rank of this process in `comm`; 0 for MPI_COMM_NULL. Throws MpiError.
int rank_of(MPI_Comm comm);

/// Number of ranks of `comm` (its local group); 1 for MPI_COMM_NULL. Throws MpiError.
int size_of(MPI_Comm comm);

/// True when mpirun/mpiexec (Open MPI, MPICH/Hydra) or srun (an MPI plugin, or several tasks)
/// started this process: only then is MPI initialised, so a plain `treematch` run pays no MPI
/// start-up cost. Throws LauncherVariableError (src/mpi/launcher_variables.h).
bool launched_by_mpi();

/// RAII for MPI_Init_thread / MPI_Finalize. Inactive (size 1, rank 0) when not launched by MPI.
/// With several ranks, freed large blocks go back to the system (src/mpi/rank_memory.h).
/// A launcher that started several ranks which MPI sees as one each (a binary of one MPI under
/// another MPI's launcher, srun without an MPI plugin) ends every rank with exit code 2 and one
/// line, from the launcher's rank 0, naming both; a launcher variable that holds no number ends
/// it with exit code 2 and one line naming the variable.
class MpiEnvironment {
 public:
  MpiEnvironment(int& argc, char**& argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  /// Ends every rank with `message` on stderr (from this rank): never a hang when one rank fails.
  [[noreturn]] void abort(const std::string& message, int code) const;

 private:
  void start(int& argc, char**& argv);

  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace treematch::distributed
