// run_tasks under mpiexec: every task runs exactly once and its result reaches rank 0 intact.
#include "src/batch/batch_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "src/mpi/mpi_environment.h"

namespace treematch::distributed {
namespace {

int world_size() {
  int size = 1;
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

TEST(LargestFirst, DecreasingSizeTiesByIndex) {
  const std::vector<std::uint64_t> sizes{5, 9, 5, 0, 9};
  EXPECT_EQ(largest_first(sizes), (std::vector<std::size_t>{1, 4, 0, 2, 3}));
  EXPECT_TRUE(largest_first({}).empty());
}

TEST(RunTasks, SequentialWithoutMpiRunsInIndexOrder) {
  const std::vector<std::uint64_t> sizes{1, 3, 2};
  std::vector<std::size_t> ran;
  std::vector<std::size_t> received;
  run_tasks(
      MPI_COMM_NULL, sizes,
      [&](std::size_t i) {
        ran.push_back(i);
        return std::to_string(i);
      },
      [&](std::size_t i, std::string result) {
        EXPECT_EQ(result, std::to_string(i));
        received.push_back(i);
      });
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(received, ran);
}

/// Each task's result names the task and carries a payload of its size, so that a lost, doubled or
/// mixed-up message shows. Checked on rank 0; the verdict is broadcast so every rank agrees.
void expect_every_task_once(bool root_works, std::size_t tasks) {
  if (!launched_by_mpi()) GTEST_SKIP() << "needs mpiexec (MPI is initialised only under it)";
  std::vector<std::uint64_t> sizes;
  for (std::size_t i = 0; i < tasks; ++i) sizes.push_back((i * 7) % 5);
  const auto result_of = [](std::size_t i) {
    return std::to_string(i) + ":" + std::string(i % 3 == 0 ? 0 : 1000 * i, 'x');
  };
  std::vector<int> seen(tasks, 0);
  int mismatches = 0;
  std::atomic<int> ran_here{0};  // on the root, tasks run on a helper thread
  SchedulerOptions options;
  options.root_works = root_works;
  run_tasks(
      MPI_COMM_WORLD, sizes,
      [&](std::size_t i) {
        ++ran_here;
        return result_of(i);
      },
      [&](std::size_t i, std::string result) {
        ++seen[i];
        if (result != result_of(i)) ++mismatches;
      },
      options);
  // Each task ran exactly once over all ranks; a serving-only root ran none.
  int ran = ran_here.load();
  int ran_everywhere = 0;
  check_mpi(MPI_Allreduce(&ran, &ran_everywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
  EXPECT_EQ(ran_everywhere, static_cast<int>(tasks));
  if (!root_works && world_size() > 1 && rank_of(MPI_COMM_WORLD) == 0) {
    EXPECT_EQ(ran, 0);
  }

  int ok = 1;
  if (rank_of(MPI_COMM_WORLD) == 0) {
    for (std::size_t i = 0; i < tasks; ++i) {
      EXPECT_EQ(seen[i], 1) << "task " << i;
      if (seen[i] != 1) ok = 0;
    }
    EXPECT_EQ(mismatches, 0);
    if (mismatches != 0) ok = 0;
  }
  EXPECT_EQ(broadcast_int(MPI_COMM_WORLD, ok), 1) << "rank 0 saw a lost or damaged result";
}

TEST(RunTasks, EveryTaskOnceWithRootWorking) {
  expect_every_task_once(/*root_works=*/true, 37);
}

TEST(RunTasks, EveryTaskOnceWithRootOnlyServing) {
  expect_every_task_once(/*root_works=*/false, 37);
}

TEST(RunTasks, FewerTasksThanRanksAndNoTasks) {
  expect_every_task_once(/*root_works=*/true, 1);
  expect_every_task_once(/*root_works=*/true, 0);
  expect_every_task_once(/*root_works=*/false, 0);
}

TEST(BroadcastString, EveryRankGetsRankZerosText) {
  if (!launched_by_mpi()) GTEST_SKIP() << "needs mpiexec (MPI is initialised only under it)";
  std::string text = rank_of(MPI_COMM_WORLD) == 0 ? std::string(100000, 'a') + "end" : "other";
  broadcast_string(MPI_COMM_WORLD, text);
  EXPECT_EQ(text, std::string(100000, 'a') + "end");
  EXPECT_GE(world_size(), 1);
}

}  // namespace
}  // namespace treematch::distributed
