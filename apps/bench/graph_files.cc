// Dense, METIS and Scotch graph writers, the uniform tleaf target and Scotch's map reader.
#include "apps/bench/graph_files.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace treematch::bench {
namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

/// Buffered text output that throws on any failure, including the final close.
class TextOut {
 public:
  explicit TextOut(std::string path)
      : path_(std::move(path)), file_(std::fopen(path_.c_str(), "w")) {
    if (!file_) throw std::runtime_error(path_ + ": cannot create: " + std::strerror(errno));
  }

  void append(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushBytes) flush();
  }

  void append_number(double value) {
    std::array<char, 32> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc()) throw std::runtime_error(path_ + ": cannot format a weight");
    append(std::string_view(digits.data(), static_cast<std::size_t>(end - digits.data())));
  }

  void append_integer(long long value) {
    std::array<char, 24> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc()) throw std::runtime_error(path_ + ": cannot format an integer");
    append(std::string_view(digits.data(), static_cast<std::size_t>(end - digits.data())));
  }

  /// Writes what is left and closes; throws if anything failed.
  void close() {
    flush();
    std::FILE* file = file_.release();
    if (std::fclose(file) != 0)
      throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 20;

  void flush() {
    if (!buffer_.empty() &&
        std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size()) {
      throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
    }
    buffer_.clear();
  }

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::string buffer_;
};

}  // namespace

void write_dense_matrix(const std::string& path, const CommGraph& graph) {
  const kernels::CsrView csr = graph.view();
  const double scale = graph.cost_scale();
  TextOut out(path);
  for (Index i = 0; i < csr.n; ++i) {
    Offset e = csr.row_begin(i);
    for (Index j = 0; j < csr.n; ++j) {
      if (j > 0) out.append(" ");
      if (e < csr.row_end(i) && csr.targets[static_cast<std::size_t>(e)] == j) {
        out.append_number(csr.weights[static_cast<std::size_t>(e)] * scale);
        ++e;
      } else {
        out.append("0");
      }
    }
    out.append("\n");
  }
  out.close();
}

void write_metis_graph(const std::string& path, const CommGraph& graph) {
  const kernels::CsrView csr = graph.view();
  const double scale = graph.cost_scale();
  TextOut out(path);
  out.append_integer(csr.n);
  out.append(" ");
  out.append_integer(graph.nnz() / 2);
  out.append(" 001\n");
  for (Index i = 0; i < csr.n; ++i) {
    for (Offset e = csr.row_begin(i); e < csr.row_end(i); ++e) {
      if (e > csr.row_begin(i)) out.append(" ");
      out.append_integer(csr.targets[static_cast<std::size_t>(e)] + 1LL);
      out.append(" ");
      out.append_number(csr.weights[static_cast<std::size_t>(e)] * scale);
    }
    out.append("\n");
  }
  out.close();
}

namespace {

/// Scotch's integer loads for weights summing to `sum`: as they are when all are integers within
/// kScotchLoadSumLimit, else scaled so that they sum to the limit.
ScotchWeights scotch_scaling(double sum, bool integers) {
  ScotchWeights info;
  const double limit = static_cast<double>(kScotchLoadSumLimit);
  if (!integers || sum > limit) {
    info.scale = sum > 0.0 ? limit / sum : 1.0;
    info.exact = false;
  }
  return info;
}

/// The .grf text, vertex by vertex; counts the loads into `info`.
class ScotchGraphOut {
 public:
  ScotchGraphOut(const std::string& path, Index n, long long arcs, ScotchWeights& info)
      : out_(path), info_(info) {
    out_.append("0\n");
    out_.append_integer(n);
    out_.append(" ");
    out_.append_integer(arcs);
    out_.append("\n0 010\n");
  }
  void vertex(long long degree) {
    if (started_) out_.append("\n");
    started_ = true;
    out_.append_integer(degree);
  }
  void arc(Weight weight, Index target) {
    long long load = static_cast<long long>(std::round(weight * info_.scale));
    if (load < 1) {
      load = 1;
      ++info_.clamped;
    }
    info_.load_sum += load;
    out_.append(" ");
    out_.append_integer(load);
    out_.append(" ");
    out_.append_integer(target);
  }
  void close() {
    if (started_) out_.append("\n");
    out_.close();
  }

 private:
  TextOut out_;
  ScotchWeights& info_;
  bool started_ = false;
};

}  // namespace

