// Candidate growth in exchanges: groups advance with the rows held here, then wait for one
// member's row from another rank, all groups of all ranks in the same rounds.
#include "src/distributed/distributed_candidates.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "kernels/candidate_groups.h"
#include "kernels/stepped_growth.h"
#include "src/mpi/mpi_collectives.h"
#include "src/mpi/mpi_traffic.h"

namespace treematch::distributed {
namespace {

using kernels::at;

/// This rank's rows of a level, numbered globally.
struct HeldRows {
  kernels::CsrView rows;
  Index first = 0;   ///< global number of the first held row
  Index stored = 0;  ///< rows of all ranks; processes past them are artificial (no row)

  [[nodiscard]] Index count() const { return static_cast<Index>(rows.offsets.size()) - 1; }
  [[nodiscard]] bool holds(Index v) const { return v >= first && v < first + count(); }
  [[nodiscard]] std::span<const Index> targets(Index v) const {
    return rows.row_targets(v - first);
  }
  [[nodiscard]] std::span<const Weight> weights(Index v) const {
    return rows.row_weights(v - first);
  }
};

/// Grows `group` with the rows held here until it needs a row held elsewhere or is done.
void advance_here(kernels::SteppedGroup& group, const HeldRows& held,
                  kernels::GrowthStepper& stepper) {
  while (!group.done) {
    const Index v = group.needs();
    if (v >= held.stored) {
      stepper.add_row(group, {}, {});  // an artificial process has no row
    } else if (held.holds(v)) {
      stepper.add_row(group, held.targets(v), held.weights(v));
    } else {
      return;
    }
  }
}

/// Answered rows on their way back, packed as bytes so that one exchange carries them and where
/// they end: each row is its length (an Index), its targets, then its weights. 4 + 12 bytes an
/// entry's worth; a struct of a target and a weight would be padded to 16.
class PackedRows {
 public:
  void add(std::span<const Index> targets, std::span<const Weight> weights) {
    const auto length = static_cast<Index>(targets.size());
    put(&length, sizeof length);
    put(targets.data(), targets.size_bytes());
    put(weights.data(), weights.size_bytes());
  }
  /// The packed rows, taken out.
  [[nodiscard]] std::vector<std::byte> take() { return std::move(bytes_); }

  /// The row starting at byte `at` of `packed`, unpacked into targets and weights.
  static void read(std::span<const std::byte> packed, std::size_t at, std::vector<Index>& targets,
                   std::vector<Weight>& weights) {
    Index length = 0;
    std::memcpy(&length, packed.data() + at, sizeof length);
    at += sizeof length;
    targets.resize(static_cast<std::size_t>(length));
    weights.resize(static_cast<std::size_t>(length));
    std::memcpy(targets.data(), packed.data() + at, targets.size() * sizeof(Index));
    at += targets.size() * sizeof(Index);
    std::memcpy(weights.data(), packed.data() + at, weights.size() * sizeof(Weight));
  }
  /// Where the row starting at byte `at` ends.
  static std::size_t skip(std::span<const std::byte> packed, std::size_t at) {
    Index length = 0;
    std::memcpy(&length, packed.data() + at, sizeof length);
    return at + sizeof length + static_cast<std::size_t>(length) * (sizeof(Index) + sizeof(Weight));
  }

 private:
  void put(const void* data, std::size_t size) {
    const auto* first = static_cast<const std::byte*>(data);
    bytes_.insert(bytes_.end(), first, first + size);
  }

