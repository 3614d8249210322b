// failure_in_child: what ends a child process (a crash, no end) is reported; a normal end is not.
#include "io/contained_call.h"

#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>

namespace treematch::io {
namespace {

TEST(FailureInChild, ANormalEndOrAnErrorIsNoFailure) {
  int calls = 0;
  EXPECT_EQ(failure_in_child([&] { ++calls; }, 5), std::nullopt);
  EXPECT_EQ(calls, 0);  // the call ran in the child, not here
  EXPECT_EQ(failure_in_child([] { throw std::runtime_error("bad file"); }, 5), std::nullopt);
}

TEST(FailureInChild, ACrashIsReportedWithItsSignal) {
  const std::optional<std::string> failure = failure_in_child([] { std::raise(SIGSEGV); }, 5);
  ASSERT_TRUE(failure.has_value());
  // Under a sanitizer the crash is an exit code; without, the signal.
  EXPECT_TRUE(failure->find("signal 11") != std::string::npos ||
              failure->find("exit code") != std::string::npos)
      << *failure;
  EXPECT_EQ(failure_in_child([] { std::abort(); }, 5).value_or("").find("crashed"), 0u);
}

TEST(FailureInChild, ACallThatNeverEndsIsStoppedAfterItsSeconds) {
  EXPECT_EQ(failure_in_child(
                [] {
                  for (volatile bool forever = true; forever;) {
                  }
                },
                1),
            "did not finish within 1 s");
}

}  // namespace
}  // namespace treematch::io
