// Chooses the matrix reader from a file's extension (or content) and applies the chosen metric.
#include "io/matrix_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "io/input_error.h"
#include "io/matrix_hdf5.h"
#include "io/matrix_metis_reader.h"
#include "io/matrix_text_reader.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string upper_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* metric_name(Metric metric) {
  switch (metric) {
    case Metric::kSize:
      return "size";
    case Metric::kMsg:
      return "msg";
    case Metric::kAvg:
      return "avg";
  }
  return "?";
}

/// What the first bytes of a file say it is.
enum class Content { kText, kHdf5, kMatlab, kBinary };

/// Looks at the first 4 KiB; throws InputError("cannot open: ...") if the file cannot be read.
Content sniff(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError(path, std::string("cannot open: ") + std::strerror(EISDIR));
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::array<char, 4096> head{};
  const std::size_t got = std::fread(head.data(), 1, head.size(), file);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) throw InputError(path, std::string("cannot open: ") + std::strerror(error));
  const std::string_view bytes(head.data(), got);
  constexpr std::string_view kHdf5Signature("\x89HDF\r\n\x1a\n", 8);
  if (bytes.substr(0, 8) == kHdf5Signature) return Content::kHdf5;
  if (bytes.substr(0, 6) == "MATLAB") return Content::kMatlab;
  if (bytes.find('\0') != std::string_view::npos) return Content::kBinary;
  return Content::kText;
}

[[noreturn]] void single_metric(const std::string& path, Metric metric, const std::string& hint) {
  throw InputError(path, std::string("carries a single metric (size); --metric ") +
                             metric_name(metric) + " needs " + hint);
}

/// size / count entry by entry (0 where the count is 0); both are directed rows sorted by column.
kernels::Csr average(const std::string& path, const kernels::Csr& size, const kernels::Csr& count,
                     const std::string& count_source) {
  if (size.n != count.n) {
    throw InputError(path, "the size matrix has " + std::to_string(size.n) + " rows but " +
                               count_source + " has " + std::to_string(count.n));
  }
  kernels::Csr avg;
  avg.n = size.n;
  avg.offsets.reserve(static_cast<std::size_t>(size.n) + 1);
  for (std::size_t r = 0; r < static_cast<std::size_t>(size.n); ++r) {
    auto a = static_cast<std::size_t>(size.offsets[r]);
    const auto a_end = static_cast<std::size_t>(size.offsets[r + 1]);
    auto b = static_cast<std::size_t>(count.offsets[r]);
    const auto b_end = static_cast<std::size_t>(count.offsets[r + 1]);
    while (a != a_end && b != b_end) {
      if (size.targets[a] < count.targets[b]) {
        ++a;
      } else if (count.targets[b] < size.targets[a]) {
        ++b;
      } else {
        avg.targets.push_back(size.targets[a]);
        avg.weights.push_back(size.weights[a++] / count.weights[b++]);
      }
    }
    avg.offsets.push_back(static_cast<Offset>(avg.targets.size()));
  }
  return avg;
}

CommGraph to_graph(kernels::Csr rows) {
  const Index n = rows.n;
  return CommGraph::from_directed_rows(n, std::move(rows.offsets), std::move(rows.targets),
                                       std::move(rows.weights));
}

