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

#include "io/input_error.h"
#include "io/matrix_text_reader.h"
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
    const Index n = header_.n;
    const std::size_t start = rows.targets.size();
    Index appended = 0;
    std::string_view line;
    while (!finished_ && appended < max_rows &&
           static_cast<Offset>(rows.targets.size() - start) < max_entries) {
      if (!lines_.next(line)) {
        finished_ = true;
        if (vertex_ != n) {
          throw InputError(path_, "wrong number of vertex lines: header says " + std::to_string(n) +
                                      " vertices, file has " + std::to_string(vertex_) +
                                      " vertex lines");
        }
        break;
      }
      if (is_comment(line)) continue;
      split(line, tokens_);
      if (vertex_ == n) {
        if (tokens_.empty()) continue;
        throw InputError(path_, "wrong number of vertex lines: header says " + std::to_string(n) +
                                    " vertices, line " + std::to_string(lines_.line_number()) +
                                    " is one more vertex line");
      }
      parse_vertex(rows);
      ++appended;
    }
    return appended;
  }

 private:
  void parse_vertex(kernels::Csr& rows) {
    const Index n = header_.n;
    const std::string where = "line " + std::to_string(lines_.line_number()) + " (vertex " +
                              std::to_string(static_cast<std::int64_t>(vertex_) + 1) + "): ";
    const auto skip = static_cast<std::size_t>(header_.skip);
    if (!tokens_.empty() && tokens_.size() < skip) {
      throw InputError(
          path_, where + "expected " + std::to_string(skip) + " vertex size/weight values first");
    }
    for (std::size_t k = 0; k < std::min(skip, tokens_.size()); ++k) {
      double ignored = 0.0;
      if (!parse_real(tokens_[k], ignored)) {
        throw InputError(
            path_, where + "vertex size/weight " + quoted_excerpt(tokens_[k]) + " is not a number");
      }
    }
    const std::size_t first = std::min(skip, tokens_.size());
    const std::size_t stride = header_.edge_weights ? 2 : 1;
    if ((tokens_.size() - first) % stride != 0) {
      throw InputError(path_, where + "neighbour " + quoted_excerpt(tokens_.back()) +
                                  " has no edge weight (the header's fmt asks for edge weights)");
    }
    row_.clear();
    for (std::size_t k = first; k < tokens_.size(); k += stride) {
      std::int64_t neighbour = 0;
      if (!parse_integer(tokens_[k], neighbour)) {
        throw InputError(path_,
                         where + "neighbour " + quoted_excerpt(tokens_[k]) + " is not an integer");
      }
      if (neighbour < 1 || neighbour > n) {
        throw InputError(path_, where + "neighbour " + std::to_string(neighbour) +
                                    " is out of range 1.." + std::to_string(n));
      }
      if (neighbour == static_cast<std::int64_t>(vertex_) + 1) {
        throw InputError(path_, where + "self loop: the vertex lists itself as a neighbour");
      }
      double weight = 1.0;
      if (header_.edge_weights && (!parse_real(tokens_[k + 1], weight) || weight <= 0.0)) {
        throw InputError(path_, where + "edge weight " + quoted_excerpt(tokens_[k + 1]) +
                                    " of neighbour " + std::to_string(neighbour) +
                                    " must be a positive number");
      }
      row_.emplace_back(static_cast<Index>(neighbour - 1), weight);
    }
    const auto by_neighbour = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(row_.begin(), row_.end(), by_neighbour))
      std::sort(row_.begin(), row_.end(), by_neighbour);
    for (std::size_t k = 0; k < row_.size(); ++k) {
      if (k > 0 && row_[k].first == row_[k - 1].first) {
        throw InputError(
            path_, where + "neighbour " + std::to_string(row_[k].first + 1) + " is listed twice");
      }
      rows.targets.push_back(row_[k].first);
      rows.weights.push_back(row_[k].second);
    }
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
    ++vertex_;
  }

  const std::string& path_;
  TextLines lines_;
  std::optional<std::uintmax_t> bytes_;  ///< the file's size (nothing for a pipe)
  Header header_;
  std::vector<std::string_view> tokens_;
  std::vector<std::pair<Index, Weight>> row_;
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

CommGraph read_metis_graph(const std::string& path, const OrderCheck& check) {
  MetisRowParser parser(path);
  if (check) check(parser.header().n);
  kernels::Csr rows;
  rows.n = parser.header().n;
  rows.offsets.reserve(parser.expected_offsets());
  while (!parser.finished()) {
    parser.append_rows(rows, std::numeric_limits<Index>::max(), std::numeric_limits<Offset>::max());
  }
  check_symmetric(path, rows.n, rows.offsets, rows.targets, rows.weights);
  check_edge_count(path, parser.header(), static_cast<Offset>(rows.targets.size()));
  return CommGraph::from_symmetric_csr(rows.n, std::move(rows.offsets), std::move(rows.targets),
                                       std::move(rows.weights));
}

std::unique_ptr<MatrixRowSource> open_metis_row_source(const std::string& path) {
  return std::make_unique<MetisRowSource>(path);
}

}  // namespace treematch::io
