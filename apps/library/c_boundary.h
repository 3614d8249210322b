// What the C entry points of libtreematch.so share: exceptions turned into a status and a
// thread-local message (treematch_last_error), so that nothing is thrown across the C boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace treematch::library {

/// An argument the caller got wrong (TREEMATCH_ERR_ARG).
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The status of the exception being handled (call inside a catch block), its message recorded
/// as "<function>: <what>" for treematch_last_error.
int status_of_current_exception(const char* function) noexcept;

/// Runs `body`: TREEMATCH_OK (0), or the status of what it threw.
template <class Body>
int guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return 0;
  } catch (...) {
    return status_of_current_exception(function);
  }
}

/// The message of the calling thread's last failure.
const char* last_error() noexcept;

}  // namespace treematch::library
