// MPI_Pcontrol phases of the profiling library (see pcontrol_phases.h).
#include "apps/profile/pcontrol_phases.h"

#include <algorithm>

namespace treematch::profile {

PcontrolPhases::PcontrolPhases(int world_size, int level)
    : world_size_(world_size > 0 ? world_size : 0),
      level_(level > 0 ? level : 0),
      since_(static_cast<std::size_t>(world_size_)) {}

void PcontrolPhases::change(int level, std::span<const Volume> counters) {
  level = std::max(level, 0);
  if (level == level_) return;
  const std::size_t peers = std::min(counters.size(), since_.size());
  if (level_ > 0) {
    auto found = rows_.find(level_);
    if (found == rows_.end() && rows_.size() >= kMaxPhases) {
      ++dropped_levels_;
    } else {
      if (found == rows_.end()) {
        found = rows_.emplace(level_, std::vector<Volume>(since_.size())).first;
      }
      std::vector<Volume>& row = found->second;
      for (std::size_t peer = 0; peer < peers; ++peer) {
        row[peer].messages += counters[peer].messages - since_[peer].messages;
        row[peer].bytes += counters[peer].bytes - since_[peer].bytes;
      }
    }
  }
  if (level > 0) std::copy_n(counters.begin(), peers, since_.begin());
  level_ = level;
}

std::vector<int> PcontrolPhases::levels() const {
  std::vector<int> levels;
  levels.reserve(rows_.size());
  for (const auto& entry : rows_) levels.push_back(entry.first);
  return levels;
}

kernels::Csr PcontrolPhases::matrix_row(int level, VolumeMetric metric) const {
  const auto found = rows_.find(level);
  if (found == rows_.end()) return one_row(0, [](int) { return std::uint64_t{0}; });
  const std::vector<Volume>& volumes = found->second;
  return one_row(static_cast<int>(volumes.size()), [&](int peer) {
    return count_of(volumes[static_cast<std::size_t>(peer)], metric);
  });
}

}  // namespace treematch::profile
