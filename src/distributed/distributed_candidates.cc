// Candidate growth in exchanges: groups advance with the rows held here, then wait for one
// member's row from another rank, all groups of all ranks in the same rounds.
#include "src/distributed/distributed_candidates.h"

#include <algorithm>
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
    const Index l = v - first;
    return rows.targets.subspan(at(rows.row_begin(l)), at(rows.row_end(l) - rows.row_begin(l)));
  }
  [[nodiscard]] std::span<const Weight> weights(Index v) const {
    const Index l = v - first;
    return rows.weights.subspan(at(rows.row_begin(l)), at(rows.row_end(l) - rows.row_begin(l)));
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

/// The rows asked by the ranks (asked[], asked_by[r] of them from rank r, in rank order)
/// answered: each row's length, then all the targets and weights, per asking rank.
struct Answers {
  std::vector<std::vector<Offset>> lengths;
  std::vector<std::vector<Index>> targets;
  std::vector<std::vector<Weight>> weights;
};

Answers answer(const HeldRows& held, std::span<const Index> asked, std::span<const int> asked_by) {
  const std::size_t ranks = asked_by.size();
  Answers out{std::vector<std::vector<Offset>>(ranks), std::vector<std::vector<Index>>(ranks),
              std::vector<std::vector<Weight>>(ranks)};
  std::size_t q = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    for (int i = 0; i < asked_by[r]; ++i, ++q) {
      const Index v = asked[q];
      const auto targets = held.targets(v);
      const auto weights = held.weights(v);
      out.lengths[r].push_back(static_cast<Offset>(targets.size()));
      out.targets[r].insert(out.targets[r].end(), targets.begin(), targets.end());
      out.weights[r].insert(out.weights[r].end(), weights.begin(), weights.end());
    }
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
    const Answers answers = answer(held, asked, asked_by);
    std::vector<int> lengths_from;
    const std::vector<Offset> lengths = all_to_all(comm, answers.lengths, &lengths_from);
    const std::vector<Index> targets = all_to_all(comm, answers.targets);
    const std::vector<Weight> weights = all_to_all(comm, answers.weights);
    // Where each answer's row starts: answers come rank by rank, in the order asked.
    std::vector<std::size_t> first_answer(ranks + 1, 0);
    for (std::size_t r = 0; r < ranks; ++r)
      first_answer[r + 1] = first_answer[r] + static_cast<std::size_t>(lengths_from[r]);
    std::vector<std::size_t> row_start(lengths.size() + 1, 0);
    for (std::size_t a = 0; a < lengths.size(); ++a)
      row_start[a + 1] = row_start[a] + static_cast<std::size_t>(lengths[a]);
    tbb::parallel_for(std::size_t{0}, active.size(), [&](std::size_t g) {
      const std::size_t a = first_answer[asked_where[g].first] + asked_where[g].second;
      const std::size_t length = row_start[a + 1] - row_start[a];
      steppers.local().add_row(active[g],
                               std::span<const Index>(targets).subspan(row_start[a], length),
                               std::span<const Weight>(weights).subspan(row_start[a], length));
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
  const Index order = static_cast<Index>(free.size());
  free_rows.n = order;
  const kernels::Csr all = gather_rows(comm, free_rows.view(), order);
  kernels::CsrView view = all.view();
  view.n = order;
  return kernels::pack_remaining(view, rowsum, free, k);
}

}  // namespace treematch::distributed
