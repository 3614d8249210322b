// Parses Open MPI's per-rank monitoring files and builds one directed matrix per traffic class.
#include "io/ompi_monitoring_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;
using kernels::Index;
using kernels::Offset;

constexpr std::string_view kRankFileSuffix = ".prof";
constexpr std::string_view kFirstLine = "# POINT TO POINT";
constexpr std::string_view kRecordHint =
    "record with mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 "
    "--mca pml_monitoring_filename prof";

/// "<prefix>.<rank>.prof", as Open MPI names a rank file (rank in decimal, no leading zero).
struct RankFileName {
  std::string prefix;
  Index rank = 0;
};

std::optional<RankFileName> parse_rank_file_name(std::string_view name) {
  if (name.size() <= kRankFileSuffix.size() || !name.ends_with(kRankFileSuffix)) return {};
  const std::string_view stem = name.substr(0, name.size() - kRankFileSuffix.size());
  const std::size_t dot = stem.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  const std::string_view digits = stem.substr(dot + 1);
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return {};
  Index rank = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (ec != std::errc() || end != digits.data() + digits.size() || rank < 0) return {};
  return RankFileName{std::string(stem.substr(0, dot)), rank};
}

/// The rank files of one run, indexed by rank.
struct RunFiles {
  std::string prefix;  ///< directory / prefix, as the user would write it
  std::vector<std::string> paths;
};

/// Every rank file in `dir`, grouped by prefix (sorted by rank).
std::map<std::string, std::vector<std::pair<Index, std::string>>> list_rank_files(
    const fs::path& dir, const std::string& source) {
  std::map<std::string, std::vector<std::pair<Index, std::string>>> runs;
  std::error_code ec;
  fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    const std::string name = it->path().filename().string();
    const std::optional<RankFileName> parsed = parse_rank_file_name(name);
    if (!parsed) continue;
    runs[parsed->prefix].emplace_back(parsed->rank, (dir / name).string());
  }
  if (ec) throw InputError(source, "cannot list the directory: " + ec.message());
  for (auto& [prefix, files] : runs) std::sort(files.begin(), files.end());
  return runs;
}

/// Resolves `source` (directory, prefix path or one rank file) to the files of ranks 0..n-1.
RunFiles find_run(const std::string& source) {
  std::error_code ec;
  fs::path dir;
  std::string prefix;  // empty = any single prefix found in `dir`
  if (fs::is_directory(source, ec)) {
    dir = source;
  } else {
    fs::path prefix_path = source;
    if (const auto parsed = parse_rank_file_name(prefix_path.filename().string());
        parsed && fs::is_regular_file(source, ec)) {
      prefix_path = prefix_path.parent_path() / parsed->prefix;
    }
    dir = prefix_path.parent_path();
    prefix = prefix_path.filename().string();
    if (prefix.empty() || (!dir.empty() && !fs::is_directory(dir, ec))) {
      throw InputError(source,
                       "neither a directory nor the prefix of Open MPI monitoring files "
                       "(<prefix>.<rank>.prof); " +
                           std::string(kRecordHint));
    }
  }

  auto runs = list_rank_files(dir, source);
  if (!prefix.empty()) {
    auto it = runs.find(prefix);
    if (it == runs.end()) {
      throw InputError(source, "no file " + source +
                                   ".<rank>.prof (neither a directory nor the "
                                   "prefix of Open MPI monitoring files); " +
                                   std::string(kRecordHint));
    }
    auto files = std::move(it->second);
    runs.clear();
    runs.emplace(prefix, std::move(files));
  }
  if (runs.empty()) {
    throw InputError(source,
                     "no Open MPI monitoring file (<prefix>.<rank>.prof) in this directory; " +
                         std::string(kRecordHint));
  }
  if (runs.size() > 1) {
    std::string names;
    for (const auto& [name, files] : runs) names += (names.empty() ? "" : ", ") + name;
    throw InputError(source, "holds the monitoring files of several runs (prefixes " + names +
                                 "); give DIR/PREFIX to pick one");
  }

  auto& [found_prefix, files] = *runs.begin();
  RunFiles run;
  run.prefix = (dir / found_prefix).string();
  const Index ranks = files.back().first + 1;
  for (Index r = 0; r < ranks; ++r) {
    if (files[static_cast<std::size_t>(r)].first != r) {
      throw InputError(
          (dir / fmt::format("{}.{}{}", found_prefix, r, kRankFileSuffix)).string(),
          fmt::format("missing: the run has rank files up to {}.{}{} but none for rank {}",
                      found_prefix, ranks - 1, kRankFileSuffix, r));
    }
    run.paths.push_back(files[static_cast<std::size_t>(r)].second);
  }
  return run;
}

