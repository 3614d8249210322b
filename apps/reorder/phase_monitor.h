// A phase of a running job measured from inside: what each rank sent to each other rank of a
// communicator between start and stop, read from Open MPI's monitoring (MPI_T) or from the
// counters of libtreematch-profile.so (seed 003, Fig. 1).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/reorder/reorder.h"
#include "src/model/comm_graph.h"

namespace treematch::distributed {

/// Which counters a phase reads.
enum class PhaseSource : int {
  kNone = 0,
  kMpiTool = 1,  ///< Open MPI's pml_monitoring_messages_size / _count (MPI_T, class SIZE)
  kProfile = 2,  ///< libtreematch-profile.so's counters (treematch_profile_snapshot)
};

/// "mpi_t:pml_monitoring" or "treematch-profile" (the `source` attribute of a written phase).
const char* to_string(PhaseSource source);

/// Cumulative counts of what this process sent to each rank of one communicator.
class SentCounters {
 public:
  virtual ~SentCounters() = default;
  [[nodiscard]] virtual PhaseSource source() const = 0;
  /// bytes[r] and messages[r] (communicator size entries): totals so far towards rank r.
  virtual void read(std::vector<std::uint64_t>& bytes, std::vector<std::uint64_t>& messages) = 0;
};

/// The counters this process can read for `comm`: MPI_T first, then the profiling library;
/// nullptr when neither is there (`why_not` then says what was looked for).
std::unique_ptr<SentCounters> open_sent_counters(MPI_Comm comm, std::string& why_not);

/// One phase on a communicator: started (collective), stopped (local), then read, written or
/// mapped (collective). The counters are read at start and at stop and subtracted, so traffic
/// before the phase never counts, whatever the counters' own reset rules.
class Phase {
 public:
  /// Collective over `comm` (an intracommunicator, duplicated for the phase's own collectives).
  /// Throws ReorderError on every rank, MPI_ERR_UNSUPPORTED_OPERATION, when some rank has no
  /// counters or the ranks do not read the same kind.
  explicit Phase(MPI_Comm comm);

  /// Local: the traffic since the start becomes this phase's row. std::logic_error when stopped.
  void stop();
  [[nodiscard]] bool stopped() const { return stopped_; }
  [[nodiscard]] PhaseSource source() const { return source_; }
  [[nodiscard]] MPI_Comm comm() const { return comm_.get(); }
  /// This process's row (after stop): bytes and messages towards each rank of the communicator.
  [[nodiscard]] const std::vector<std::uint64_t>& bytes() const { return bytes_; }
  [[nodiscard]] const std::vector<std::uint64_t>& messages() const { return messages_; }

  /// Collective: every rank's row gathered on rank 0 as directed (row, column, value) entries
  /// (the diagonal dropped), bytes or messages; empty on the other ranks.
  [[nodiscard]] std::vector<Triplet> gather(bool messages) const;

 private:
  Communicator comm_;
  PhaseSource source_ = PhaseSource::kNone;
  std::unique_ptr<SentCounters> counters_;
  std::vector<std::uint64_t> bytes_;
  std::vector<std::uint64_t> messages_;
  bool stopped_ = false;
  std::string broken_;  ///< why the counters could not be read at the start, if they could not
};

}  // namespace treematch::distributed
