// Parallel tasks: when a loop is worth them, and tasks that never cancel each other.
#pragma once

#include <cstddef>
#include <exception>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "kernels/types.h"

namespace treematch::kernels {

/// Whether a kernel's loop over `rows` rows (or groups) should run as tasks. The bottom-up walks
/// inside thousands of small subtrees call the kernels on a few processes each, where spawning
/// tasks and making thread-local scratch costs more than the work; tasks or not, every row is
/// computed the same way.
inline bool worth_tasks(Index rows) {
  constexpr Index kTaskRowsMin = 64;
  return rows >= kTaskRowsMin;
}

/// Runs body(i) for i in [0, n) as TBB tasks. An exception thrown by a task does not cancel the
/// others: it is kept (the lowest i's) and rethrown once every task has run. Why: when a TBB
/// algorithm is cancelled, the algorithms nested in its other tasks return early without an
/// exception, and those tasks would go on with half-computed results (an empty bisection once
/// made split_range index out of bounds after another task's bad_alloc). Use it for tasks that
/// run nested parallel algorithms.
template <class Body>
void parallel_for_all(std::size_t n, Body body) {
  std::vector<std::exception_ptr> failed(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      failed[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : failed) {
    if (error) std::rethrow_exception(error);
  }
}

/// first() and second() as two tasks, with parallel_for_all's guarantee (first's exception wins).
template <class First, class Second>
void parallel_invoke_all(First first, Second second) {
  std::exception_ptr failed[2];
  tbb::parallel_invoke(
      [&] {
        try {
          first();
        } catch (...) {
          failed[0] = std::current_exception();
        }
      },
      [&] {
        try {
          second();
        } catch (...) {
          failed[1] = std::current_exception();
        }
      });
  for (const std::exception_ptr& error : failed) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace treematch::kernels
