// Writes communication matrices in every format treematch reads, streaming rows.
#include "io/matrix_writers.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

/// Bytes gathered before one fwrite.
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

std::string lower_extension(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

/// errno of the failed call; EIO when the C library failed without setting it.
int last_error() {
  return errno != 0 ? errno : EIO;
}

[[noreturn]] void cannot_write(const std::string& path, int error) {
  throw InputError(path, std::string("cannot write: ") + std::strerror(error));
}

/// A text file written through a buffer; every failure is InputError(name, "cannot write: ...").
class TextOutput {
 public:
  explicit TextOutput(const std::string& path) : path_(path) {
    errno = 0;
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) cannot_write(path_, last_error());
    buffer_.reserve(kFlushBytes + (kFlushBytes >> 2));
  }
  ~TextOutput() {
    if (file_ != nullptr) std::fclose(file_);
  }
  TextOutput(const TextOutput&) = delete;
  TextOutput& operator=(const TextOutput&) = delete;

  std::string& buffer() { return buffer_; }

  /// Writes the buffer out once it holds enough.
  void maybe_flush() {
    if (buffer_.size() >= kFlushBytes) flush();
  }

  void close() {
    flush();
    errno = 0;
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) cannot_write(path_, last_error());
  }

 private:
  void flush() {
    errno = 0;
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
      cannot_write(path_, last_error());
    buffer_.clear();
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

/// Appends `value` in the shortest form that reads back to the same double.
void append_number(std::string& out, double value) {
  fmt::format_to(std::back_inserter(out), "{}", value);
}

/// Clears a block for the next append_rows.
void clear_block(kernels::Csr& block) {
  block.offsets.assign(1, 0);
  block.targets.clear();
  block.weights.clear();
}

WriteSummary write_hdf5_csr(const std::string& path, MatrixRowSource& source,
                            const MatrixWriteOptions& options) {
  WriteSummary summary;
  summary.n = source.size();
  Hdf5CsrWriter writer(path, summary.n, options.object, options.mode, options.hdf5);
  kernels::Csr block;
  while (source.append_rows(block) > 0) {
    summary.entries += static_cast<Offset>(block.targets.size());
    writer.append_rows(block);
    clear_block(block);
  }
  writer.finish();
  return summary;
}

WriteSummary write_hdf5_dense(const std::string& path, MatrixRowSource& source,
                              const MatrixWriteOptions& options) {
  WriteSummary summary;
  summary.n = source.size();
  RowCursor cursor(source);
  write_matrix_hdf5_dense(
      path, summary.n,
      [&](Index /*row*/, std::span<double> values) {
        const RowCursor::Row row = cursor.next();
        for (std::size_t k = 0; k < row.targets.size(); ++k)
          values[static_cast<std::size_t>(row.targets[k])] = row.weights[k];
        summary.entries += static_cast<Offset>(row.targets.size());
      },
      options.object, options.mode, options.hdf5);
  return summary;
}

}  // namespace

MatrixFormat parse_matrix_format(const std::string& name, const std::string& path) {
  if (name == "mat") return MatrixFormat::kMat;
  if (name == "csv") return MatrixFormat::kCsv;
  if (name == "metis") return MatrixFormat::kMetis;
  if (name == "h5") return MatrixFormat::kHdf5Csr;
  if (name == "h5-dense") return MatrixFormat::kHdf5Dense;
  if (name != "auto") {
    throw InputError(
        "--format",
        "'" + name + "' is not a format; expected auto, mat, csv, metis, " + "h5 or h5-dense");
  }
  const std::string extension = lower_extension(path);
  if (extension == ".mat") return MatrixFormat::kMat;
  if (extension == ".csv") return MatrixFormat::kCsv;
  if (extension == ".graph" || extension == ".metis" || extension == ".aphid")
    return MatrixFormat::kMetis;
  if (extension == ".h5" || extension == ".hdf5") return MatrixFormat::kHdf5Csr;
  throw InputError(path, "cannot tell the output format from the extension '" + extension +
                             "'; name it .mat, .csv, .graph, .metis, .h5 or .hdf5, or give "
                             "--format mat|csv|metis|h5|h5-dense");
}

const char* matrix_format_name(MatrixFormat format) {
  switch (format) {
    case MatrixFormat::kMat:
      return "mat";
    case MatrixFormat::kCsv:
      return "csv";
    case MatrixFormat::kMetis:
      return "metis";
    case MatrixFormat::kHdf5Csr:
      return "h5";
    case MatrixFormat::kHdf5Dense:
      return "h5-dense";
  }
  return "?";
}

bool is_hdf5(MatrixFormat format) {
  switch (format) {
    case MatrixFormat::kHdf5Csr:
    case MatrixFormat::kHdf5Dense:
      return true;
    case MatrixFormat::kMat:
    case MatrixFormat::kCsv:
    case MatrixFormat::kMetis:
      return false;
  }
  return false;
}

