// Tasks that never cancel each other: every task runs, the lowest failing task's exception wins.
#include "kernels/parallel_tasks.h"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace treematch::kernels {
namespace {

TEST(ParallelForAll, EveryTaskRunsEvenWhenOneThrows) {
  // Each task runs a nested parallel loop; with tbb::parallel_for, the tasks beside a failing
  // one would see their nested loops cancelled and stop part-way.
  constexpr std::size_t kTasks = 16;
  constexpr std::size_t kInner = 10000;
  std::vector<std::atomic<std::size_t>> done(kTasks);
  try {
    parallel_for_all(kTasks, [&](std::size_t task) {
      if (task == 3) throw std::runtime_error("task 3");
      tbb::parallel_for(std::size_t{0}, kInner, [&](std::size_t) { ++done[task]; });
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "task 3");
  }
  for (std::size_t task = 0; task < kTasks; ++task) {
    EXPECT_EQ(done[task].load(), task == 3 ? 0 : kInner) << "task " << task;
  }
}

TEST(ParallelForAll, TheLowestFailingTaskWins) {
  try {
    parallel_for_all(8, [](std::size_t task) {
      if (task % 3 == 1) throw std::runtime_error("task " + std::to_string(task));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "task 1");
  }
}

TEST(ParallelInvokeAll, BothRunAndTheFirstExceptionWins) {
  std::atomic<int> ran{0};
  try {
    parallel_invoke_all([&] { throw std::runtime_error("first"); },
                        [&] {
                          tbb::parallel_for(0, 1000, [&](int) { ++ran; });
                          throw std::runtime_error("second");
                        });
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "first");
  }
  EXPECT_EQ(ran.load(), 1000);
}

}  // namespace
}  // namespace treematch::kernels
