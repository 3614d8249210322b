// Open MPI rankfile parsing: "rank <r>=<host> slot=<n>" lines and treematch's header.
#include "io/rankfile_reader.h"

#include <charconv>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/input_error.h"

namespace treematch::io {
namespace {

using kernels::Index;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::optional<Index> parse_index(std::string_view text) {
  Index value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

bool looks_like_rankfile(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    return content.rfind("rank", 0) == 0;
  }
  return false;
}

Rankfile parse_rankfile(const std::string& text, const std::string& source) {
  Rankfile file;
  std::vector<RankfileLine> lines;
  std::vector<char> seen;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view content = trim(line);
    const auto fail = [&](const std::string& problem) {
      return InputError(source, "line " + std::to_string(number) + ": " + problem);
    };
    if (content.empty()) continue;
    if (content.front() == '#') {
      if (content.find("written by treematch") != std::string_view::npos) {
        file.physical = content.find("numbering=physical") != std::string_view::npos;
        file.hardware_threads = content.find("leaves=hardware-threads") != std::string_view::npos;
      }
      continue;
    }
    // rank <r> = <host> slot = <n>
    if (content.rfind("rank", 0) != 0) {
      throw fail("expected 'rank <r>=<host> slot=<n>', got " + quoted_excerpt(content, 40));
    }
    std::string_view rest = trim(content.substr(4));
    const auto equal = rest.find('=');
    if (equal == std::string_view::npos) throw fail("no '=' after the rank number");
    const std::optional<Index> rank = parse_index(trim(rest.substr(0, equal)));
    if (!rank)
      throw fail("the rank " + quoted_excerpt(trim(rest.substr(0, equal)), 40) +
                 " is not a number");
    rest = trim(rest.substr(equal + 1));
    const auto space = rest.find_first_of(" \t");
    if (space == std::string_view::npos) throw fail("no 'slot=' after the host");
    const std::string host(rest.substr(0, space));
    rest = trim(rest.substr(space));
    if (rest.rfind("slot", 0) != 0) throw fail("expected 'slot=<n>' after the host");
    rest = trim(rest.substr(rest.rfind("slots", 0) == 0 ? 5 : 4));
    if (rest.empty() || rest.front() != '=') throw fail("no '=' after 'slot'");
    const std::string_view slot_text = trim(rest.substr(1));
    const std::optional<Index> slot = parse_index(slot_text);
    if (!slot) {
      throw fail("slot " + quoted_excerpt(slot_text, 40) +
                 " is not one core number (socket:core lists and ranges are not read)");
    }
    if (static_cast<std::size_t>(*rank) >= seen.size()) {
      if (*rank > (1 << 30)) throw fail("rank " + std::to_string(*rank) + " is too large");
      seen.resize(static_cast<std::size_t>(*rank) + 1, 0);
    }
    if (seen[static_cast<std::size_t>(*rank)] != 0) {
      throw fail("rank " + std::to_string(*rank) + " is given twice");
    }
    seen[static_cast<std::size_t>(*rank)] = 1;
    lines.push_back(RankfileLine{*rank, host, *slot});
  }
  if (lines.empty()) throw InputError(source, "no 'rank <r>=<host> slot=<n>' line");
  for (std::size_t r = 0; r < seen.size(); ++r) {
    if (seen[r] == 0) throw InputError(source, "rank " + std::to_string(r) + " is missing");
  }
  file.ranks.resize(lines.size());
  for (RankfileLine& entry : lines)
    file.ranks[static_cast<std::size_t>(entry.rank)] = std::move(entry);
  return file;
}

}  // namespace treematch::io