bool extension_matches(MatrixFormat format, const std::string& path) {
  const std::string extension = lower_extension(path);
  switch (format) {
    case MatrixFormat::kMat:
      // Any name the other readers do not claim is read as dense text.
      return extension != ".csv" && extension != ".graph" && extension != ".metis" &&
             extension != ".aphid" && extension != ".h5" && extension != ".hdf5";
    case MatrixFormat::kCsv:
      return extension == ".csv";
    case MatrixFormat::kMetis:
      return extension == ".graph" || extension == ".metis" || extension == ".aphid";
    case MatrixFormat::kHdf5Csr:
    case MatrixFormat::kHdf5Dense:
      // HDF5 is recognised by its signature, except under a name claimed by a text reader.
      return extension != ".csv" && extension != ".graph" && extension != ".metis" &&
             extension != ".aphid";
  }
  return false;
}

WriteSummary write_matrix_text(const std::string& path, MatrixRowSource& source,
                               TextSeparator separator) {
  const char sep = separator == TextSeparator::kComma ? ',' : ' ';
  // "0 0 0 ..." to copy zero runs from (2 bytes per zero).
  std::string zeros;
  for (int k = 0; k < 4096; ++k) {
    zeros += '0';
    zeros += sep;
  }
  const auto append_zeros = [&](std::string& out, std::size_t count) {
    while (count > 0) {
      const std::size_t now = std::min<std::size_t>(count, 4096);
      out.append(zeros, 0, 2 * now);
      count -= now;
    }
  };

  WriteSummary summary;
  summary.n = source.size();
  const auto n = static_cast<std::size_t>(summary.n);
  TextOutput out(path);
  kernels::Csr block;
  while (const Index rows = source.append_rows(block)) {
    for (Index r = 0; r < rows; ++r) {
      std::string& text = out.buffer();
      std::size_t column = 0;
      const auto begin = static_cast<std::size_t>(block.offsets[static_cast<std::size_t>(r)]);
      const auto end = static_cast<std::size_t>(block.offsets[static_cast<std::size_t>(r) + 1]);
      for (std::size_t e = begin; e < end; ++e) {
        const auto target = static_cast<std::size_t>(block.targets[e]);
        append_zeros(text, target - column);
        append_number(text, block.weights[e]);
        text += sep;
        column = target + 1;
      }
      append_zeros(text, n - column);
      text.back() = '\n';
      out.maybe_flush();
    }
    summary.entries += static_cast<Offset>(block.targets.size());
    clear_block(block);
  }
  out.close();
  return summary;
}

WriteSummary write_matrix_metis(const std::string& path, const CommGraph& graph) {
  const kernels::CsrView view = graph.view();
  WriteSummary summary;
  summary.n = graph.size();
  summary.entries = graph.nnz();
  summary.symmetrised = graph.was_symmetrised();
  TextOutput out(path);
  fmt::format_to(std::back_inserter(out.buffer()), "{} {} 001\n", graph.size(), graph.nnz() / 2);
  for (Index i = 0; i < graph.size(); ++i) {
    std::string& text = out.buffer();
    for (Offset e = view.row_begin(i); e < view.row_end(i); ++e) {
      const auto k = static_cast<std::size_t>(e);
      if (e > view.row_begin(i)) text += ' ';
      fmt::format_to(std::back_inserter(text), "{} ", view.targets[k] + 1);
      append_number(text, view.weights[k]);
      if (view.weights[k] != std::floor(view.weights[k])) summary.integer_weights = false;
    }
    text += '\n';
    out.maybe_flush();
  }
  out.close();
  return summary;
}

WriteSummary write_matrix_metis(const std::string& path, MatrixRowSource& source) {
  kernels::Csr rows = read_all_rows(source);
  const Index n = rows.n;
  const CommGraph graph = CommGraph::from_directed_rows(
      n, std::move(rows.offsets), std::move(rows.targets), std::move(rows.weights));
  return write_matrix_metis(path, graph);
}

WriteSummary write_matrix(const std::string& path, MatrixFormat format, MatrixRowSource& source,
                          const MatrixWriteOptions& options) {
  switch (format) {
    case MatrixFormat::kMat:
      return write_matrix_text(path, source, TextSeparator::kWhitespace);
    case MatrixFormat::kCsv:
      return write_matrix_text(path, source, TextSeparator::kComma);
    case MatrixFormat::kMetis:
      return write_matrix_metis(path, source);
    case MatrixFormat::kHdf5Csr:
      return write_hdf5_csr(path, source, options);
    case MatrixFormat::kHdf5Dense:
      return write_hdf5_dense(path, source, options);
  }
  throw std::logic_error("write_matrix: unknown format");
}

}  // namespace treematch::io