/// One E/I/S/R record: traffic from `row` to `col`, and where it was read.
struct Record {
  Index row = 0;
  Index col = 0;
  std::uint64_t bytes = 0;
  std::uint64_t msgs = 0;
  Index file = 0;  ///< the rank whose file holds the line
  std::int64_t line = 0;
};

struct Records {
  std::vector<Record> external;  // E
  std::vector<Record> internal;  // I
  std::vector<Record> sent;      // S
  std::vector<Record> fetched;   // R, stored as [peer][origin]
  std::uint64_t collective_lines = 0;
};

/// Parses the lines of one rank file.
class RankFileParser {
 public:
  RankFileParser(const std::string& path, Index rank, Index ranks, Records& out)
      : path_(path), rank_(rank), ranks_(ranks), out_(out) {}

  void parse() {
    std::ifstream in(path_);
    if (!in) throw InputError(path_, std::string("cannot open: ") + std::strerror(errno));
    std::string text;
    while (std::getline(in, text)) {
      ++line_;
      std::string_view line = text;
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line_ == 1 && line != kFirstLine) {
        fail(fmt::format("not an Open MPI monitoring file: it starts with {} instead of '{}'",
                         quoted_excerpt(line), kFirstLine));
      }
      if (line.empty() || line.front() == '#') continue;
      parse_record(line);
    }
    if (in.bad()) throw InputError(path_, std::string("cannot read: ") + std::strerror(errno));
    if (line_ == 0) {
      throw InputError(path_, fmt::format("empty (Open MPI writes at least '{}'): did rank {} end "
                                          "before MPI_Finalize?",
                                          kFirstLine, rank_));
    }
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(path_, fmt::format("line {}: {}", line_, problem));
  }

  void split(std::string_view line) {
    fields_.clear();
    while (true) {
      const std::size_t tab = line.find('\t');
      fields_.push_back(line.substr(0, tab));
      if (tab == std::string_view::npos) break;
      line.remove_prefix(tab + 1);
    }
  }

  template <typename Integer>
  std::optional<Integer> integer(std::string_view text) const {
    Integer value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return {};
    return value;
  }

  Index rank_field(std::size_t index, const char* what) const {
    const std::string_view text = fields_[index];
    const auto value = integer<long long>(text);
    if (!value) fail(fmt::format("the {} {} is not a rank", what, quoted_excerpt(text)));
    if (*value < 0 || *value >= ranks_) {
      fail(fmt::format("{} {} out of range: the run has rank files 0..{} only{}", what, *value,
                       ranks_ - 1,
                       *value >= ranks_ ? " (were the files of the last ranks lost?)" : ""));
    }
    return static_cast<Index>(*value);
  }

  /// "<n> <unit>", e.g. "80640 bytes".
  std::uint64_t quantity_field(std::size_t index, std::string_view unit) const {
    const std::string_view text = fields_[index];
    std::optional<std::uint64_t> value;
    if (text.size() > unit.size() + 1 && text.ends_with(unit) &&
        text[text.size() - unit.size() - 1] == ' ') {
      value = integer<std::uint64_t>(text.substr(0, text.size() - unit.size() - 1));
    }
    if (!value)
      fail(fmt::format("expected '<count> {}' in field {}, got {}", unit, index + 1,
                       quoted_excerpt(text)));
    return *value;
  }

  void histogram_field(std::size_t index) const {
    std::string_view text = fields_[index];
    while (true) {
      const std::size_t comma = text.find(',');
      if (!integer<std::uint64_t>(text.substr(0, comma))) {
        fail(fmt::format("the size histogram (field {}) is not a list of counts: {}", index + 1,
                         quoted_excerpt(fields_[index])));
      }
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
  }

  void check_field_count(std::string_view type, std::size_t low, std::size_t high,
                         const char* layout) const {
    if (fields_.size() < low || fields_.size() > high) {
      fail(fmt::format("{} line with {} tab-separated field{}; expected {}", type, fields_.size(),
                       fields_.size() == 1 ? "" : "s", layout));
    }
  }

  void parse_record(std::string_view line) {
    split(line);
    const std::string_view type = fields_[0];
    if (type == "E" || type == "I" || type == "S" || type == "R" || type == "C") {
      const bool histogram = type == "E" || type == "I";
      check_field_count(type, 5, histogram ? 6 : 5,
                        histogram ? "TYPE SRC DST '<n> bytes' '<n> msgs sent' [histogram]"
                                  : "TYPE SRC DST '<n> bytes' '<n> msgs sent'");
      const Index source = rank_field(1, "source rank");
      if (source != rank_) {
        fail(
            fmt::format("source rank {} in the file of rank {} (files are named "
                        "<prefix>.<rank>.prof after the rank that wrote them)",
                        source, rank_));
      }
      const Index peer = rank_field(2, "destination rank");
      const std::uint64_t bytes = quantity_field(3, "bytes");
      const std::uint64_t msgs = quantity_field(4, "msgs sent");
      if (bytes > 0 && msgs == 0) fail(fmt::format("{} bytes in 0 messages", bytes));
      if (fields_.size() == 6) histogram_field(5);
      const Record record{source, peer, bytes, msgs, rank_, line_};
      if (type == "E") {
        out_.external.push_back(record);
      } else if (type == "I") {
        out_.internal.push_back(record);
      } else if (type == "S") {
        out_.sent.push_back(record);
      } else if (type == "R") {
        out_.fetched.push_back(Record{peer, source, bytes, msgs, rank_, line_});
      } else {
        ++out_.collective_lines;
      }
    } else if (type == "D") {
      check_field_count(type, 3, 3, "D COMMUNICATOR 'procs: <ranks>'");
      if (!fields_[2].starts_with("procs:")) {
        fail("expected 'procs: <ranks>' in field 3, got " + quoted_excerpt(fields_[2]));
      }
    } else if (type == "O2A" || type == "A2O" || type == "A2A") {
      check_field_count(type, 4, 4, "TYPE RANK '<n> bytes' '<n> msgs sent'");
      if (!integer<long long>(fields_[1])) {
        fail("the rank " + quoted_excerpt(fields_[1]) + " is not an integer");
      }
      quantity_field(2, "bytes");
      quantity_field(3, "msgs sent");
    } else {
      fail("unknown record " + quoted_excerpt(type) +
           " (expected E, I, S, R, C, D, O2A, A2O, A2A or a # header)");
    }
  }

  const std::string& path_;
  Index rank_;
  Index ranks_;
  Records& out_;
  std::int64_t line_ = 0;
  std::vector<std::string_view> fields_;
};

