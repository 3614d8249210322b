// Reads Scotch "tleaf" and "sub" architecture text, token by token, keeping track of lines.
#include "io/tleaf_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/input_error.h"

namespace treematch::io {

namespace {

// A level count above this is certainly a typo (hwloc itself stops at 128 levels).
constexpr std::int64_t kMaxLevels = 1024;
/// The largest link cost: distances are sums of a few of them, which must stay finite.
constexpr double kMaxLinkCost = 1e300;

struct Token {
  std::string_view text;
  int line = 0;  // 1-based
};

// Splits text into whitespace-separated words and remembers the line of each.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::optional<Token> next() {
    skip_space();
    if (pos_ >= text_.size()) return std::nullopt;
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    return Token{text_.substr(begin, pos_ - begin), line_};
  }

  std::optional<Token> peek() {
    Lexer copy = *this;
    return copy.next();
  }

 private:
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(std::string_view text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// Reads the body of a tleaf, after its keyword.
Topology parse_tleaf_body(Lexer& lexer, const std::string& source, const TopologyOptions& options) {
  const std::optional<Token> n_token = lexer.next();
  if (!n_token) throw InputError(source, "tleaf: missing the level count n");
  const std::optional<std::int64_t> n = parse_integer(n_token->text);
  if (!n || *n < 0 || *n > kMaxLevels) {
    throw InputError(source, "tleaf: the level count n is " + quoted_excerpt(n_token->text) +
                                 ", expected an integer in [0, " + std::to_string(kMaxLevels) +
                                 "]");
  }
  std::vector<TreeLevel> levels;
  int last_line = n_token->line;
  for (std::int64_t i = 0; i < *n; ++i) {
    const std::string level = "level " + std::to_string(i);
    const auto missing = [&](const char* what) {
      return InputError(source, "tleaf n=" + std::to_string(*n) + " needs " +
                                    std::to_string(2 * *n) +
                                    " numbers (arity and link cost per level) but the " + what +
                                    " of " + level + " is missing");
    };
    const std::optional<Token> arity_token = lexer.next();
    if (!arity_token) throw missing("arity");
    const std::optional<std::int64_t> arity = parse_integer(arity_token->text);
    if (!arity) {
      throw InputError(source, "tleaf: the arity of " + level + " is " +
                                   quoted_excerpt(arity_token->text) + ", expected an integer");
    }
    if (*arity < 1 || *arity > std::numeric_limits<Index>::max()) {
      throw InputError(source, "tleaf: the arity of " + level + " is " +
                                   std::string(arity_token->text) + "; arities must be >= 1");
    }
    const std::optional<Token> cost_token = lexer.next();
    if (!cost_token) throw missing("link cost");
    const std::optional<double> cost = parse_number(cost_token->text);
    if (!cost) {
      throw InputError(source, "tleaf: the link cost of " + level + " is " +
                                   quoted_excerpt(cost_token->text) + ", expected a number");
    }
    if (*cost < 0.0) {
      throw InputError(source, "tleaf: the link cost of " + level + " is " +
                                   std::string(cost_token->text) + "; costs must be >= 0");
    }
    // Distances add costs up: a level the job may never cross must still leave them finite.
    if (!(*cost <= kMaxLinkCost)) {
      throw InputError(source, "tleaf: the link cost of " + level + " is " +
                                   std::string(cost_token->text) + "; costs must be <= 1e300");
    }
    levels.push_back(TreeLevel{static_cast<Index>(*arity), *cost, level});
    last_line = cost_token->line;
  }
  // Topology drops arity-1 levels. The link of such a level lies on exactly the paths that also
  // cross the nearest branching level above it, so its cost moves there; above every branching
  // level it lies on no path between two leaves.
  std::size_t branching = levels.size();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].arity > 1) {
      branching = i;
    } else if (branching < levels.size()) {
      levels[branching].link_cost += levels[i].link_cost;
    }
  }
  // The definition ends with its line; anything else on that line means n is wrong.
  if (const std::optional<Token> extra = lexer.peek(); extra && extra->line == last_line) {
    throw InputError(source, "tleaf n=" + std::to_string(*n) + " is followed by more tokens (" +
                                 quoted_excerpt(extra->text) +
                                 "); n does not match the numbers given");
  }
  // A job needing fewer leaves than a huge description holds maps onto the part it needs.
  if (options.leaves_needed > 0) {
    levels = prefix_levels(std::move(levels), options.leaves_needed,
                           std::max<std::int64_t>(options.machine_leaves, 1));
  }
  try {
    return Topology(std::move(levels), {}, /*machine_level=*/0);
  } catch (const std::invalid_argument& error) {
    throw InputError(source, error.what());
  }
}

