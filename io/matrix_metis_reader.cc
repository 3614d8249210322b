// Reads a METIS graph file (as used by .APHiD task graphs) into the CommGraph model.
#include "io/matrix_metis_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "io/input_error.h"
#include "io/matrix_text_reader.h"
#include "kernels/parallel_tasks.h"
#include "kernels/utility.h"

namespace treematch::io {
namespace {

bool is_blank_char(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool is_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r\v\f");
  return first != std::string_view::npos && line[first] == '%';
}

/// Splits `line` at blanks into `tokens` (reused between lines).
void split(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  const char* p = line.data();
  const char* const end = p + line.size();
  while (true) {
    while (p != end && is_blank_char(*p)) ++p;
    if (p == end) return;
    const char* const token = p;
    while (p != end && !is_blank_char(*p)) ++p;
    tokens.emplace_back(token, static_cast<std::size_t>(p - token));
  }
}

bool parse_integer(std::string_view token, std::int64_t& value) {
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && ptr == token.data() + token.size();
}

bool parse_real(std::string_view token, double& value) {
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && ptr == token.data() + token.size() && std::isfinite(value);
}

/// The size of the file `path` in bytes, or nothing when it has none (a pipe).
std::optional<std::uintmax_t> regular_file_size(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return std::nullopt;
  return size;
}

/// What the header announces.
struct Header {
  Index n = 0;
  std::int64_t m = 0;
  int skip = 0;  ///< leading values per vertex line (vertex size and vertex weights) to skip
  bool edge_weights = false;
};

Header parse_header(const std::string& path, std::int64_t line_number,
                    const std::vector<std::string_view>& tokens) {
  const std::string where = "line " + std::to_string(line_number) + ": ";
  if (tokens.size() < 2 || tokens.size() > 4) {
    throw InputError(path, where + "METIS header must be \"n m [fmt [ncon]]\", found " +
                               std::to_string(tokens.size()) + " values");
  }
  std::int64_t n = 0;
  Header h;
  if (!parse_integer(tokens[0], n) || n < 0 || n > std::numeric_limits<Index>::max()) {
    throw InputError(path, where + "vertex count " + quoted_excerpt(tokens[0]) +
                               " in the header is not a valid count");
  }
  h.n = static_cast<Index>(n);
  if (!parse_integer(tokens[1], h.m) || h.m < 0) {
    throw InputError(path, where + "edge count " + quoted_excerpt(tokens[1]) +
                               " in the header is not a valid count");
  }
  std::string fmt = tokens.size() > 2 ? std::string(tokens[2]) : "000";
  if (fmt.empty() || fmt.size() > 3 || fmt.find_first_not_of("01") != std::string::npos) {
    throw InputError(path, where + "fmt " + quoted_excerpt(tokens[2]) +
                               " must be up to three 0/1 digits (e.g. 001, 011)");
  }
  fmt.insert(0, 3 - fmt.size(), '0');
  const bool vertex_sizes = fmt[0] == '1';
  const bool vertex_weights = fmt[1] == '1';
  h.edge_weights = fmt[2] == '1';
  std::int64_t ncon = 1;
  if (tokens.size() > 3 && (!parse_integer(tokens[3], ncon) || ncon < 1 || ncon > 1024)) {
    throw InputError(path, where + "ncon " + quoted_excerpt(tokens[3]) +
                               " must be a positive count of vertex weights");
  }
  h.skip = (vertex_sizes ? 1 : 0) + (vertex_weights ? static_cast<int>(ncon) : 0);
  if (h.n == 0) throw InputError(path, where + "header says 0 vertices: the graph has no ranks");
  return h;
}

/// Refuses counts the file cannot hold, before anything is sized from them: every vertex line
/// takes at least one byte, and every edge is listed twice, each time as a token followed by a
/// blank or a line end (but the file's last byte), so 2 x 2 x m - 1 bytes at least.
void check_header_fits(const std::string& path, const Header& h, std::uintmax_t bytes) {
  if (static_cast<std::uintmax_t>(h.n) > bytes) {
    throw InputError(path, "header says " + std::to_string(h.n) + " vertices but the file (" +
                               std::to_string(bytes) +
                               " bytes) cannot hold that many vertex lines");
  }
  const std::uintmax_t max_edges = (bytes + 1) / 4;
  if (static_cast<std::uintmax_t>(h.m) > max_edges) {
    throw InputError(path, "header says " + std::to_string(h.m) + " edges but the file (" +
                               std::to_string(bytes) + " bytes) can hold at most " +
                               std::to_string(max_edges));
  }
}

/// Checks that every edge u->v has its reverse v->u with the same weight (rows sorted), naming the
/// vertices (1-based) of the first offending edge. A cursor per row walks that row as the rows are
/// visited in order: row v's neighbours below u must already have been matched by earlier rows.
void check_symmetric(const std::string& path, Index n, const std::vector<Offset>& offsets,
                     const std::vector<Index>& targets, const std::vector<Weight>& weights) {
  const auto missing = [&](Index u, Index v) {
    throw InputError(path, "asymmetric graph: vertex " + std::to_string(u + 1) +
                               " lists neighbour " + std::to_string(v + 1) + " but vertex " +
                               std::to_string(v + 1) + " does not list " + std::to_string(u + 1));
  };
  std::vector<Offset> cursor(offsets.begin(), offsets.end() - 1);
  for (Index u = 0; u < n; ++u) {
    for (Offset e = offsets[static_cast<std::size_t>(u)];
         e < offsets[static_cast<std::size_t>(u) + 1]; ++e) {
      const Index v = targets[static_cast<std::size_t>(e)];
      Offset& c = cursor[static_cast<std::size_t>(v)];
      const Offset v_end = offsets[static_cast<std::size_t>(v) + 1];
      if (c != v_end && targets[static_cast<std::size_t>(c)] < u)
        missing(v, targets[static_cast<std::size_t>(c)]);
      if (c == v_end || targets[static_cast<std::size_t>(c)] != u) missing(u, v);
      const Weight w_uv = weights[static_cast<std::size_t>(e)];
      const Weight w_vu = weights[static_cast<std::size_t>(c)];
      if (w_uv != w_vu) {
        throw InputError(path, "asymmetric graph: edge " + std::to_string(u + 1) + "-" +
                                   std::to_string(v + 1) + " has weight " +
                                   fmt::format("{}", w_uv) + " but edge " + std::to_string(v + 1) +
                                   "-" + std::to_string(u + 1) + " has weight " +
                                   fmt::format("{}", w_vu));
      }
      ++c;
    }
  }
  for (Index v = 0; v < n; ++v) {
    const Offset c = cursor[static_cast<std::size_t>(v)];
    if (c != offsets[static_cast<std::size_t>(v) + 1])
      missing(v, targets[static_cast<std::size_t>(c)]);
  }
}

/// The checks and the row of one vertex line: shared by the line-by-line reading and the
/// parallel one, which then give the same rows and throw the same first error.
class VertexRows {
 public:
  VertexRows(const std::string& path, const Header& header) : path_(path), header_(header) {}

