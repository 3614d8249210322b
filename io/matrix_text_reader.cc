// Streams text matrix files (TreeMatch dense .mat, MapLib CSV) into directed sparse rows.
#include "io/matrix_text_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>

#include "io/input_error.h"

namespace treematch::io {
namespace {

using kernels::Index;
using kernels::Offset;

constexpr std::size_t kInitialBuffer = std::size_t{4} << 20;
constexpr std::size_t kMinimumBuffer = std::size_t{64} << 10;

bool is_blank_char(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool is_blank(std::string_view line) {
  for (const char c : line) {
    if (!is_blank_char(c)) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank_char(s.back())) s.remove_suffix(1);
  return s;
}

/// Outcome of parsing one number with std::from_chars.
enum class Parse { kOk, kNotNumber, kOutOfRange };

Parse parse_number(std::string_view token, double& value) {
  const char* first = token.data();
  const char* last = first + token.size();
  // from_chars rejects a leading '+', which some writers emit.
  if (token.size() > 1 && token[0] == '+' && token[1] != '+' && token[1] != '-') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) return Parse::kOutOfRange;
  if (ec != std::errc() || ptr != last) return Parse::kNotNumber;
  return Parse::kOk;
}

/// True when no comma-separated field of `line` is a number (a CSV header line).
bool is_csv_header(std::string_view line) {
  while (true) {
    const std::size_t comma = line.find(',');
    double value = 0.0;
    if (parse_number(trim(line.substr(0, comma)), value) != Parse::kNotNumber) return false;
    if (comma == std::string_view::npos) return true;
    line.remove_prefix(comma + 1);
  }
}

}  // namespace

TextLines::TextLines(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "rb")) {
  if (!file_) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  // A smaller file gets a buffer of its size: the buffer is zeroed, and clearing 4 MiB costs a
  // small input's whole read.
  std::size_t initial = kInitialBuffer;
  struct stat status {};
  if (fstat(fileno(file_.get()), &status) == 0 && S_ISREG(status.st_mode) && status.st_size >= 0)
    initial = std::clamp<std::size_t>(static_cast<std::size_t>(status.st_size) + 1, kMinimumBuffer,
                                      kInitialBuffer);
  buffer_.resize(initial);
}

bool TextLines::next(std::string_view& line) {
  if (!take(/*whole_lines=*/false, line)) return false;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_number_;
  return true;
}

bool TextLines::next_lines(std::string_view& text) {
  if (!take(/*whole_lines=*/true, text)) return false;
  line_number_ += std::count(text.begin(), text.end(), '\n') + (text.back() == '\n' ? 0 : 1);
  return true;
}

bool TextLines::take(bool whole_lines, std::string_view& out) {
  std::size_t scan = begin_;  // bytes before `scan` hold no '\n'
  while (true) {
    if (scan < end_) {
      const std::string_view unread(buffer_.data() + scan, end_ - scan);
      const std::size_t newline = whole_lines ? unread.rfind('\n') : unread.find('\n');
      if (newline != std::string_view::npos) {
        const std::size_t after = scan + newline + 1;
        out = std::string_view(buffer_.data() + begin_, (whole_lines ? after : after - 1) - begin_);
        begin_ = after;
        return true;
      }
      scan = end_;
    }
    if (eof_) {
      if (begin_ == end_) return false;
      out = std::string_view(buffer_.data() + begin_, end_ - begin_);
      begin_ = end_;
      return true;
    }
    refill(scan);
  }
}

void TextLines::refill(std::size_t& scan) {
  // Keep the partial line, move it to the front and grow only if it fills the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    scan -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const std::size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_.get());
  end_ += got;
  if (got == 0) {
    if (std::ferror(file_.get()) != 0) {
      throw InputError(path_, std::string("read error: ") + std::strerror(errno));
    }
    eof_ = true;
  }
}

/// Parses the rows of one dense text matrix into directed CSR rows.
class DenseTextRowSource::Parser {
 public:
  Parser(const std::string& path, TextSeparator separator) : path_(path), separator_(separator) {}

  /// Parses one non-blank line as matrix row `rows_done()` into `rows`; returns how many values it
  /// held.
  std::int64_t parse_line(std::string_view line, std::int64_t line_number, kernels::Csr& rows) {
    line_number_ = line_number;
    column_ = 0;
    out_ = &rows;
    if (separator_ == TextSeparator::kWhitespace) {
      const char* p = line.data();
      const char* const end = p + line.size();
      while (true) {
        while (p != end && is_blank_char(*p)) ++p;
        // Dense communication matrices are mostly zeros: skip "0 0 0 0 " eight bytes at a time.
        while (end - p >= 8 && std::memcmp(p, "0 0 0 0 ", 8) == 0) {
          p += 8;
          column_ += 4;
        }
        if (p == end) break;
        const char* const token = p;
        while (p != end && !is_blank_char(*p)) ++p;
        take(std::string_view(token, static_cast<std::size_t>(p - token)));
      }
    } else {
      while (true) {
        const std::size_t comma = line.find(',');
        const std::string_view field = trim(line.substr(0, comma));
        if (field.empty()) fail("empty field");
        take(field);
        if (comma == std::string_view::npos) break;
        line.remove_prefix(comma + 1);
      }
    }
    ++row_;
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
    return column_;
  }

