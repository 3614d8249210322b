// HDF5 metadata reads tried in a child process once per file (see hdf5_probe.h).
#include "io/hdf5_probe.h"

#include <sys/stat.h>

#include <compare>
#include <cstddef>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "io/contained_call.h"
#include "io/input_error.h"

namespace treematch::io {
namespace {

/// A file as the probes know it: one rewritten or replaced since is probed again.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  long long modified_ns = 0;
  long long changed_ns = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return std::nullopt;
  return FileIdentity{
      status.st_dev, status.st_ino, status.st_size,
      static_cast<long long>(status.st_mtim.tv_sec) * 1'000'000'000LL + status.st_mtim.tv_nsec};
}

/// What the probes of this process found: the reads that passed, by file, and the files refused
/// with the message they were refused with.
class ProbeRecord {
 public:
  static ProbeRecord& instance() {
    static ProbeRecord record;
    return record;
  }

  [[nodiscard]] std::optional<std::string> refusal(const FileIdentity& file) {
    const std::scoped_lock lock(mutex_);
    const auto found = refused_.find(file);
    if (found == refused_.end()) return std::nullopt;
    return found->second;
  }

  [[nodiscard]] bool all_passed(const FileIdentity& file, const std::vector<std::string>& reads) {
    const std::scoped_lock lock(mutex_);
    for (const std::string& read : reads) {
      if (!passed_.contains({file, read})) return false;
    }
    return true;
  }

  void record_passed(const FileIdentity& file, const std::vector<std::string>& reads) {
    const std::scoped_lock lock(mutex_);
    forget_when_full();
    for (const std::string& read : reads) passed_.emplace(file, read);
  }

  void record_refused(const FileIdentity& file, const std::string& message) {
    const std::scoped_lock lock(mutex_);
    forget_when_full();
    refused_.emplace(file, message);
  }

 private:
  /// A long batch or fuzzing run reads many files: the record is a cache, started afresh when
  /// large (a file forgotten is only probed again).
  void forget_when_full() {
    constexpr std::size_t kMaxEntries = 4096;
    if (passed_.size() + refused_.size() < kMaxEntries) return;
    passed_.clear();
    refused_.clear();
  }

  std::mutex mutex_;
  std::set<std::pair<FileIdentity, std::string>> passed_;
  std::map<FileIdentity, std::string> refused_;
};

}  // namespace

void hdf5_read_tried_in_child(const std::string& path, const std::vector<std::string>& reads,
                              const std::string& what, const std::function<void()>& read) {
  // A file that cannot be looked at is not probed: opening it fails cleanly in this process.
  const std::optional<FileIdentity> file = identity_of(path);
  if (!file) return;
  ProbeRecord& record = ProbeRecord::instance();
  if (std::optional<std::string> refused = record.refusal(*file)) {
    throw InputError(path, *refused);
  }
  if (record.all_passed(*file, reads)) return;
  if (const std::optional<std::string> failure = failure_in_child(read, library_probe_seconds())) {
    const std::string message = "HDF5 " + *failure + " reading " + what + ": the file is damaged";
    record.record_refused(*file, message);
    throw InputError(path, message);
  }
  record.record_passed(*file, reads);
}

}  // namespace treematch::io
