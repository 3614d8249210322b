// Lower bounds for numeric options, with a one-sentence failure (CLI11's PositiveNumber and
// NonNegativeNumber print the largest double as the upper bound of their range).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace treematch::apps {

/// Accepts a number >= `minimum`; otherwise "must be a number >= 1, not 'x'".
inline CLI::Validator at_least(long long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(value >= double(minimum))) {
          return fmt::format("must be a number >= {}, not '{}'", minimum, text);
        }
        return {};
      },
      fmt::format(">= {}", minimum));
}

}  // namespace treematch::apps