  /// Takes one line of the vertex section, vertex `vertex` if it were a vertex line: a comment,
  /// or a blank line after the header's count of vertices, is skipped; one more vertex line than
  /// that count is an error. Returns whether it appended a row to `rows`.
  bool add_line(std::string_view line, std::int64_t line_number, Index vertex, kernels::Csr& rows) {
    if (is_comment(line)) return false;
    if (vertex < header_.n && add_plain(line, vertex, rows)) return true;
    split(line, tokens_);
    if (vertex >= header_.n) {
      if (tokens_.empty()) return false;
      throw InputError(path_, "wrong number of vertex lines: header says " +
                                  std::to_string(header_.n) + " vertices, line " +
                                  std::to_string(line_number) + " is one more vertex line");
    }
    add(tokens_, line_number, vertex, rows);
    return true;
  }

  /// The common line, read without tokens: integer values, neighbours in increasing order and in
  /// range. Anything else (an error, a real weight, an unsorted row) returns false with `rows` as
  /// it was, for add() to read the line again: it finds the same first error either way.
  bool add_plain(std::string_view line, Index vertex, kernels::Csr& rows) {
    const char* p = line.data();
    const char* const end = p + line.size();
    const std::size_t row_start = rows.targets.size();
    const auto give_up = [&] {
      rows.targets.resize(row_start);
      rows.weights.resize(row_start);
      return false;
    };
    // The next token as an integer of up to 15 digits (an exact double), or -1.
    const auto plain_integer = [&]() -> std::int64_t {
      while (p != end && is_blank_char(*p)) ++p;
      const char* const first = p;
      std::int64_t value = 0;
      while (p != end && *p >= '0' && *p <= '9' && p - first < 15)
        value = value * 10 + (*p++ - '0');
      if (p == first || (p != end && !is_blank_char(*p))) return -1;
      return value;
    };
    for (int k = 0; k < header_.skip; ++k) {
      if (plain_integer() < 0) return give_up();
    }
    while (true) {
      while (p != end && is_blank_char(*p)) ++p;
      if (p == end) break;
      const std::int64_t neighbour = plain_integer();
      if (neighbour < 1 || neighbour > header_.n || neighbour == std::int64_t{vertex} + 1)
        return give_up();
      const auto target = static_cast<Index>(neighbour - 1);
      if (rows.targets.size() > row_start && target <= rows.targets.back()) return give_up();
      std::int64_t weight = 1;
      if (header_.edge_weights) {
        weight = plain_integer();
        if (weight <= 0) return give_up();
      }
      rows.targets.push_back(target);
      rows.weights.push_back(static_cast<Weight>(weight));
    }
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
    return true;
  }

