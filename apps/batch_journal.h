// The batch's record of finished patterns, appended one line per pattern as each completes, so
// that --resume after a kill or Ctrl-C skips what was done.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace treematch::apps {

/// DIR/progress.jsonl: a first line {"settings": ...}, then one summary row per finished pattern
/// (JSON, one line each, appended with a single write as the pattern completes: a kill leaves at
/// most a torn last line, which reading skips). The summary written at the end of a batch holds
/// the same rows; the journal is then removed.
class BatchJournal {
 public:
  /// Starts a journal at `path` for a run with `settings`: a new one, or (resume) the existing one
  /// kept and appended to. Throws std::runtime_error naming the file when it cannot be written.
  BatchJournal(std::string path, const nlohmann::ordered_json& settings, bool resume);
  ~BatchJournal();
  BatchJournal(const BatchJournal&) = delete;
  BatchJournal& operator=(const BatchJournal&) = delete;

  /// Appends one finished pattern's row (one write, then it is on disk for any later reader).
  void record(const nlohmann::ordered_json& row);
  /// The journal is no longer needed (the summary holds its rows): removes the file.
  void finish();

  /// The settings line and rows of the journal at `path`: {settings, rows}; nothing when there is
  /// no such file. Unreadable lines (a torn last line) are skipped.
  static std::vector<nlohmann::ordered_json> read(const std::string& path,
                                                  nlohmann::ordered_json& settings);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace treematch::apps
