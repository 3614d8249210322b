// Checks the project's promise for bad input: one InputError line that names the file.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "io/input_error.h"

namespace treematch::testing {

/// Runs `read` and checks it throws one InputError line naming `path` and containing `keyword`.
inline void expect_input_error(const std::function<void()>& read, const std::string& path,
                               const std::string& keyword) {
  try {
    read();
    ADD_FAILURE() << "no InputError for " << path << " (expected '" << keyword << "')";
  } catch (const io::InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(keyword), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

/// The InputError line `action` throws, or "(no InputError thrown)".
inline std::string input_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const io::InputError& error) {
    return error.what();
  }
  return "(no InputError thrown)";
}

}  // namespace treematch::testing
