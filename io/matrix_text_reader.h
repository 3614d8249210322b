// Streams text matrix files (TreeMatch dense .mat, MapLib CSV) into directed sparse rows.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/matrix_stream.h"
#include "kernels/types.h"

namespace treematch::io {

/// Reads a text file line by line through one growing buffer (no per-line allocation).
/// Lines are returned without their '\n' and without a trailing '\r'.
class TextLines {
 public:
  /// Opens `path`; throws InputError(path, "cannot open: <reason>").
  explicit TextLines(const std::string& path);

  /// Next line into `line` (valid until the next call); false at end of file.
  /// Throws InputError on a read error.
  bool next(std::string_view& line);

  /// The next run of whole lines, all those the buffer holds (about its size), into `text`
  /// (valid until the next call): each line ends with '\n' but the file's last one, and keeps
  /// its '\r'. Lets a caller split the run among tasks. False at end of file.
  bool next_lines(std::string_view& text);

  /// 1-based number of the line last returned by next(), or the last line of next_lines().
  [[nodiscard]] std::int64_t line_number() const { return line_number_; }

 private:
  /// The next line (without its '\n'), or with `whole_lines` every whole line the buffer holds
  /// (with their '\n'), reading more of the file as needed; false at end of file.
  bool take(bool whole_lines, std::string_view& out);
  /// Reads more of the file after the unread bytes (moved to the front, the buffer grown if they
  /// fill it); `scan`, an offset into them, moves with them. Sets eof_ at the end of the file.
  void refill(std::size_t& scan);

  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  ///< first unread byte in buffer_
  std::size_t end_ = 0;    ///< one past the last valid byte in buffer_
  bool eof_ = false;
  std::int64_t line_number_ = 0;
};

/// How the values of a dense text row are separated.
enum class TextSeparator {
  kWhitespace,  ///< TreeMatch .mat: blanks and tabs
  kComma,       ///< CSV: commas, blanks around a value ignored
};

/// Reads a dense square matrix of non-negative finite numbers, one row per line (blank lines
/// skipped; for CSV a first line without any number is a header and skipped). Returns the
/// off-diagonal non-zero entries as directed CSR rows sorted by column; the diagonal is checked but
/// dropped. Throws InputError(path, ...) for an empty file, a ragged or non-square matrix, a
/// negative, NaN/inf or non-numeric value (naming line and column).
kernels::Csr read_dense_text_rows(const std::string& path, TextSeparator separator);

/// The same file as a stream of row blocks (same checks, same messages). The constructor reads up
/// to the first row to learn n and throws InputError for an empty file or an unreadable first row;
/// later problems (a ragged row, too few or too many rows) are thrown by append_rows() when it
/// reaches them.
class DenseTextRowSource final : public MatrixRowSource {
 public:
  DenseTextRowSource(const std::string& path, TextSeparator separator);
  ~DenseTextRowSource() override;

  [[nodiscard]] Index size() const override { return width_; }
  Index append_rows(kernels::Csr& rows) override;

 private:
  class Parser;

  /// Next non-blank matrix line (the BOM and a CSV header skipped); false at end of file.
  bool next_matrix_line(std::string_view& line);
  /// Parses `line` as the next row into `rows`, checking its length against the width.
  void parse_row(std::string_view line, kernels::Csr& rows);

  std::string path_;
  TextSeparator separator_;
  TextLines lines_;
  std::unique_ptr<Parser> parser_;
  kernels::Csr first_row_;  ///< the row read by the constructor, handed over first
  bool first_pending_ = true;
  bool first_line_ = true;  ///< no matrix line seen yet (a CSV header may come)
  bool finished_ = false;
  Index width_ = 0;
};

}  // namespace treematch::io
