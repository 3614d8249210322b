// The append-only journal of a batch: a line per finished pattern, written as it completes.
#include "apps/batch_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace treematch::apps {
namespace {

using json = nlohmann::ordered_json;

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path + ": cannot write: " + std::generic_category().message(errno));
    }
    done += static_cast<std::size_t>(wrote);
  }
}

}  // namespace

BatchJournal::BatchJournal(std::string path, const json& settings, bool resume)
    : path_(std::move(path)) {
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (resume ? 0 : O_TRUNC);
  fd_ = ::open(path_.c_str(), flags, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(
        path_ + ": cannot open the batch journal: " + std::generic_category().message(errno));
  }
  // A new journal (or an empty one) starts with the settings its rows were made with.
  if (::lseek(fd_, 0, SEEK_END) == 0)
    write_all(fd_, json{{"settings", settings}}.dump() + "\n", path_);
}

BatchJournal::~BatchJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void BatchJournal::record(const json& row) {
  write_all(fd_, row.dump() + "\n", path_);
}

void BatchJournal::finish() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

std::vector<json> BatchJournal::read(const std::string& path, json& settings) {
  std::vector<json> rows;
  std::ifstream in(path);
  if (!in) return rows;
  std::string line;
  while (std::getline(in, line)) {
    json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded() || !value.is_object()) continue;  // a torn last line
    if (value.contains("settings")) {
      settings = value["settings"];
    } else {
      rows.push_back(std::move(value));
    }
  }
  return rows;
}

}  // namespace treematch::apps
