// Excerpts of user input for one-line error messages.
#include "io/input_error.h"

namespace treematch::io {

std::string excerpt(std::string_view text, std::size_t most) {
  std::string out(text.substr(0, most));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  return text.size() > most ? out + "..." : out;
}

std::string quoted_excerpt(std::string_view text, std::size_t most) {
  std::string out(1, '\'');
  out += excerpt(text, most);
  out += '\'';
  return out;
}

}  // namespace treematch::io