  /// Appends vertex `vertex`'s row (0-based), from the tokens of line `line_number`, to `rows`.
  void add(const std::vector<std::string_view>& tokens, std::int64_t line_number, Index vertex,
           kernels::Csr& rows) {
    const Index n = header_.n;
    // Built only for an error message: most files have none, and a string per line is a third
    // of the parse.
    const auto where = [&] {
      return "line " + std::to_string(line_number) + " (vertex " +
             std::to_string(static_cast<std::int64_t>(vertex) + 1) + "): ";
    };
    const auto skip = static_cast<std::size_t>(header_.skip);
    if (!tokens.empty() && tokens.size() < skip) {
      throw InputError(
          path_, where() + "expected " + std::to_string(skip) + " vertex size/weight values first");
    }
    for (std::size_t k = 0; k < std::min(skip, tokens.size()); ++k) {
      double ignored = 0.0;
      if (!parse_real(tokens[k], ignored)) {
        throw InputError(path_, where() + "vertex size/weight " + quoted_excerpt(tokens[k]) +
                                    " is not a number");
      }
    }
    const std::size_t first = std::min(skip, tokens.size());
    const std::size_t stride = header_.edge_weights ? 2 : 1;
    if ((tokens.size() - first) % stride != 0) {
      throw InputError(path_, where() + "neighbour " + quoted_excerpt(tokens.back()) +
                                  " has no edge weight (the header's fmt asks for edge weights)");
    }
    // Entries go straight into `rows`; a row listed out of order is sorted there afterwards.
    const std::size_t row_start = rows.targets.size();
    bool sorted = true;
    for (std::size_t k = first; k < tokens.size(); k += stride) {
      std::int64_t neighbour = 0;
      if (!parse_integer(tokens[k], neighbour)) {
        throw InputError(path_,
                         where() + "neighbour " + quoted_excerpt(tokens[k]) + " is not an integer");
      }
      if (neighbour < 1 || neighbour > n) {
        throw InputError(path_, where() + "neighbour " + std::to_string(neighbour) +
                                    " is out of range 1.." + std::to_string(n));
      }
      if (neighbour == static_cast<std::int64_t>(vertex) + 1) {
        throw InputError(path_, where() + "self loop: the vertex lists itself as a neighbour");
      }
      double weight = 1.0;
      if (header_.edge_weights && (!parse_real(tokens[k + 1], weight) || weight <= 0.0)) {
        throw InputError(path_, where() + "edge weight " + quoted_excerpt(tokens[k + 1]) +
                                    " of neighbour " + std::to_string(neighbour) +
                                    " must be a positive number");
      }
      const auto target = static_cast<Index>(neighbour - 1);
      if (rows.targets.size() > row_start && target < rows.targets.back()) sorted = false;
      rows.targets.push_back(target);
      rows.weights.push_back(weight);
    }
    if (!sorted) sort_row(rows, row_start);
    for (std::size_t e = row_start + 1; e < rows.targets.size(); ++e) {
      if (rows.targets[e] == rows.targets[e - 1]) {
        throw InputError(path_, where() + "neighbour " + std::to_string(rows.targets[e] + 1) +
                                    " is listed twice");
      }
    }
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
  }

