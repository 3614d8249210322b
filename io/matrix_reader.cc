// Chooses the matrix reader from a file's extension (or content) and applies the chosen metric.
#include "io/matrix_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "io/hdf5_container.h"
#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_metis_reader.h"
#include "io/matrix_stream.h"
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

CommGraph to_graph(kernels::Csr rows) {
  const Index n = rows.n;
  return CommGraph::from_directed_rows(n, std::move(rows.offsets), std::move(rows.targets),
                                       std::move(rows.weights));
}

using Source = std::unique_ptr<MatrixRowSource>;

Source dense_text_source(const std::string& path, TextSeparator separator) {
  return std::make_unique<DenseTextRowSource>(path, separator);
}

/// The names a MapLib CSV pair "X.size.csv" / "X.count.csv" gives, if `path` is one of them.
struct CsvPair {
  bool is_pair = false;
  bool is_size = false;
  std::string size_path;
  std::string count_path;
};

CsvPair csv_pair(const std::string& path) {
  const std::string name = lower(fs::path(path).filename().string());
  const bool is_size = ends_with(name, ".size.csv");
  const bool is_count = ends_with(name, ".count.csv");
  if (!is_size && !is_count) return {};
  const std::size_t suffix = is_size ? 9 : 10;
  const std::string stem = path.substr(0, path.size() - suffix);
  // The sibling's suffix in the same case as the given one ("X.SIZE.CSV" -> "X.COUNT.CSV").
  const bool upper =
      path.substr(path.size() - suffix) == upper_case(path.substr(path.size() - suffix));
  return CsvPair{true, is_size, is_size ? path : stem + (upper ? ".SIZE.CSV" : ".size.csv"),
                 is_count ? path : stem + (upper ? ".COUNT.CSV" : ".count.csv")};
}

/// MapLib CSV: "X.size.csv" / "X.count.csv" sibling pairs carry both metrics.
Source csv_source(const std::string& path, Metric metric) {
  const CsvPair pair = csv_pair(path);
  if (!pair.is_pair) {
    if (metric != Metric::kSize)
      single_metric(path, metric, "a pair of files X.size.csv and X.count.csv");
    return dense_text_source(path, TextSeparator::kComma);
  }
  const auto require = [&](const std::string& sibling) {
    std::error_code ec;
    if (!fs::exists(sibling, ec)) {
      throw InputError(path, std::string("--metric ") + metric_name(metric) +
                                 " needs the sibling file " + sibling + ", which is missing");
    }
  };
  switch (metric) {
    case Metric::kSize:
      if (!pair.is_size) require(pair.size_path);
      return dense_text_source(pair.size_path, TextSeparator::kComma);
    case Metric::kMsg:
      if (pair.is_size) require(pair.count_path);
      return dense_text_source(pair.count_path, TextSeparator::kComma);
    case Metric::kAvg:
      require(pair.is_size ? pair.count_path : pair.size_path);
      return average_source(dense_text_source(pair.size_path, TextSeparator::kComma),
                            dense_text_source(pair.count_path, TextSeparator::kComma), path,
                            pair.count_path);
  }
  return {};
}

/// Where an HDF5 input's matrices are. `given` is a file ("run.h5": its root group) or
/// "run.h5:/OBJECT" naming a group that holds them (size and msg, or matrix) or one matrix.
struct Hdf5Input {
  std::string path;     ///< the file
  std::string base;     ///< the group holding size/msg/matrix: "" = the root, else "/external"
  bool single = false;  ///< `base` is itself a matrix (a dataset or CSR group): size only
};

Hdf5Input hdf5_input(const std::string& given) {
  const Hdf5ObjectName name = split_hdf5_object(given);
  Hdf5Input input{name.file, name.object, false};
  while (input.base.size() > 1 && input.base.back() == '/') input.base.pop_back();
  if (input.base == "/") input.base.clear();
  // Everything read below, and by the readers opened after, in one child process (HDF5 may crash
  // or loop on a damaged file).
  std::vector<std::string> objects{input.base + "/size", input.base + "/msg",
                                   input.base + "/matrix"};
  if (!input.base.empty()) objects.push_back(input.base);
  probe_hdf5_objects(input.path, objects);
  if (input.base.empty()) return input;
  if (!hdf5_has_object(input.path, input.base)) {
    throw InputError(given, "no object " + input.base + " in this HDF5 file");
  }
  input.single = !hdf5_has_group_member(input.path, input.base, "size") &&
                 !hdf5_has_group_member(input.path, input.base, "matrix");
  return input;
}

/// The objects holding an HDF5 input's metrics (checked to exist for `metric`).
struct Hdf5Objects {
  std::string path;
  std::string size;  ///< size (or matrix)
  std::string msg;   ///< empty when the input has the size only
};

Hdf5Objects hdf5_objects(const std::string& given, Metric metric) {
  const Hdf5Input input = hdf5_input(given);
  const std::string& path = input.path;
  if (input.single) {
    if (metric != Metric::kSize)
      single_metric(given, metric, "a group holding size and msg (FILE.h5:/GROUP)");
    return Hdf5Objects{path, input.base, {}};
  }
  const std::string size_name = input.base + "/size";
  const std::string msg_name = input.base + "/msg";
  const std::string matrix_name = input.base + "/matrix";
  const bool has_size = hdf5_has_object(path, size_name);
  const bool has_msg = hdf5_has_object(path, msg_name);
  if (metric != Metric::kSize && !has_msg)
    single_metric(given, metric, "datasets or groups " + size_name + " and " + msg_name);
  if (metric == Metric::kSize && !has_size && !hdf5_has_object(path, matrix_name)) {
    throw InputError(given, "missing " + matrix_name + ": the file has no dataset or group " +
                                matrix_name + " (nor " + size_name + ")");
  }
  return Hdf5Objects{path, has_size ? size_name : matrix_name, has_msg ? msg_name : ""};
}