bool by_pair_then_line(const Record& a, const Record& b) {
  if (a.row != b.row) return a.row < b.row;
  if (a.col != b.col) return a.col < b.col;
  return a.line < b.line;
}

/// Sorts `records` and rejects a pair recorded twice by the same kind of line.
void sort_and_check(std::vector<Record>& records, const char* type, const RunFiles& run) {
  std::sort(records.begin(), records.end(), by_pair_then_line);
  const auto twice = std::adjacent_find(records.begin(), records.end(), [](auto& a, auto& b) {
    return a.row == b.row && a.col == b.col;
  });
  if (twice == records.end()) return;
  const Record& second = *(twice + 1);
  // An R record is stored as [peer][origin]; the line reads "R origin peer".
  const bool fetched = std::string_view(type) == "R";
  throw InputError(run.paths[static_cast<std::size_t>(second.file)],
                   fmt::format("line {}: a second '{} {} {}' record (first on line {})",
                               second.line, type, fetched ? second.col : second.row,
                               fetched ? second.row : second.col, twice->line));
}

std::uint64_t add_checked(std::uint64_t a, std::uint64_t b, const RunFiles& run) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw InputError(run.prefix, "traffic between two ranks exceeds 2^64 (corrupt files?)");
  }
  return sum;
}

/// The matrices of `records` (any order): pairs recorded several times are summed, the diagonal
/// and zero values are dropped.
TrafficMatrices build(Index n, std::vector<Record> records, const RunFiles& run) {
  std::sort(records.begin(), records.end(), by_pair_then_line);
  TrafficMatrices m;
  m.size.n = n;
  m.msg.n = n;
  m.size.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  m.msg.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t first = 0; first < records.size();) {
    const Record& head = records[first];
    std::uint64_t bytes = 0;
    std::uint64_t msgs = 0;
    std::size_t last = first;
    for (; last < records.size() && records[last].row == head.row && records[last].col == head.col;
         ++last) {
      bytes = add_checked(bytes, records[last].bytes, run);
      msgs = add_checked(msgs, records[last].msgs, run);
    }
    if (head.row != head.col) {
      const auto row = static_cast<std::size_t>(head.row);
      if (bytes > 0) {
        m.size.targets.push_back(head.col);
        m.size.weights.push_back(static_cast<double>(bytes));
        ++m.size.offsets[row + 1];
      }
      if (msgs > 0) {
        m.msg.targets.push_back(head.col);
        m.msg.weights.push_back(static_cast<double>(msgs));
        ++m.msg.offsets[row + 1];
      }
    }
    first = last;
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    m.size.offsets[i + 1] += m.size.offsets[i];
    m.msg.offsets[i + 1] += m.msg.offsets[i];
  }
  return m;
}

