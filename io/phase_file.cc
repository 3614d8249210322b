// A measured phase added to an HDF5 pattern file, all or nothing.
#include "io/phase_file.h"

#include <filesystem>
#include <system_error>

#include "io/atomic_file.h"
#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_hdf5_writer.h"

namespace treematch::io {
namespace {

bool allowed_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (const char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.';
    if (!plain) return false;
  }
  return true;
}

}  // namespace

void add_phase(const std::string& path, const PhaseMatrices& phase) {
  if (!allowed_name(phase.name)) {
    throw InputError(path, "phase name \"" + excerpt(phase.name) +
                               "\" is not allowed (letters, digits, '_', '-', '.')");
  }
  const std::string group = "/phase/" + phase.name;
  std::error_code error;
  const bool exists = std::filesystem::exists(path, error);
  if (exists) {
    const Hdf5ProbeScope probes;  // both links read in one child, not one each
    probe_hdf5_objects(path, {"/phase", group});
    if (hdf5_has_object(path, "/phase") && hdf5_has_object(path, group))
      throw InputError(path, "phase \"" + phase.name + "\" is already there (" + group + ")");
  }
  PendingFile pending(path);
  if (exists) {
    std::filesystem::copy_file(path, pending.temporary(),
                               std::filesystem::copy_options::overwrite_existing, error);
    if (error) throw InputError(path, "cannot copy before adding the phase: " + error.message());
  }
  const Hdf5WriteMode first = exists ? Hdf5WriteMode::kAppend : Hdf5WriteMode::kTruncate;
  write_matrix_hdf5_csr(pending.temporary(), phase.bytes.view(), group + "/size", first);
  write_matrix_hdf5_csr(pending.temporary(), phase.messages.view(), group + "/msg",
                        Hdf5WriteMode::kAppend);
  write_hdf5_attribute(pending.temporary(), group, "source", phase.source);
  write_hdf5_attribute(pending.temporary(), group, "ranks", std::int64_t{phase.bytes.n});
  pending.commit();
}

}  // namespace treematch::io