/// MapLib CSV: "X.size.csv" / "X.count.csv" sibling pairs carry both metrics.
CommGraph read_csv(const std::string& path, Metric metric) {
  const std::string name = lower(fs::path(path).filename().string());
  const bool is_size = ends_with(name, ".size.csv");
  const bool is_count = ends_with(name, ".count.csv");
  if (!is_size && !is_count) {
    if (metric != Metric::kSize)
      single_metric(path, metric, "a pair of files X.size.csv and X.count.csv");
    return to_graph(read_dense_text_rows(path, TextSeparator::kComma));
  }
  const std::size_t suffix = is_size ? 9 : 10;
  const std::string stem = path.substr(0, path.size() - suffix);
  // The sibling's suffix in the same case as the given one ("X.SIZE.CSV" -> "X.COUNT.CSV").
  const bool upper =
      path.substr(path.size() - suffix) == upper_case(path.substr(path.size() - suffix));
  const std::string size_path = is_size ? path : stem + (upper ? ".SIZE.CSV" : ".size.csv");
  const std::string count_path = is_count ? path : stem + (upper ? ".COUNT.CSV" : ".count.csv");
  const auto require = [&](const std::string& sibling) {
    std::error_code ec;
    if (!fs::exists(sibling, ec)) {
      throw InputError(path, std::string("--metric ") + metric_name(metric) +
                                 " needs the sibling file " + sibling + ", which is missing");
    }
  };
  switch (metric) {
    case Metric::kSize:
      if (is_count) require(size_path);
      return to_graph(read_dense_text_rows(size_path, TextSeparator::kComma));
    case Metric::kMsg:
      if (is_size) require(count_path);
      return to_graph(read_dense_text_rows(count_path, TextSeparator::kComma));
    case Metric::kAvg:
      require(is_size ? count_path : size_path);
      return to_graph(average(path, read_dense_text_rows(size_path, TextSeparator::kComma),
                              read_dense_text_rows(count_path, TextSeparator::kComma), count_path));
  }
  return {};
}

/// HDF5: /size and /msg carry both metrics; /matrix (or /size alone) only the size.
CommGraph read_hdf5(const std::string& path, Metric metric) {
  const bool has_size = hdf5_has_object(path, "/size");
  const bool has_msg = hdf5_has_object(path, "/msg");
  const std::string size_object = has_size ? "/size" : "/matrix";
  if (metric != Metric::kSize && !has_msg)
    single_metric(path, metric, "datasets or groups /size and /msg");
  if (metric == Metric::kSize && !has_size && !hdf5_has_object(path, "/matrix")) {
    throw InputError(path, "missing /matrix: the file has no dataset or group /matrix (nor /size)");
  }
  switch (metric) {
    case Metric::kSize:
      return to_graph(read_hdf5_matrix_rows(path, size_object));
    case Metric::kMsg:
      return to_graph(read_hdf5_matrix_rows(path, "/msg"));
    case Metric::kAvg:
      return to_graph(average(path, read_hdf5_matrix_rows(path, size_object),
                              read_hdf5_matrix_rows(path, "/msg"), "/msg"));
  }
  return {};
}

CommGraph read_dense_text(const std::string& path, Metric metric) {
  if (metric != Metric::kSize)
    single_metric(path, metric, "a file with both metrics (CSV pair or HDF5)");
  return to_graph(read_dense_text_rows(path, TextSeparator::kWhitespace));
}

}  // namespace

Metric parse_metric(const std::string& text) {
  if (text == "size") return Metric::kSize;
  if (text == "msg") return Metric::kMsg;
  if (text == "avg") return Metric::kAvg;
  throw InputError("--metric", "'" + text + "' is not a metric; expected size, msg or avg");
}

CommGraph read_matrix(const std::string& path, Metric metric) {
  const Content content = sniff(path);
  const std::string extension = lower(fs::path(path).extension().string());
  if (extension == ".h5" || extension == ".hdf5") return read_hdf5(path, metric);
  if (extension == ".aphid" || extension == ".graph" || extension == ".metis") {
    if (metric != Metric::kSize)
      single_metric(path, metric, "a file with both metrics (CSV pair or HDF5)");
    return read_metis_graph(path);
  }
  switch (content) {
    case Content::kHdf5:
      return read_hdf5(path, metric);
    case Content::kMatlab:
      throw InputError(
          path, "a MATLAB binary MAT-file, not a TreeMatch text matrix (save it with -ascii)");
    case Content::kBinary:
      throw InputError(path,
                       "a binary file, not a text matrix (expected .mat/.csv text, .h5 or METIS)");
    case Content::kText:
      break;
  }
  if (extension == ".csv") return read_csv(path, metric);
  return read_dense_text(path, metric);
}

}  // namespace treematch::io
