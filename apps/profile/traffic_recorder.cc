// Per-process traffic counters of the profiling library.
#include "apps/profile/traffic_recorder.h"

#include <algorithm>
#include <new>
#include <utility>

namespace treematch::profile {

TrafficRecorder::TrafficRecorder(int world_size, Concurrency concurrency, bool counting)
    : world_size_(world_size), concurrency_(concurrency), counting_(counting) {
  const std::size_t entries =
      (kTrafficClasses + 1) * static_cast<std::size_t>(world_size > 0 ? world_size : 0);
  // calloc, not new[]: large blocks come from fresh zero pages, touched only when a peer is.
  blocks_.reset(static_cast<Volume*>(std::calloc(entries > 0 ? entries : 1, sizeof(Volume))));
  if (!blocks_) throw std::bad_alloc();
}

std::span<const Volume> TrafficRecorder::row(TrafficClass traffic) const noexcept {
  return {block(static_cast<std::size_t>(traffic)), static_cast<std::size_t>(world_size_)};
}

std::span<const Volume> TrafficRecorder::incoming() const noexcept {
  return {block(kTrafficClasses), static_cast<std::size_t>(world_size_)};
}

void TrafficRecorder::add_from_peers(std::span<const Volume> from_peers) noexcept {
  Volume* onesided = block(static_cast<std::size_t>(TrafficClass::kOneSided));
  const std::size_t n = std::min(from_peers.size(), static_cast<std::size_t>(world_size_));
  for (std::size_t j = 0; j < n; ++j) {
    onesided[j].messages += from_peers[j].messages;
    onesided[j].bytes += from_peers[j].bytes;
  }
}

kernels::Csr TrafficRecorder::matrix_row(std::span<const TrafficClass> classes,
                                         VolumeMetric metric) const {
  return one_row(world_size_, [&](int peer) {
    std::uint64_t total = 0;
    for (const TrafficClass traffic : classes) {
      total += count_of(block(static_cast<std::size_t>(traffic))[peer], metric);
    }
    return total;
  });
}

PeerGroup::PeerGroup(std::vector<int> world_ranks, int rank)
    : world_ranks_(std::move(world_ranks)), rank_(rank) {}

void PeerGroup::flush(TrafficRecorder& recorder) noexcept {
  const Volume others = std::exchange(to_others_, Volume{});
  const Volume higher = std::exchange(to_higher_, Volume{});
  for (int m = 0; m < size(); ++m) {
    if (m == rank_) continue;
    if (others.messages > 0)
      send(recorder, TrafficClass::kCollective, m, others.bytes, others.messages);
    if (higher.messages > 0 && m > rank_) {
      send(recorder, TrafficClass::kCollective, m, higher.bytes, higher.messages);
    }
  }
}

void PeerGroup::add_deferred(std::span<Volume> by_world_rank) const noexcept {
  for (int m = 0; m < size(); ++m) {
    const int peer = world_rank(m);
    if (m == rank_ || peer < 0 || static_cast<std::size_t>(peer) >= by_world_rank.size()) continue;
    Volume& v = by_world_rank[static_cast<std::size_t>(peer)];
    v.messages += to_others_.messages + (m > rank_ ? to_higher_.messages : 0);
    v.bytes += to_others_.bytes + (m > rank_ ? to_higher_.bytes : 0);
  }
}

}  // namespace treematch::profile
