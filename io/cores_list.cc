// Reads a --cores constraint, inline ("0-3,8,10-11") or from a file of leaf ids (*.bind).
#include "io/cores_list.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/input_error.h"

namespace treematch::io {

namespace {

using kernels::Index;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Ids and ranges separated by commas and/or whitespace; a range is "a-b" (spaces allowed around
// '-'). Checks each id against the leaf count before expanding a range.
std::vector<Index> parse_list(std::string_view text, Index leaf_count, const std::string& source) {
  std::vector<Index> ids;
  std::size_t pos = 0;
  const std::size_t n = text.size();
  const auto skip_spaces = [&] {
    while (pos < n && is_space(text[pos])) ++pos;
  };
  const auto near = [&](std::size_t at) {
    const std::size_t begin = at > 10 ? at - 10 : 0;
    return "'" + std::string(text.substr(begin, 20)) + "'";
  };
  const auto read_id = [&]() -> std::int64_t {
    const std::size_t begin = pos;
    while (pos < n && is_digit(text[pos])) ++pos;
    if (begin == pos) {
      throw InputError(source, "expected a leaf id at position " + std::to_string(begin) +
                                   " near " + near(begin) + " (the list looks like '0-3,8,10-11')");
    }
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data() + begin, text.data() + pos, value);
    if (error != std::errc() || end != text.data() + pos || value >= leaf_count) {
      throw InputError(source, "names leaf " + std::string(text.substr(begin, pos - begin)) +
                                   " but the topology has " + std::to_string(leaf_count) +
                                   " leaves");
    }
    return value;
  };
  bool expect_item = true;  // after a comma an id must follow
  skip_spaces();
  while (pos < n) {
    const std::int64_t first = read_id();
    std::int64_t last = first;
    skip_spaces();
    if (pos < n && text[pos] == '-') {
      ++pos;
      skip_spaces();
      last = read_id();
      if (last < first) {
        throw InputError(source, "reversed range " + std::to_string(first) + "-" +
                                     std::to_string(last) + "; write " + std::to_string(last) +
                                     "-" + std::to_string(first));
      }
      skip_spaces();
    }
    for (std::int64_t id = first; id <= last; ++id) ids.push_back(static_cast<Index>(id));
    expect_item = false;
    if (pos < n && text[pos] == ',') {
      ++pos;
      expect_item = true;
      skip_spaces();
      if (pos == n) break;
    } else if (pos < n && !is_digit(text[pos])) {
      throw InputError(source, "unexpected '" + std::string(1, text[pos]) + "' at position " +
                                   std::to_string(pos) + " near " + near(pos) +
                                   " (the list looks like '0-3,8,10-11')");
    }
  }
  if (expect_item) {
    throw InputError(source, ids.empty() ? "no leaf id given" : "the list ends with ','");
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool looks_like_path(const std::string& spec) {
  return spec.find('/') != std::string::npos ||
         (spec.size() >= 5 && spec.compare(spec.size() - 5, 5, ".bind") == 0);
}

}  // namespace

std::vector<Index> parse_cores_list(const std::string& spec, Index leaf_count) {
  std::error_code error;
  if (!spec.empty() && std::filesystem::is_regular_file(spec, error)) {
    std::ifstream file(spec, std::ios::binary);
    if (!file) throw InputError(spec, "cannot open the file");
    std::ostringstream content;
    content << file.rdbuf();
    if (file.bad()) throw InputError(spec, "cannot read the file");
    return parse_list(content.str(), leaf_count, spec);
  }
  if (looks_like_path(spec)) throw InputError(spec, "no such file");
  return parse_list(spec, leaf_count, "--cores");
}

}  // namespace treematch::io
