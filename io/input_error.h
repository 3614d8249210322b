// The exception for bad user input: its message is one line naming the file and the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace treematch::io {

/// Thrown for anything wrong with what the user gave (a file, a topology string, an option).
/// what() = "<source>: <problem>", one line, no trailing newline.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& source, const std::string& problem)
      : std::runtime_error(source + ": " + problem) {}
};

}  // namespace treematch::io