 private:
  /// Sorts the entries of `rows` from `row_start` on by neighbour (a stable sort: of a neighbour
  /// listed twice, both copies stay for the duplicate check).
  void sort_row(kernels::Csr& rows, std::size_t row_start) {
    row_.clear();
    for (std::size_t e = row_start; e < rows.targets.size(); ++e)
      row_.emplace_back(rows.targets[e], rows.weights[e]);
    std::stable_sort(row_.begin(), row_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row_.size(); ++k) {
      rows.targets[row_start + k] = row_[k].first;
      rows.weights[row_start + k] = row_[k].second;
    }
  }

  const std::string& path_;
  const Header& header_;
  std::vector<std::string_view> tokens_;
  std::vector<std::pair<Index, Weight>> row_;
};

/// Calls visit(line) for each line of `text` (lines end with '\n', the last one maybe not),
/// without its '\n' or a trailing '\r', as TextLines::next gives them.
template <class Visit>
void for_each_line(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    visit(line);
  }
}

/// `text` cut into about `count` pieces of whole lines.
std::vector<std::string_view> split_lines(std::string_view text, std::size_t count) {
  std::vector<std::string_view> pieces;
  const std::size_t size = text.size() / count + 1;
  while (!text.empty()) {
    const std::size_t end = text.size() <= size ? std::string_view::npos : text.find('\n', size);
    const std::size_t length = end == std::string_view::npos ? text.size() : end + 1;
    pieces.push_back(text.substr(0, length));
    text.remove_prefix(length);
  }
  return pieces;
}

/// Reads the header, then the vertex lines a block at a time (everything but the symmetry and
/// edge-count checks, which need all rows).
class MetisRowParser {
 public:
  explicit MetisRowParser(const std::string& path)
      : path_(path), lines_(path), bytes_(regular_file_size(path)) {
    std::string_view line;
    bool found_header = false;
    while (lines_.next(line)) {
      if (lines_.line_number() == 1 && line.substr(0, 3) == "\xEF\xBB\xBF")
        line.remove_prefix(3);  // UTF-8 BOM
      if (is_comment(line)) continue;
      split(line, tokens_);
      if (tokens_.empty()) continue;
      found_header = true;
      break;
    }
    if (!found_header) throw InputError(path_, "empty file: no METIS header \"n m [fmt [ncon]]\"");
    header_ = parse_header(path_, lines_.line_number(), tokens_);
    if (bytes_) check_header_fits(path_, header_, *bytes_);
  }

  [[nodiscard]] const Header& header() const { return header_; }
  /// Entries (2 m) to reserve: the header's, once known to fit the file; 0 for a pipe.
  [[nodiscard]] Offset expected_entries() const { return bytes_ ? 2 * header_.m : 0; }
  /// Row offsets to reserve: n + 1 once known to fit the file; a block's worth for a pipe.
  [[nodiscard]] std::size_t expected_offsets() const {
    const auto rows = static_cast<std::size_t>(header_.n) + 1;
    return bytes_ ? rows : std::min<std::size_t>(rows, static_cast<std::size_t>(kRowBlockRows));
  }
  [[nodiscard]] bool finished() const { return finished_; }

  /// Appends up to `max_rows` vertex rows (or until `max_entries`); after the last vertex line it
  /// reads on to the end of the file and checks the number of vertex lines.
  Index append_rows(kernels::Csr& rows, Index max_rows, Offset max_entries) {
    const std::size_t start = rows.targets.size();
    Index appended = 0;
    std::string_view line;
    while (!finished_ && appended < max_rows &&
           static_cast<Offset>(rows.targets.size() - start) < max_entries) {
      if (!lines_.next(line)) {
        finished_ = true;
        check_vertex_lines();
        break;
      }
      if (vertex_rows_.add_line(line, lines_.line_number(), vertex_, rows)) {
        ++vertex_;
        ++appended;
      }
    }
    return appended;
  }