  [[nodiscard]] std::int64_t rows_done() const { return row_; }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_, "line " + std::to_string(line_number_) + ", column " +
                                std::to_string(column_ + 1) + ": " + what);
  }

  void take(std::string_view token) {
    // Most entries of a dense communication matrix are zero: skip them before from_chars.
    if (token.size() == 1 && token[0] == '0') {
      ++column_;
      return;
    }
    double value = 0.0;
    switch (parse_number(token, value)) {
      case Parse::kOk:
        break;
      case Parse::kNotNumber:
        fail(quoted_excerpt(token) + " is not a number (non-numeric value)");
      case Parse::kOutOfRange:
        fail(quoted_excerpt(token) + " is out of the range of a double");
    }
    if (!std::isfinite(value))
      fail(quoted_excerpt(token) + " is not finite (NaN or inf entries are not allowed)");
    if (value < 0.0) fail("negative entry " + quoted_excerpt(token) + " (volumes must be >= 0)");
    if (value > 0.0 && column_ != row_) {
      if (column_ > std::numeric_limits<Index>::max()) fail("too many columns");
      out_->targets.push_back(static_cast<Index>(column_));
      out_->weights.push_back(value);
    }
    ++column_;
  }

  const std::string& path_;
  TextSeparator separator_;
  kernels::Csr* out_ = nullptr;
  std::int64_t row_ = 0;
  std::int64_t column_ = 0;
  std::int64_t line_number_ = 0;
};

DenseTextRowSource::DenseTextRowSource(const std::string& path, TextSeparator separator)
    : path_(path),
      separator_(separator),
      lines_(path),
      parser_(std::make_unique<Parser>(path_, separator)) {
  std::string_view line;
  if (!next_matrix_line(line)) throw InputError(path_, "empty file: no matrix rows");
  const std::int64_t count = parser_->parse_line(line, lines_.line_number(), first_row_);
  if (count > std::numeric_limits<Index>::max()) {
    throw InputError(path_, "line " + std::to_string(lines_.line_number()) + ": " +
                                std::to_string(count) + " values per row is too many");
  }
  width_ = static_cast<Index>(count);
}

DenseTextRowSource::~DenseTextRowSource() = default;

bool DenseTextRowSource::next_matrix_line(std::string_view& line) {
  while (lines_.next(line)) {
    if (lines_.line_number() == 1 && line.substr(0, 3) == "\xEF\xBB\xBF")
      line.remove_prefix(3);  // UTF-8 BOM
    if (is_blank(line)) continue;
    if (first_line_ && separator_ == TextSeparator::kComma && is_csv_header(line)) {
      first_line_ = false;
      continue;
    }
    first_line_ = false;
    return true;
  }
  return false;
}

void DenseTextRowSource::parse_row(std::string_view line, kernels::Csr& rows) {
  const std::int64_t row = parser_->rows_done() + 1;
  if (row > width_) {
    throw InputError(path_, "not square: more than " + std::to_string(width_) + " rows of " +
                                std::to_string(width_) + " values (line " +
                                std::to_string(lines_.line_number()) + ")");
  }
  const std::int64_t count = parser_->parse_line(line, lines_.line_number(), rows);
  if (count != width_) {
    throw InputError(path_, "ragged rows: row " + std::to_string(row) + " (line " +
                                std::to_string(lines_.line_number()) + ") has " +
                                std::to_string(count) + " values, expected " +
                                std::to_string(width_));
  }
}

Index DenseTextRowSource::append_rows(kernels::Csr& rows) {
  if (finished_) return 0;
  const std::size_t start = rows.targets.size();
  Index appended = 0;
  if (first_pending_) {
    first_pending_ = false;
    const Offset base = rows.offsets.back();
    rows.targets.insert(rows.targets.end(), first_row_.targets.begin(), first_row_.targets.end());
    rows.weights.insert(rows.weights.end(), first_row_.weights.begin(), first_row_.weights.end());
    rows.offsets.push_back(base + first_row_.offsets.back());
    first_row_ = kernels::Csr{};
    appended = 1;
  }
  std::string_view line;
  while (appended < kRowBlockRows &&
         static_cast<Offset>(rows.targets.size() - start) < kRowBlockEntries) {
    if (!next_matrix_line(line)) {
      finished_ = true;
      if (parser_->rows_done() != width_) {
        throw InputError(path_, "not square: " + std::to_string(parser_->rows_done()) +
                                    " rows of " + std::to_string(width_) + " values");
      }
      break;
    }
    parse_row(line, rows);
    ++appended;
  }
  return appended;
}

kernels::Csr read_dense_text_rows(const std::string& path, TextSeparator separator) {
  DenseTextRowSource source(path, separator);
  return read_all_rows(source);
}

}  // namespace treematch::io