ConstrainedTopology parse_sub_body(Lexer& lexer, const std::string& source,
                                   TopologyOptions options) {
  const std::optional<Token> count_token = lexer.next();
  if (!count_token) throw InputError(source, "sub: missing the number of leaves");
  const std::optional<std::int64_t> count = parse_integer(count_token->text);
  if (!count || *count < 0) {
    throw InputError(source, "sub: the number of leaves is " + quoted_excerpt(count_token->text) +
                                 ", expected a non-negative integer");
  }
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < *count; ++i) {
    const std::optional<Token> token = lexer.next();
    if (!token) {
      throw InputError(source, "sub: announces " + std::to_string(*count) + " leaves but lists " +
                                   std::to_string(i));
    }
    const std::optional<std::int64_t> id = parse_integer(token->text);
    if (!id) {
      throw InputError(source, "sub: announces " + std::to_string(*count) + " leaves but lists " +
                                   std::to_string(i) + " before " + quoted_excerpt(token->text));
    }
    if (*id < 0) throw InputError(source, "sub: negative leaf id " + std::to_string(*id));
    // Refused before the tree is built: reading a tree that reaches it would cost what it says.
    if (*id >= kMaxLeaves) {
      throw InputError(source, "sub: leaf id " + std::to_string(*id) +
                                   " is beyond the largest tree treematch reads (" +
                                   std::to_string(kMaxLeaves) + " leaves)");
    }
    ids.push_back(*id);
  }
  const std::optional<Token> keyword = lexer.next();
  if (!keyword || keyword->text != "tleaf") {
    throw InputError(
        source, "sub: expected 'tleaf' after the " + std::to_string(*count) + " leaf ids, found " +
                    (keyword ? quoted_excerpt(keyword->text) : std::string("the end")) +
                    " (only tleaf architectures are supported inside sub)");
  }
  // The part of the tree read must hold every leaf the sub architecture names.
  if (options.leaves_needed > 0 && !ids.empty()) {
    options.leaves_needed =
        std::max(options.leaves_needed, *std::max_element(ids.begin(), ids.end()) + 1);
  }
  ConstrainedTopology result{parse_tleaf_body(lexer, source, options), {}};
  const Index leaves = result.topology.leaf_count();
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= leaves) {
      throw InputError(source, "sub: leaf " + std::to_string(ids[i]) + " is outside the tleaf (" +
                                   std::to_string(leaves) + " leaves)");
    }
    if (i > 0 && ids[i] == ids[i - 1]) {
      throw InputError(source, "sub: leaf " + std::to_string(ids[i]) + " is listed twice");
    }
    result.allowed.push_back(static_cast<Index>(ids[i]));
  }
  return result;
}

}  // namespace

bool is_scotch_architecture(std::string_view text) {
  Lexer lexer(text);
  const std::optional<Token> first = lexer.next();
  return first && (first->text == "tleaf" || first->text == "sub");
}

Topology parse_tleaf(std::string_view text, const std::string& source,
                     const TopologyOptions& options) {
  Lexer lexer(text);
  const std::optional<Token> keyword = lexer.next();
  if (!keyword || keyword->text != "tleaf") {
    throw InputError(source,
                     "expected 'tleaf n a0 c0 ...', found " +
                         (keyword ? quoted_excerpt(keyword->text) : std::string("nothing")));
  }
  return parse_tleaf_body(lexer, source, options);
}

ConstrainedTopology parse_scotch_architecture(std::string_view text, const std::string& source,
                                              const TopologyOptions& options) {
  Lexer lexer(text);
  const std::optional<Token> keyword = lexer.next();
  if (keyword && keyword->text == "tleaf") return {parse_tleaf_body(lexer, source, options), {}};
  if (keyword && keyword->text == "sub") return parse_sub_body(lexer, source, options);
  throw InputError(source, "expected a Scotch architecture starting with 'tleaf' or 'sub', found " +
                               (keyword ? quoted_excerpt(keyword->text) : std::string("nothing")));
}

ConstrainedTopology read_scotch_architecture_file(const std::string& path,
                                                  const TopologyOptions& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, "cannot open the file");
  std::ostringstream content;
  content << file.rdbuf();
  if (file.bad()) throw InputError(path, "cannot read the file");
  return parse_scotch_architecture(content.str(), path, options);
}

}  // namespace treematch::io