ScotchWeights write_scotch_graph(const std::string& path, const CommGraph& graph) {
  const kernels::CsrView csr = graph.view();
  double sum = 0.0;
  bool integers = true;
  for (const Weight w : csr.weights) {
    sum += w;
    integers = integers && w == std::floor(w);
  }
  ScotchWeights info = scotch_scaling(sum, integers);
  ScotchGraphOut out(path, csr.n, graph.nnz(), info);
  for (Index i = 0; i < csr.n; ++i) {
    out.vertex(csr.row_end(i) - csr.row_begin(i));
    for (Offset e = csr.row_begin(i); e < csr.row_end(i); ++e)
      out.arc(csr.weights[static_cast<std::size_t>(e)], csr.targets[static_cast<std::size_t>(e)]);
  }
  out.close();
  return info;
}

ScotchWeights write_scotch_graph_dense(const std::string& path, Index n, const DenseRowFill& fill) {
  std::vector<double> row(static_cast<std::size_t>(std::max<Index>(n, 0)));
  double sum = 0.0;
  bool integers = true;
  long long arcs = 0;
  for (Index i = 0; i < n; ++i) {
    fill(i, row);
    for (Index j = 0; j < n; ++j) {
      const double w = row[static_cast<std::size_t>(j)];
      if (j == i || w == 0.0) continue;
      sum += w;
      integers = integers && w == std::floor(w);
      ++arcs;
    }
  }
  ScotchWeights info = scotch_scaling(sum, integers);
  ScotchGraphOut out(path, n, arcs, info);
  for (Index i = 0; i < n; ++i) {
    fill(i, row);
    long long degree = 0;
    for (Index j = 0; j < n; ++j) degree += (j != i && row[static_cast<std::size_t>(j)] != 0.0);
    out.vertex(degree);
    for (Index j = 0; j < n; ++j) {
      if (j != i && row[static_cast<std::size_t>(j)] != 0.0)
        out.arc(row[static_cast<std::size_t>(j)], j);
    }
  }
  out.close();
  return info;
}

std::string scotch_tleaf(const Topology& topology) {
  if (topology.depth() == 0) {
    throw std::invalid_argument("a one-leaf topology has no Scotch tleaf equivalent");
  }
  constexpr double kLargest = 1e6;
  double largest = 0.0;
  bool integral = true;
  for (const TreeLevel& level : topology.levels()) {
    largest = std::max(largest, level.link_cost);
    integral = integral && level.link_cost == std::round(level.link_cost);
  }
  const double scale = integral && largest <= kLargest ? 1.0
                       : largest > 0                   ? kLargest / largest
                                                       : 1.0;
  std::string text = "tleaf " + std::to_string(topology.depth());
  for (const TreeLevel& level : topology.levels()) {
    const double cost = std::round(level.link_cost * scale);
    const auto written = static_cast<long long>(cost == 0.0 && level.link_cost > 0.0 ? 1.0 : cost);
    text += ' ' + std::to_string(level.arity) + ' ' + std::to_string(written);
  }
  return text;
}

ScotchMapping read_scotch_mapping(const std::string& path, Index vertices, Index terminals) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open Scotch's mapping");
  long long count = -1;
  if (!(in >> count) || count != vertices) {
    throw std::runtime_error(path + ": expected a count of " + std::to_string(vertices) +
                             " mapped vertices first, got " + std::to_string(count));
  }
  ScotchMapping result;
  result.mapping.leaf_of_rank.assign(static_cast<std::size_t>(vertices), -1);
  std::vector<Index> load(static_cast<std::size_t>(terminals), 0);
  for (long long k = 0; k < count; ++k) {
    long long vertex = -1;
    long long terminal = -1;
    if (!(in >> vertex >> terminal)) {
      throw std::runtime_error(path + ": line " + std::to_string(k + 2) +
                               " is not \"<vertex> <terminal>\"");
    }
    if (vertex < 0 || vertex >= vertices || terminal < 0 || terminal >= terminals) {
      throw std::runtime_error(path + ": vertex " + std::to_string(vertex) + " -> terminal " +
                               std::to_string(terminal) + " is out of range");
    }
    Index& slot = result.mapping.leaf_of_rank[static_cast<std::size_t>(vertex)];
    if (slot >= 0)
      throw std::runtime_error(path + ": vertex " + std::to_string(vertex) + " is mapped twice");
    slot = static_cast<Index>(terminal);
    Index& here = load[static_cast<std::size_t>(terminal)];
    if (++here == 2) ++result.overloaded_leaves;
    result.max_load = std::max(result.max_load, here);
  }
  return result;
}

void write_text_file(const std::string& path, const std::string& text) {
  TextOut out(path);
  out.append(text);
  out.close();
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string text_tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

}  // namespace treematch::bench