  /// Appends every vertex row, as append_rows does, but reads the file a buffer of whole lines at
  /// a time and parses each buffer in pieces by parallel tasks: counted first (lines and vertex
  /// lines before each piece), then parsed, then joined in order. A failing piece's error is the
  /// first in the file, as the tasks rethrow the lowest piece's.
  void append_all_rows(kernels::Csr& rows) {
    std::string_view text;
    while (true) {
      const std::int64_t first_line = lines_.line_number() + 1;
      if (!lines_.next_lines(text)) break;
      append_lines(text, first_line, rows);
    }
    finished_ = true;
    check_vertex_lines();
  }

 private:
  void check_vertex_lines() const {
    if (vertex_ != header_.n) {
      throw InputError(path_, "wrong number of vertex lines: header says " +
                                  std::to_string(header_.n) + " vertices, file has " +
                                  std::to_string(vertex_) + " vertex lines");
    }
  }

  /// The lines of `text`, the first numbered `first_line`, parsed by pieces into `rows`.
  void append_lines(std::string_view text, std::int64_t first_line, kernels::Csr& rows) {
    constexpr std::size_t kPieceBytes = std::size_t{256} << 10;  // enough work for a task
    const std::size_t tasks = 4 * static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
    const std::vector<std::string_view> pieces =
        split_lines(text, std::clamp<std::size_t>(text.size() / kPieceBytes, 1, tasks));
    struct Piece {
      std::int64_t lines = 0;
      Index vertex_lines = 0;  ///< lines that are not comments
      kernels::Csr rows;
    };
    std::vector<Piece> parsed(pieces.size());
    kernels::parallel_for_all(pieces.size(), [&](std::size_t p) {
      for_each_line(pieces[p], [&](std::string_view line) {
        ++parsed[p].lines;
        if (!is_comment(line)) ++parsed[p].vertex_lines;
      });
    });
    std::vector<std::int64_t> line_of(pieces.size(), first_line);
    std::vector<Index> vertex_of(pieces.size(), vertex_);
    for (std::size_t p = 1; p < pieces.size(); ++p) {
      line_of[p] = line_of[p - 1] + parsed[p - 1].lines;
      vertex_of[p] = static_cast<Index>(std::min<std::int64_t>(
          std::int64_t{vertex_of[p - 1]} + parsed[p - 1].vertex_lines, header_.n));
    }
    kernels::parallel_for_all(pieces.size(), [&](std::size_t p) {
      // The header's entries per byte of the file, as a guess of the piece's: one allocation.
      if (bytes_) {
        const auto guess = static_cast<std::size_t>(
            static_cast<double>(expected_entries()) * static_cast<double>(pieces[p].size()) /
            static_cast<double>(std::max<std::uintmax_t>(1, *bytes_)) * 1.05);
        parsed[p].rows.targets.reserve(guess);
        parsed[p].rows.weights.reserve(guess);
      }
      VertexRows vertex_rows(path_, header_);
      std::int64_t line_number = line_of[p];
      Index vertex = vertex_of[p];
      for_each_line(pieces[p], [&](std::string_view line) {
        if (vertex_rows.add_line(line, line_number++, vertex, parsed[p].rows)) ++vertex;
      });
    });
    // Joined in order: the offsets here, the entries copied by the pieces' tasks.
    std::vector<std::size_t> first_entry(pieces.size() + 1, rows.targets.size());
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      const kernels::Csr& piece = parsed[p].rows;
      const auto base = static_cast<Offset>(first_entry[p]);
      for (auto end = piece.offsets.begin() + 1; end != piece.offsets.end(); ++end)
        rows.offsets.push_back(base + *end);
      first_entry[p + 1] = first_entry[p] + piece.targets.size();
      vertex_ += static_cast<Index>(piece.offsets.size()) - 1;
    }
    rows.targets.resize(first_entry.back());
    rows.weights.resize(first_entry.back());
    kernels::parallel_for_all(pieces.size(), [&](std::size_t p) {
      kernels::Csr piece = std::move(parsed[p].rows);
      std::copy(piece.targets.begin(), piece.targets.end(),
                rows.targets.begin() + static_cast<std::ptrdiff_t>(first_entry[p]));
      std::copy(piece.weights.begin(), piece.weights.end(),
                rows.weights.begin() + static_cast<std::ptrdiff_t>(first_entry[p]));
    });
  }

