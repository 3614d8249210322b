// MpiEnvironment: initialise MPI only under a launcher; abort all ranks on a fatal error.
#include "src/mpi/mpi_environment.h"

#include <cstdlib>
#include <iostream>

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
  for (const char* variable :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

MpiEnvironment::MpiEnvironment(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  active_ = true;
  // Errors come back as codes (then exceptions), not as a silent abort inside the library.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
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