  std::vector<std::byte> bytes_;
};

/// The rows asked by the ranks (asked[], asked_by[r] of them from rank r, in rank order), for
/// each asking rank in the order it asked.
std::vector<std::vector<std::byte>> answer(const HeldRows& held, std::span<const Index> asked,
                                           std::span<const int> asked_by) {
  std::vector<std::vector<std::byte>> out(asked_by.size());
  std::size_t q = 0;
  for (std::size_t r = 0; r < asked_by.size(); ++r) {
    PackedRows rows;
    for (int i = 0; i < asked_by[r]; ++i, ++q)
      rows.add(held.targets(asked[q]), held.weights(asked[q]));
    out[r] = rows.take();
  }
  return out;
}

bool has_free_neighbour(std::span<const Index> targets, std::span<const std::uint8_t> free) {
  return std::any_of(targets.begin(), targets.end(), [&](Index u) { return free[at(u)] != 0; });
}

}  // namespace

kernels::Groups distributed_neighbourhood_candidates(MPI_Comm comm, kernels::CsrView rows,
                                                     const RowBlocks& blocks,
                                                     std::span<const Weight> rowsum,
                                                     std::span<const std::uint8_t> free,
                                                     std::span<const Index> fillers, Index k,
                                                     int seeds, Offset piece_entries) {
  const int rank = rank_of(comm);
  const HeldRows held{rows, blocks.first(rank), blocks.starts.back()};
  const auto ranks = blocks.starts.size() - 1;
  Offset longest = 1;
  for (Index l = 0; l < held.count(); ++l)
    longest = std::max(longest, rows.row_end(l) - rows.row_begin(l));
  // Groups in flight hold about k rows each (their frontier): bounded like aggregation's pieces.
  const auto in_flight = static_cast<std::size_t>(
      std::max<Offset>(256, piece_entries / std::max<Offset>(1, Offset{k} * longest)));
  tbb::enumerable_thread_specific<kernels::GrowthStepper> steppers(
      [&] { return kernels::GrowthStepper(rowsum, free, fillers, k); });
  tbb::enumerable_thread_specific<std::vector<Index>> row_targets;  // a received row, unpacked
  tbb::enumerable_thread_specific<std::vector<Weight>> row_weights;
  std::vector<kernels::SteppedGroup> active;
  std::vector<Index> complete;  // the finished groups' members, k each
  std::vector<std::pair<kernels::Weight, Index>> partners;
  std::vector<std::vector<Index>> pairs;
  Index next_seed = held.first;
  while (true) {
    // New groups from the next seeds, while there is room.
    while (active.size() < in_flight && next_seed < held.first + held.count()) {
      const Index v = next_seed++;
      if (!free[at(v)] || !has_free_neighbour(held.targets(v), free)) continue;
      kernels::seed_pairs(held.targets(v), held.weights(v), free, v, seeds, partners, pairs);
      for (std::vector<Index>& pair : pairs)
        active.push_back(kernels::start_group(std::move(pair), k));
    }
    tbb::parallel_for(std::size_t{0}, active.size(),
                      [&](std::size_t g) { advance_here(active[g], held, steppers.local()); });
    // Finished groups leave; the others wait for a row held elsewhere.
    std::size_t waiting = 0;
    for (std::size_t g = 0; g < active.size(); ++g) {
      kernels::SteppedGroup& group = active[g];
      if (group.complete(k)) {
        complete.insert(complete.end(), group.members.begin(), group.members.end());
      } else if (!group.done) {
        if (waiting != g) active[waiting] = std::move(group);  // never onto itself
        ++waiting;
      }
    }
    active.resize(waiting);
    std::int64_t pending =
        static_cast<std::int64_t>(active.size()) + (next_seed < held.first + held.count() ? 1 : 0);
    {
      const CountedCall counted(sizeof pending);
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, &pending, 1, MPI_INT64_T, MPI_SUM, comm),
                "MPI_Allreduce");
    }
    if (pending == 0) break;
    // One row for each waiting group, asked of the rank that holds it.
    std::vector<std::vector<Index>> asks(ranks);
    std::vector<std::pair<std::size_t, std::size_t>> asked_where(active.size());
    for (std::size_t g = 0; g < active.size(); ++g) {
      const Index v = active[g].needs();
      const auto r = static_cast<std::size_t>(blocks.rank_of(v));
      asked_where[g] = {r, asks[r].size()};
      asks[r].push_back(v);
    }
    std::vector<int> asked_by;
    const std::vector<Index> asked = all_to_all(comm, asks, &asked_by);
    std::vector<int> answered_by;
    const std::vector<std::byte> rows_back =
        all_to_all(comm, answer(held, asked, asked_by), &answered_by);
    // Where each answered row starts, rank by rank in the order asked.
    std::vector<std::size_t> first_row(ranks, 0);
    std::vector<std::size_t> row_at;  // the byte where each answered row starts
    for (std::size_t r = 0, b = 0; r < ranks; ++r) {
      first_row[r] = row_at.size();
      const std::size_t end = b + static_cast<std::size_t>(answered_by[r]);
      for (; b < end; b = PackedRows::skip(rows_back, b)) row_at.push_back(b);
    }
    tbb::parallel_for(std::size_t{0}, active.size(), [&](std::size_t g) {
      std::vector<Index>& targets = row_targets.local();
      std::vector<Weight>& weights = row_weights.local();
      PackedRows::read(rows_back, row_at[first_row[asked_where[g].first] + asked_where[g].second],
                       targets, weights);
      steppers.local().add_row(active[g], targets, weights);
    });
  }
  return kernels::unique_sorted_groups(all_gather<Index>(comm, complete), k, /*parallel=*/true);
}

kernels::Groups distributed_pack_remaining(MPI_Comm comm, kernels::CsrView rows,
                                           const RowBlocks& blocks, std::span<const Weight> rowsum,
                                           std::span<std::uint8_t> free, Index k) {
  const int rank = rank_of(comm);
  const HeldRows held{rows, blocks.first(rank), blocks.starts.back()};
  kernels::Csr free_rows;
  free_rows.offsets.assign(at(held.count()) + 1, 0);
  for (Index l = 0; l < held.count(); ++l) {
    const Index v = held.first + l;
    if (free[at(v)]) {
      const auto targets = held.targets(v);
      const auto weights = held.weights(v);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        if (!free[at(targets[e])]) continue;
        free_rows.targets.push_back(targets[e]);
        free_rows.weights.push_back(weights[e]);
      }
    }
    free_rows.offsets[at(l) + 1] = static_cast<Offset>(free_rows.targets.size());
  }
  const kernels::Csr all = gather_rows(comm, free_rows.view(), static_cast<Index>(free.size()));
  return kernels::pack_remaining(all.view(), rowsum, free, k);
}

}  // namespace treematch::distributed
