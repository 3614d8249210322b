// Reads a METIS graph file (as used by .APHiD task graphs) into the CommGraph model.
#include "io/matrix_metis_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/input_error.h"
#include "io/matrix_text_reader.h"

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

std::string quote(std::string_view token) {
  return "'" + std::string(token.substr(0, 32)) + (token.size() > 32 ? "...'" : "'");
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
    throw InputError(
        path, where + "vertex count " + quote(tokens[0]) + " in the header is not a valid count");
  }
  h.n = static_cast<Index>(n);
  if (!parse_integer(tokens[1], h.m) || h.m < 0) {
    throw InputError(
        path, where + "edge count " + quote(tokens[1]) + " in the header is not a valid count");
  }
  std::string fmt = tokens.size() > 2 ? std::string(tokens[2]) : "000";
  if (fmt.empty() || fmt.size() > 3 || fmt.find_first_not_of("01") != std::string::npos) {
    throw InputError(path, where + "fmt " + quote(tokens[2]) +
                               " must be up to three 0/1 digits (e.g. 001, 011)");
  }
  fmt.insert(0, 3 - fmt.size(), '0');
  const bool vertex_sizes = fmt[0] == '1';
  const bool vertex_weights = fmt[1] == '1';
  h.edge_weights = fmt[2] == '1';
  std::int64_t ncon = 1;
  if (tokens.size() > 3 && (!parse_integer(tokens[3], ncon) || ncon < 1 || ncon > 1024)) {
    throw InputError(
        path, where + "ncon " + quote(tokens[3]) + " must be a positive count of vertex weights");
  }
  h.skip = (vertex_sizes ? 1 : 0) + (vertex_weights ? static_cast<int>(ncon) : 0);
  return h;
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

}  // namespace

CommGraph read_metis_graph(const std::string& path) {
  TextLines lines(path);
  std::string_view line;
  std::vector<std::string_view> tokens;

  bool found_header = false;
  while (lines.next(line)) {
    if (is_comment(line)) continue;
    split(line, tokens);
    if (tokens.empty()) continue;
    found_header = true;
    break;
  }
  if (!found_header) throw InputError(path, "empty file: no METIS header \"n m [fmt [ncon]]\"");
  const Header header = parse_header(path, lines.line_number(), tokens);
  const Index n = header.n;

  std::vector<Offset> offsets{0};
  offsets.reserve(static_cast<std::size_t>(n) + 1);
  std::vector<Index> targets;
  std::vector<Weight> weights;
  std::vector<std::pair<Index, Weight>> row;
  Index vertex = 0;  // 0-based vertex of the next vertex line
  while (lines.next(line)) {
    if (is_comment(line)) continue;
    split(line, tokens);
    const std::string where = "line " + std::to_string(lines.line_number()) + " (vertex " +
                              std::to_string(static_cast<std::int64_t>(vertex) + 1) + "): ";
    if (vertex == n) {
      if (tokens.empty()) continue;
      throw InputError(path, "wrong number of vertex lines: header says " + std::to_string(n) +
                                 " vertices, line " + std::to_string(lines.line_number()) +
                                 " is one more vertex line");
    }
    const std::size_t skip = static_cast<std::size_t>(header.skip);
    if (!tokens.empty() && tokens.size() < skip) {
      throw InputError(
          path, where + "expected " + std::to_string(skip) + " vertex size/weight values first");
    }
    for (std::size_t k = 0; k < std::min(skip, tokens.size()); ++k) {
      double ignored = 0.0;
      if (!parse_real(tokens[k], ignored)) {
        throw InputError(path,
                         where + "vertex size/weight " + quote(tokens[k]) + " is not a number");
      }
    }
    const std::size_t first = std::min(skip, tokens.size());
    const std::size_t stride = header.edge_weights ? 2 : 1;
    if ((tokens.size() - first) % stride != 0) {
      throw InputError(path, where + "neighbour " + quote(tokens.back()) +
                                 " has no edge weight (the header's fmt asks for edge weights)");
    }
    row.clear();
    for (std::size_t k = first; k < tokens.size(); k += stride) {
      std::int64_t neighbour = 0;
      if (!parse_integer(tokens[k], neighbour)) {
        throw InputError(path, where + "neighbour " + quote(tokens[k]) + " is not an integer");
      }
      if (neighbour < 1 || neighbour > n) {
        throw InputError(path, where + "neighbour " + std::to_string(neighbour) +
                                   " is out of range 1.." + std::to_string(n));
      }
      if (neighbour == static_cast<std::int64_t>(vertex) + 1) {
        throw InputError(path, where + "self loop: the vertex lists itself as a neighbour");
      }
      double weight = 1.0;
      if (header.edge_weights && (!parse_real(tokens[k + 1], weight) || weight <= 0.0)) {
        throw InputError(path, where + "edge weight " + quote(tokens[k + 1]) + " of neighbour " +
                                   std::to_string(neighbour) + " must be a positive number");
      }
      row.emplace_back(static_cast<Index>(neighbour - 1), weight);
    }
    const auto by_neighbour = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(row.begin(), row.end(), by_neighbour))
      std::sort(row.begin(), row.end(), by_neighbour);
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {
        throw InputError(
            path, where + "neighbour " + std::to_string(row[k].first + 1) + " is listed twice");
      }
      targets.push_back(row[k].first);
      weights.push_back(row[k].second);
    }
    offsets.push_back(static_cast<Offset>(targets.size()));
    ++vertex;
  }
  if (vertex != n) {
    throw InputError(path, "wrong number of vertex lines: header says " + std::to_string(n) +
                               " vertices, file has " + std::to_string(vertex) + " vertex lines");
  }
  check_symmetric(path, n, offsets, targets, weights);
  const auto edges = static_cast<std::int64_t>(targets.size() / 2);
  if (edges != header.m) {
    throw InputError(path, "wrong edge count: header says " + std::to_string(header.m) +
                               " edges, file has " + std::to_string(edges));
  }
  return CommGraph::from_symmetric_csr(n, std::move(offsets), std::move(targets),
                                       std::move(weights));
}

}  // namespace treematch::io
