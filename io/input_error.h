// The exception for bad user input: its message is one line naming the file and the problem.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace treematch::io {

/// Thrown for anything wrong with what the user gave (a file, a topology string, an option).
/// what() = "<source>: <problem>", one line, no trailing newline.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& source, const std::string& problem)
      : std::runtime_error(source + ": " + problem) {}
};

/// At most `most` characters of `text` for a one-line message, the bytes that are not printable
/// ASCII shown as '?' and "..." when it is cut: never the raw bytes of a huge or binary input.
std::string excerpt(std::string_view text, std::size_t most = 32);

/// excerpt() between single quotes: 'text...'.
std::string quoted_excerpt(std::string_view text, std::size_t most = 32);

}  // namespace treematch::io
