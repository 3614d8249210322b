// HDF5 metadata reads tried in a child process once per file and read (see hdf5_probe.h).
#include "io/hdf5_probe.h"

#include <hdf5.h>
#include <sys/stat.h>

#include <compare>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "io/contained_call.h"
#include "io/hdf5_handle.h"
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
  const auto nanoseconds = [](const timespec& time) {
    return static_cast<long long>(time.tv_sec) * 1'000'000'000LL + time.tv_nsec;
  };
  return FileIdentity{status.st_dev, status.st_ino, status.st_size, nanoseconds(status.st_mtim),
                      nanoseconds(status.st_ctim)};
}

}  // namespace

/// What the probes of a scope found: the reads that passed, by file, and the files refused with
/// the message they were refused with.
struct Hdf5ProbeScope::Record {
  std::set<std::pair<FileIdentity, std::string>> passed;
  std::map<FileIdentity, std::string> refused;
  std::map<FileIdentity, hid_t> kept_open;  ///< HDF5 file identifiers closed with the scope

  Record() = default;
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;
  ~Record() {
    for (const auto& [file, id] : kept_open) static_cast<void>(H5Fclose(id));
  }
};

namespace {

/// The record of this thread's outermost live scope, if any.
thread_local Hdf5ProbeScope::Record* current_record = nullptr;

}  // namespace

Hdf5ProbeScope::Hdf5ProbeScope() {
  if (current_record != nullptr) return;
  own_ = std::make_unique<Record>();
  current_record = own_.get();
}

Hdf5ProbeScope::~Hdf5ProbeScope() {
  if (own_) current_record = nullptr;
}

void hdf5_keep_open_in_scope(const std::string& path) {
  Hdf5ProbeScope::Record* record = current_record;
  if (record == nullptr) return;
  const std::optional<FileIdentity> file = identity_of(path);
  if (!file || record->kept_open.contains(*file)) return;
  const hdf5::QuietErrors quiet;
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id >= 0) record->kept_open.emplace(*file, id);
}

void hdf5_read_tried_in_child(const std::string& path, const std::vector<std::string>& reads,
                              const std::string& what, const std::function<void()>& read) {
  // A file that cannot be looked at is not probed: opening it fails cleanly in this process.
  const std::optional<FileIdentity> file = identity_of(path);
  if (!file) return;
  Hdf5ProbeScope::Record* record = current_record;
  if (record != nullptr) {
    if (const auto refused = record->refused.find(*file); refused != record->refused.end()) {
      throw InputError(path, refused->second);
    }
    bool all_passed = true;
    for (const std::string& name : reads)
      all_passed = all_passed && record->passed.contains({*file, name});
    if (all_passed) return;
  }
  if (const std::optional<std::string> failure = failure_in_child(read, library_probe_seconds())) {
    const std::string message = "HDF5 " + *failure + " reading " + what + ": the file is damaged";
    if (record != nullptr) record->refused.emplace(*file, message);
    throw InputError(path, message);
  }
  if (record != nullptr) {
    for (const std::string& name : reads) record->passed.emplace(*file, name);
  }
}

}  // namespace treematch::io
