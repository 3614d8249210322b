// MpiEnvironment: initialise MPI only under a launcher; abort all ranks on a fatal error.
#include "src/mpi/mpi_environment.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "src/mpi/launcher_variables.h"
#include "src/mpi/rank_memory.h"

namespace treematch::distributed {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw MpiError(std::string(call) +
                 " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

int rank_of(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return 0;
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int size_of(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return 1;
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

bool launched_by_mpi() {
  return has_process_manager() || srun_of_several_tasks();
}

namespace {

/// The first line of MPI_Get_library_version ("MPICH Version: 4.0.2", "Open MPI v4.1.4, ...").
std::string library_name() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "this MPI";
  std::string name(text, static_cast<std::size_t>(length));
  name = name.substr(0, name.find_first_of("\n,"));
  std::replace(name.begin(), name.end(), '\t', ' ');
  name.erase(
      std::unique(name.begin(), name.end(), [](char a, char b) { return a == ' ' && b == ' '; }),
      name.end());
  while (!name.empty() && name.back() == ' ') name.pop_back();
  return name;
}

/// Ends this rank when `job` started more ranks than MPI sees; the launcher's rank 0 says why in
/// one line and exits with code 2, the others with 0. Launchers end the whole job when its first
/// rank fails: had every rank failed, one could end before rank 0 had written its line, and the job
/// would fail without a word. MPI_Get_library_version may be called before MPI_Init.
void refuse_unseen_ranks(const LauncherJob& job) {
  if (job.rank == 0) {
    const std::string library = library_name();
    const std::string remedy = *job.remedy != '\0'
                                   ? std::string(job.remedy)
                                   : "start it with the launcher of " + library +
                                         ", or use a treematch built for the launcher's MPI";
    std::cerr << ("treematch: built with " + library + ", but " + job.launcher +
                  " started it as one of " + std::to_string(job.size) +
                  " ranks that this MPI does not see (each would run alone): " + remedy + "\n")
              << std::flush;
  }
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised != 0) MPI_Finalize();
  std::exit(job.rank == 0 ? 2 : 0);
}

}  // namespace

MpiEnvironment::MpiEnvironment(int& argc, char**& argv) {
  try {
    start(argc, argv);
  } catch (const LauncherVariableError& e) {  // a launcher's variable that holds no number
    std::cerr << ("treematch: " + std::string(e.what()) + "\n") << std::flush;
    std::exit(2);
  }
}

void MpiEnvironment::start(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  // srun without an MPI plugin: Open MPI would abort inside MPI_Init, MPICH start each rank alone.
  if (!has_process_manager()) refuse_unseen_ranks(launcher_job());
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  active_ = true;
  // Errors come back as codes (then exceptions), not as a silent abort inside the library.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // A binary of one MPI started by another MPI's launcher initialises as a singleton: every rank
  // would believe it is rank 0 of 1 and write the whole output. The launcher's own variables tell.
  const LauncherJob job = launcher_job();
  if (size_ == 1 && job.size > 1) refuse_unseen_ranks(job);
  // Several ranks share the job's nodes: each keeps only the memory it uses.
  if (size_ > 1) return_large_blocks_to_system();
}

MpiEnvironment::~MpiEnvironment() {
  if (active_) MPI_Finalize();  // its code is not checked: destructors do not throw
}

void MpiEnvironment::abort(const std::string& message, int code) const {
  // One write: under mpirun the lines of several failing ranks then never interleave.
  std::cerr << (message + '\n') << std::flush;
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace treematch::distributed
