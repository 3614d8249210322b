// GoogleTest main for tests run under mpiexec: MPI up for the whole run, rank 0 alone prints.
#include <gtest/gtest.h>

#include "src/mpi/mpi_environment.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const treematch::distributed::MpiEnvironment mpi(argc, argv);
  if (mpi.rank() != 0) {
    // The other ranks still fail the job (their exit code) but do not repeat rank 0's report.
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  return RUN_ALL_TESTS();
}