/// HDF5: size and msg carry both metrics; matrix (or size alone) only the size. The readers call
/// `check` before reading any row.
Source hdf5_source(const std::string& given, Metric metric, const HeaderCheck& check) {
  const Hdf5ProbeScope probes;  // the file is read in a child once, not once per object
  const Hdf5Objects objects = hdf5_objects(given, metric);
  switch (metric) {
    case Metric::kSize:
      return open_hdf5_row_source(objects.path, objects.size, check);
    case Metric::kMsg:
      return open_hdf5_row_source(objects.path, objects.msg, check);
    case Metric::kAvg:
      return average_source(open_hdf5_row_source(objects.path, objects.size, check),
                            open_hdf5_row_source(objects.path, objects.msg, check), given,
                            objects.msg);
  }
  return {};
}

Source dense_text_metric_source(const std::string& path, Metric metric) {
  if (metric != Metric::kSize)
    single_metric(path, metric, "a file with both metrics (CSV pair or HDF5)");
  return dense_text_source(path, TextSeparator::kWhitespace);
}

/// The formats a file can be read as.
enum class Kind { kHdf5, kMetis, kCsv, kDenseText };

/// Chooses the reader from the extension, then the content (throws for binary non-HDF5 files).
Kind classify(const std::string& path) {
  if (!split_hdf5_object(path).object.empty()) return Kind::kHdf5;
  const Content content = sniff(path);
  const std::string extension = lower(fs::path(path).extension().string());
  if (extension == ".h5" || extension == ".hdf5") return Kind::kHdf5;
  if (extension == ".aphid" || extension == ".graph" || extension == ".metis") return Kind::kMetis;
  switch (content) {
    case Content::kHdf5:
      return Kind::kHdf5;
    case Content::kMatlab:
      throw InputError(
          path, "a MATLAB binary MAT-file, not a TreeMatch text matrix (save it with -ascii)");
    case Content::kBinary:
      throw InputError(path,
                       "a binary file, not a text matrix (expected .mat/.csv text, .h5 or METIS)");
    case Content::kText:
      break;
  }
  return extension == ".csv" ? Kind::kCsv : Kind::kDenseText;
}

void require_size_metric_for_metis(const std::string& path, Metric metric) {
  if (metric != Metric::kSize)
    single_metric(path, metric, "a file with both metrics (CSV pair or HDF5)");
}

}  // namespace

Metric parse_metric(const std::string& text) {
  if (text == "size") return Metric::kSize;
  if (text == "msg") return Metric::kMsg;
  if (text == "avg") return Metric::kAvg;
  throw InputError("--metric", "'" + text + "' is not a metric; expected size, msg or avg");
}

std::optional<Hdf5MatrixLocation> locate_hdf5_matrix(const std::string& given, Metric metric) {
  if (classify(split_hdf5_object(given).file) != Kind::kHdf5 || metric == Metric::kAvg) return {};
  const Hdf5ProbeScope probes;
  const Hdf5Objects objects = hdf5_objects(given, metric);
  return Hdf5MatrixLocation{objects.path, metric == Metric::kMsg ? objects.msg : objects.size};
}

CommGraph read_matrix(const std::string& path, Metric metric, const HeaderCheck& check) {
  const Kind kind = classify(path);
  if (kind == Kind::kMetis) {
    // Read whole: the exact symmetry check needs every row anyway.
    require_size_metric_for_metis(path, metric);
    return read_metis_graph(path, check);
  }
  return to_graph(read_all_rows(*open_matrix_source(path, metric, check)));
}

std::unique_ptr<MatrixRowSource> open_matrix_source(const std::string& path, Metric metric,
                                                    const HeaderCheck& check) {
  // HDF5 readers check the order before reading the CSR indptr; the text readers know it once
  // the header (METIS) or the first row (dense text, CSV) is read.
  Source source;
  switch (classify(path)) {
    case Kind::kHdf5:
      return hdf5_source(path, metric, check);
    case Kind::kMetis:
      require_size_metric_for_metis(path, metric);
      source = open_metis_row_source(path);
      break;
    case Kind::kCsv:
      source = csv_source(path, metric);
      break;
    case Kind::kDenseText:
      source = dense_text_metric_source(path, metric);
      break;
  }
  if (check) {
    const Offset expected = source->expected_entries();
    check(MatrixHeader{source->size(),
                       expected > 0 ? std::optional<Offset>(expected) : std::nullopt});
  }
  return source;
}

bool has_both_metrics(const std::string& path) {
  switch (classify(path)) {
    case Kind::kHdf5: {
      const Hdf5ProbeScope probes;
      const Hdf5Input input = hdf5_input(path);
      return !input.single && hdf5_has_object(input.path, input.base + "/msg") &&
             (hdf5_has_object(input.path, input.base + "/size") ||
              hdf5_has_object(input.path, input.base + "/matrix"));
    }
    case Kind::kCsv: {
      const CsvPair pair = csv_pair(path);
      std::error_code ec;
      return pair.is_pair && fs::exists(pair.size_path, ec) && fs::exists(pair.count_path, ec);
    }
    case Kind::kMetis:
    case Kind::kDenseText:
      return false;
  }
  return false;
}

}  // namespace treematch::io