  const std::string& path_;
  TextLines lines_;
  std::optional<std::uintmax_t> bytes_;  ///< the file's size (nothing for a pipe)
  Header header_;
  std::vector<std::string_view> tokens_;  ///< the header's
  VertexRows vertex_rows_{path_, header_};
  Index vertex_ = 0;  ///< 0-based vertex of the next vertex line
  bool finished_ = false;
};

void check_edge_count(const std::string& path, const Header& header, Offset stored_entries) {
  const auto edges = static_cast<std::int64_t>(stored_entries / 2);
  if (edges != header.m) {
    throw InputError(path, "wrong edge count: header says " + std::to_string(header.m) +
                               " edges, file has " + std::to_string(edges));
  }
}

/// Streams the vertex rows. Symmetry is checked by a fingerprint: every entry (u, v, w) adds
/// hash({u, v}, w) when u < v and subtracts it when u > v (mod 2^64), so a symmetric graph sums to
/// exactly 0 and an asymmetric one to 0 only with probability ~2^-64. On a non-zero sum the file
/// is read again in full by read_metis_graph, whose exact check names the offending edge.
class MetisRowSource final : public MatrixRowSource {
 public:
  explicit MetisRowSource(const std::string& path) : path_(path), parser_(path_) {}

  [[nodiscard]] Index size() const override { return parser_.header().n; }
  [[nodiscard]] Offset expected_entries() const override { return parser_.expected_entries(); }

  Index append_rows(kernels::Csr& rows) override {
    if (parser_.finished()) return 0;
    const std::size_t first_offset = rows.offsets.size() - 1;
    const Index appended = parser_.append_rows(rows, kRowBlockRows, kRowBlockEntries);
    for (Index r = 0; r < appended; ++r) {
      const Index u = next_row_++;
      const auto k = first_offset + static_cast<std::size_t>(r);
      for (auto e = static_cast<std::size_t>(rows.offsets[k]);
           e < static_cast<std::size_t>(rows.offsets[k + 1]); ++e) {
        const Index v = rows.targets[e];
        const auto low = static_cast<std::uint64_t>(std::min(u, v));
        const auto high = static_cast<std::uint64_t>(std::max(u, v));
        const std::uint64_t h = kernels::splitmix64(kernels::splitmix64((low << 32) | high) ^
                                                    std::bit_cast<std::uint64_t>(rows.weights[e]));
        fingerprint_ += u < v ? h : 0 - h;
      }
      entries_ += rows.offsets[k + 1] - rows.offsets[k];
    }
    if (parser_.finished()) {
      if (fingerprint_ != 0) {
        static_cast<void>(read_metis_graph(path_));  // throws, naming the edge
        throw InputError(path_, "asymmetric graph: an edge has no reverse of the same weight");
      }
      check_edge_count(path_, parser_.header(), entries_);
    }
    return appended;
  }

 private:
  std::string path_;
  MetisRowParser parser_;
  Index next_row_ = 0;
  Offset entries_ = 0;
  std::uint64_t fingerprint_ = 0;
};

}  // namespace

CommGraph read_metis_graph(const std::string& path, const HeaderCheck& check) {
  MetisRowParser parser(path);
  if (check) check(MatrixHeader{parser.header().n, 2 * parser.header().m});
  kernels::Csr rows;
  rows.n = parser.header().n;
  rows.offsets.reserve(parser.expected_offsets());
  rows.targets.reserve(static_cast<std::size_t>(parser.expected_entries()));
  rows.weights.reserve(static_cast<std::size_t>(parser.expected_entries()));
  parser.append_all_rows(rows);
  check_symmetric(path, rows.n, rows.offsets, rows.targets, rows.weights);
  check_edge_count(path, parser.header(), static_cast<Offset>(rows.targets.size()));
  return CommGraph::from_symmetric_csr(rows.n, std::move(rows.offsets), std::move(rows.targets),
                                       std::move(rows.weights));
}

std::unique_ptr<MatrixRowSource> open_metis_row_source(const std::string& path) {
  return std::make_unique<MetisRowSource>(path);
}

}  // namespace treematch::io
