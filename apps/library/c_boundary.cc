// Exceptions into statuses and messages at libtreematch.so's C boundary (see c_boundary.h).
#include "apps/library/c_boundary.h"

#include <exception>
#include <new>

#include "apps/library/treematch.h"
#include "io/input_error.h"

namespace treematch::library {
namespace {

thread_local std::string t_last_error;

}  // namespace

int status_of_current_exception(const char* function) noexcept {
  int status = TREEMATCH_ERR_INTERNAL;
  const char* message = "unknown exception";
  try {
    throw;
  } catch (const ArgumentError& error) {
    status = TREEMATCH_ERR_ARG;
    message = error.what();
  } catch (const io::InputError& error) {
    status = TREEMATCH_ERR_INPUT;
    message = error.what();
  } catch (const std::invalid_argument& error) {  // the driver: processes that do not fit
    status = TREEMATCH_ERR_INPUT;
    message = error.what();
  } catch (const std::bad_alloc&) {
    status = TREEMATCH_ERR_NO_MEM;
    message = "out of memory";
  } catch (const std::exception& error) {
    message = error.what();
  } catch (...) {
  }
  try {
    t_last_error = std::string(function) + ": " + message;
  } catch (...) {
    t_last_error.clear();  // no memory even for the message: the status says enough
  }
  return status;
}

const char* last_error() noexcept {
  return t_last_error.c_str();
}

}  // namespace treematch::library