std::vector<Record> concatenate(std::initializer_list<const std::vector<Record>*> parts) {
  std::vector<Record> all;
  for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
  return all;
}

std::uint64_t sum_weights(const kernels::Csr& m) {
  std::uint64_t sum = 0;
  for (const double w : m.weights) sum += static_cast<std::uint64_t>(w);
  return sum;
}

}  // namespace

std::uint64_t TrafficMatrices::total_bytes() const {
  return sum_weights(size);
}

std::uint64_t TrafficMatrices::total_messages() const {
  return sum_weights(msg);
}

OmpiMonitoringPattern read_ompi_monitoring(const std::string& source) {
  const RunFiles run = find_run(source);
  const auto n = static_cast<Index>(run.paths.size());
  Records records;
  for (Index r = 0; r < n; ++r) {
    RankFileParser(run.paths[static_cast<std::size_t>(r)], r, n, records).parse();
  }
  sort_and_check(records.external, "E", run);
  sort_and_check(records.internal, "I", run);
  sort_and_check(records.sent, "S", run);
  sort_and_check(records.fetched, "R", run);

  OmpiMonitoringPattern pattern;
  pattern.ranks = n;
  pattern.prefix = run.prefix;
  pattern.collective_lines = records.collective_lines;
  pattern.external = build(n, records.external, run);
  pattern.internal = build(n, records.internal, run);
  pattern.onesided = build(n, concatenate({&records.sent, &records.fetched}), run);
  pattern.total = build(
      n, concatenate({&records.external, &records.internal, &records.sent, &records.fetched}), run);
  return pattern;
}

void write_ompi_monitoring_hdf5(const std::string& path, const OmpiMonitoringPattern& pattern,
                                const Hdf5WriteOptions& options) {
  write_matrix_hdf5_csr(path, pattern.total.size.view(), "/size", Hdf5WriteMode::kTruncate,
                        options);
  const auto append = [&](const kernels::Csr& matrix, const std::string& object) {
    write_matrix_hdf5_csr(path, matrix.view(), object, Hdf5WriteMode::kAppend, options);
  };
  append(pattern.total.msg, "/msg");
  const std::pair<const TrafficMatrices*, const char*> classes[] = {
      {&pattern.external, "/external"},
      {&pattern.internal, "/internal"},
      {&pattern.onesided, "/onesided"}};
  for (const auto& [matrices, group] : classes) {
    append(matrices->size, std::string(group) + "/size");
    append(matrices->msg, std::string(group) + "/msg");
  }
  write_hdf5_attribute(path, "/", "source", "ompi-monitoring");
  write_hdf5_attribute(path, "/", "ranks", std::int64_t{pattern.ranks});
  write_hdf5_attribute(path, "/", "description",
                       "Open MPI monitoring (pml/osc), directed: [i][j] = sent by rank i to rank "
                       "j; /size (bytes) and /msg (messages) = external + internal + onesided");
  write_hdf5_attribute(path, "/external", "description",
                       "point-to-point messages with tag >= 0 (E lines)");
  write_hdf5_attribute(path, "/internal", "description",
                       "messages with tag < 0: collectives decomposed into point-to-point and "
                       "internal protocol (I lines)");
  write_hdf5_attribute(path, "/onesided", "description",
                       "one-sided operations, recorded at the origin: puts/accumulates origin -> "
                       "target (S lines), fetched data target -> origin (R lines)");
}

}  // namespace treematch::io
