// A level whose rows live on several MPI ranks: partial sums where the rows are, decisions
// everywhere.
#include "src/distributed/distributed_level_matrix.h"

#include <algorithm>
#include <compare>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "kernels/aggregation.h"
#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "kernels/partition_refinement.h"
#include "src/distributed/distributed_candidates.h"
#include "src/mpi/mpi_collectives.h"
#include "src/mpi/mpi_traffic.h"

namespace treematch::distributed {
namespace {

using kernels::at;

/// A question for the rank holding u's row: conn(u, a) - conn(u, owner(u)). Every member of group
/// a asks the same about u, so a rank asks it once (kernels::partner_balance).
struct BalanceQuery {
  Index u;
  Index a;

  friend auto operator<=>(const BalanceQuery&, const BalanceQuery&) = default;
};

/// One member's partial aggregated row on its way to the rank that builds its group's row.
struct PartialHeader {
  Index group;
  Index position;  ///< the member's place in its group (fold order)
  Offset length;
};

/// The members' partial rows this rank receives to build its groups' rows, in arrival order
/// (the fold sorts each group's members by position, so the order does not matter).
struct ReceivedPartials {
  std::vector<PartialHeader> headers;
  std::vector<Index> targets;  ///< headers[h]'s entries follow those of headers[0..h)
  std::vector<Weight> weights;
};

/// Where each destination's piece starts in a buffer laid out destination by destination.
std::vector<std::size_t> first_slots(std::span<const int> counts) {
  std::vector<std::size_t> slots(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r)
    slots[r] = slots[r - 1] + static_cast<std::size_t>(counts[r - 1]);
  return slots;
}

/// The rows of `values` (split at `offsets`) laid out destination by destination, rows in order
/// within each: one send buffer of the exact size.
template <typename T>
std::vector<T> by_destination(std::span<const T> values, std::span<const Offset> offsets,
                              std::span<const int> destination, std::span<const int> counts) {
  std::vector<std::size_t> slot = first_slots(counts);
  std::vector<T> out(slot.empty() ? 0 : slot.back() + static_cast<std::size_t>(counts.back()));
  for (std::size_t l = 0; l < destination.size(); ++l) {
    const auto begin = static_cast<std::size_t>(offsets[l]);
    const auto length = static_cast<std::size_t>(offsets[l + 1]) - begin;
    std::size_t& next = slot[static_cast<std::size_t>(destination[l])];
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(begin), length,
                out.begin() + static_cast<std::ptrdiff_t>(next));
    next += length;
  }
  return out;
}

/// Sends the partial rows of one piece of held rows (rows from `first`) to the ranks in
/// `destination`, appending what arrives here to `got`.
void send_piece(MPI_Comm comm, std::size_t ranks, const kernels::Csr& partial, Index first,
                std::span<const Index> owner, std::span<const Index> position,
                std::span<const int> destination, ReceivedPartials& got) {
  std::vector<int> row_counts(ranks, 0);
  std::vector<std::size_t> entries(ranks, 0);
  for (std::size_t l = 0; l < destination.size(); ++l) {
    const auto dest = static_cast<std::size_t>(destination[l]);
    ++row_counts[dest];
    entries[dest] += static_cast<std::size_t>(partial.offsets[l + 1] - partial.offsets[l]);
  }
  std::vector<int> entry_counts(ranks);
  for (std::size_t r = 0; r < ranks; ++r) entry_counts[r] = mpi_count(entries[r], "MPI_Alltoallv");
  {
    std::vector<PartialHeader> headers(destination.size());
    std::vector<std::size_t> slot = first_slots(row_counts);
    for (std::size_t l = 0; l < destination.size(); ++l) {
      const auto v = static_cast<std::size_t>(first) + l;
      headers[slot[static_cast<std::size_t>(destination[l])]++] =
          PartialHeader{owner[v], position[v], partial.offsets[l + 1] - partial.offsets[l]};
    }
    all_to_all_append<PartialHeader>(comm, headers, row_counts, got.headers);
  }
  all_to_all_append<Index>(
      comm, by_destination<Index>(partial.targets, partial.offsets, destination, entry_counts),
      entry_counts, got.targets);
  all_to_all_append<Weight>(
      comm, by_destination<Weight>(partial.weights, partial.offsets, destination, entry_counts),
      entry_counts, got.weights);
}

/// Each held row of `rows` (rows from `first`) summed by the groups of `owner`, sent to the rank
/// that builds its group's row (`next_blocks`), in pieces of at most `piece_entries` entries (a
/// longer row alone): little more than the rows held and the partial rows received is held at
/// once. Returns what arrives here.
ReceivedPartials exchange_partials(MPI_Comm comm, kernels::CsrView rows, Index first,
                                   std::span<const Index> owner, std::span<const Index> position,
                                   Index count, const RowBlocks& next_blocks,
                                   Offset piece_entries) {
  const std::size_t ranks = next_blocks.starts.size() - 1;
  const Index held = static_cast<Index>(rows.offsets.size()) - 1;
  // A partial row has at most min(length, count) entries.
  const auto bound = [&](Index l) {
    return std::min<Offset>(rows.row_end(l) - rows.row_begin(l), count);
  };
  std::vector<int> destination(at(held));
  std::vector<Offset> expected(2 * ranks, 0);  // per destination: rows, then entries at most
  for (Index l = 0; l < held; ++l) {
    const int dest = next_blocks.rank_of(owner[at(first + l)]);
    destination[at(l)] = dest;
    expected[2 * static_cast<std::size_t>(dest)] += 1;
    expected[2 * static_cast<std::size_t>(dest) + 1] += bound(l);
  }
  std::vector<Offset> incoming(2 * ranks, 0);
  {
    const CountedCall counted(2 * sizeof(Offset) * (ranks - 1));
    check_mpi(MPI_Alltoall(expected.data(), 2, MPI_INT64_T, incoming.data(), 2, MPI_INT64_T, comm),
              "MPI_Alltoall");
  }
  ReceivedPartials got;
  Offset rows_in = 0;
  Offset entries_in = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    rows_in += incoming[2 * r];
    entries_in += incoming[2 * r + 1];
  }
  // Capacity for the bound, never reallocated: pages never written are never resident.
  got.headers.reserve(static_cast<std::size_t>(rows_in));
  got.targets.reserve(static_cast<std::size_t>(entries_in));
  got.weights.reserve(static_cast<std::size_t>(entries_in));
  std::vector<Index> piece_ends;
  for (Index l = 0; l < held;) {
    Offset size = bound(l);
    Index end = l + 1;
    for (; end < held && size + bound(end) <= piece_entries; ++end) size += bound(end);
    piece_ends.push_back(end);
    l = end;
  }
  // Every rank makes as many exchanges (they are collective): empty pieces at the end.
  std::int64_t pieces = static_cast<std::int64_t>(piece_ends.size());
  {
    const CountedCall counted(sizeof pieces);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &pieces, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  }
  Index begin = 0;
  for (std::int64_t p = 0; p < pieces; ++p) {
    const Index end = static_cast<std::size_t>(p) < piece_ends.size()
                          ? piece_ends[static_cast<std::size_t>(p)]
                          : held;
    kernels::CsrView piece = rows;
    piece.offsets = rows.offsets.subspan(at(begin), at(end - begin) + 1);
    const kernels::Csr partial = kernels::member_partial_rows(piece, first + begin, owner, count);
    send_piece(comm, ranks, partial, first + begin, owner, position,
               std::span<const int>(destination).subspan(at(begin), at(end - begin)), got);
    begin = end;
  }
  return got;
}

/// An entry below the diagonal and the value of its mirror above it.
struct MirroredEntry {
  Index row;  ///< g, above `column`
  Index column;
  Weight weight;  ///< r[column][row]
};

/// kernels::mirror_upper_triangle on rows held in blocks (this rank's rows from `first`): each
/// held row h sends r[h][g], g > h, to the rank holding row g, which writes it into r[g][h].
void mirror_upper_triangle(MPI_Comm comm, kernels::Csr& held, Index first,
                           const RowBlocks& blocks) {
  std::vector<std::vector<MirroredEntry>> outgoing(blocks.starts.size() - 1);
  const Index rows = static_cast<Index>(held.offsets.size()) - 1;
  for (Index l = 0; l < rows; ++l) {
    for (Offset e = held.offsets[at(l)]; e < held.offsets[at(l) + 1]; ++e) {
      const Index g = held.targets[at(e)];
      if (g > first + l) {
        outgoing[static_cast<std::size_t>(blocks.rank_of(g))].push_back(
            MirroredEntry{g, first + l, held.weights[at(e)]});
      }
    }
  }
  const kernels::CsrView view = held.view();
  for (const MirroredEntry& entry : all_to_all(comm, outgoing)) {
    const Offset e = view.find(entry.row - first, entry.column);
    if (e >= 0) held.weights[at(e)] = entry.weight;
  }
}

}  // namespace

RowBlocks RowBlocks::even(Index rows, int ranks, Index unit) {
  RowBlocks blocks;
  blocks.starts.resize(static_cast<std::size_t>(ranks) + 1);
  const std::int64_t units = (static_cast<std::int64_t>(rows) + unit - 1) / unit;
  for (int r = 0; r <= ranks; ++r) {
    const std::int64_t start = units * r / ranks * unit;
    blocks.starts[static_cast<std::size_t>(r)] =
        static_cast<Index>(std::min<std::int64_t>(start, rows));
  }
  return blocks;
}

int RowBlocks::rank_of(Index row) const {
  const auto found = std::upper_bound(starts.begin(), starts.end(), row);
  return static_cast<int>(found - starts.begin()) - 1;
}

kernels::Csr gather_rows(MPI_Comm comm, kernels::CsrView mine, Index order) {
  std::vector<Offset> lengths(mine.offsets.size() - 1);
  for (std::size_t r = 0; r < lengths.size(); ++r)
    lengths[r] = mine.offsets[r + 1] - mine.offsets[r];
  const auto begin = static_cast<std::size_t>(mine.offsets.front());
  const auto entries = static_cast<std::size_t>(mine.offsets.back()) - begin;
  const std::vector<Offset> all_lengths = all_gather<Offset>(comm, lengths);
  kernels::Csr all;
  all.n = order;
  all.offsets.assign(all_lengths.size() + 1, 0);
  std::partial_sum(all_lengths.begin(), all_lengths.end(), all.offsets.begin() + 1);
  all.targets = all_gather<Index>(comm, mine.targets.subspan(begin, entries));
  all.weights = all_gather<Weight>(comm, mine.weights.subspan(begin, entries));
  return all;
}

DistributedLevelMatrix::DistributedLevelMatrix(MPI_Comm comm, kernels::CsrView rows,
                                               RowBlocks blocks, std::shared_ptr<LinkCache> links,
                                               Offset gather_entries, Offset piece_entries)
    : comm_(comm),
      rows_(rows),
      blocks_(std::move(blocks)),
      order_(rows.n),
      links_(links ? std::move(links) : std::make_shared<LinkCache>()),
      gather_entries_(gather_entries),
      piece_entries_(piece_entries) {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &ranks_), "MPI_Comm_size");
}

DistributedLevelMatrix::DistributedLevelMatrix(MPI_Comm comm, kernels::Csr rows, RowBlocks blocks,
                                               Offset gather_entries, Offset piece_entries)
    : DistributedLevelMatrix(comm, kernels::CsrView{}, std::move(blocks), nullptr, gather_entries,
                             piece_entries) {
  owned_ = std::move(rows);
  rows_ = owned_.view();
  order_ = owned_.n;
}

kernels::CsrView DistributedLevelMatrix::mine() const {
  kernels::CsrView view = rows_;
  view.n = order_;
  return view;
}

std::vector<Weight> DistributedLevelMatrix::row_sums() const {
  kernels::CsrView held = mine();
  held.n = static_cast<Index>(held.offsets.size()) - 1;
  const std::vector<Weight> local = kernels::row_sums(held);
  std::vector<Weight> sums = all_gather<Weight>(comm_, local);
  sums.resize(at(order_), 0.0);
  return sums;
}

Offset DistributedLevelMatrix::longest_row() const {
  if (longest_ < 0) {
    Offset local = 0;
    for (std::size_t r = 0; r + 1 < rows_.offsets.size(); ++r)
      local = std::max(local, rows_.offsets[r + 1] - rows_.offsets[r]);
    {
      const CountedCall counted(sizeof local);
      check_mpi(MPI_Allreduce(&local, &longest_, 1, MPI_INT64_T, MPI_MAX, comm_), "MPI_Allreduce");
    }
  }
  return longest_;
}

Offset DistributedLevelMatrix::piece() const {
  // An eighth of the rows held, so that what an exchange adds stays small beside them.
  constexpr Offset kSmallest = Offset{1} << 16;
  const Offset held = rows_.offsets.empty() ? 0 : rows_.offsets.back() - rows_.offsets.front();
  return std::min(piece_entries_, std::max(kSmallest, held / 8));
}

kernels::CsrView DistributedLevelMatrix::cut(Offset limit) {
  // Rows no longer than the limit are used as they are.
  if (limit >= longest_row()) return mine();
  auto found = links_->find(limit);
  if (found == links_->end())
    found = links_->emplace(limit, kernels::strongest_neighbours(mine(), static_cast<Index>(limit)))
                .first;
  kernels::CsrView view = found->second.view();
  view.n = order_;
  return view;
}

kernels::Groups DistributedLevelMatrix::neighbourhood_candidates(Offset limit,
                                                                 std::span<const Weight> rowsum,
                                                                 std::span<const std::uint8_t> free,
                                                                 std::span<const Index> fillers,
                                                                 Index k, int seeds) {
  return distributed_neighbourhood_candidates(comm_, cut(limit), blocks_, rowsum, free, fillers, k,
                                              seeds, piece());
}

kernels::Groups DistributedLevelMatrix::pack_remaining(Offset limit, std::span<const Weight> rowsum,
                                                       std::span<std::uint8_t> free, Index k) {
  return distributed_pack_remaining(comm_, cut(limit), blocks_, rowsum, free, k);
}

std::vector<Weight> DistributedLevelMatrix::group_values(std::span<const Weight> rowsum,
                                                         const kernels::Groups& groups) const {
  // Each member's inside weight where its row lives; the others add +0.0, which is exact.
  std::vector<Weight> partial = kernels::inside_partials(mine(), first(), groups);
  sum_in_place(comm_, partial);
  std::vector<Weight> values(at(groups.count()));
  const auto k = static_cast<std::size_t>(groups.k);
  tbb::parallel_for(Index{0}, groups.count(), [&](Index g) {
    values[at(g)] = kernels::value_from_partials(
        rowsum, groups.group(g), std::span<const Weight>(partial).subspan(at(g) * k, k));
  });
  return values;
}

long long DistributedLevelMatrix::refine_partition(kernels::Groups& groups, int rounds) const {
  if (groups.count() < 2) return 0;
  const kernels::CsrView rows = mine();
  const Index held = static_cast<Index>(rows.offsets.size()) - 1;
  const Index stored = blocks_.starts.back();
  std::vector<Index> owner = kernels::group_owner(groups, order_);
  long long swaps = 0;
  for (int round = 0; round < rounds; ++round) {
    // 1. Options of the rows held here.
    std::vector<std::vector<kernels::SwapOption>> options(at(held));
    tbb::enumerable_thread_specific<kernels::SwapOptionFinder> finders(
        [&] { return kernels::SwapOptionFinder(groups.count()); });
    tbb::parallel_for(Index{0}, held, [&](Index l) {
      finders.local().options(rows, l, first() + l, groups, owner, options[at(l)]);
    });
    // 2. Partner balances from the ranks holding the partners' rows, each (u, a) asked once.
    std::vector<std::vector<BalanceQuery>> queries(static_cast<std::size_t>(ranks_));
    for (Index l = 0; l < held; ++l) {
      for (const kernels::SwapOption& o : options[at(l)]) {
        if (o.u < stored)
          queries[static_cast<std::size_t>(blocks_.rank_of(o.u))].push_back(BalanceQuery{o.u, o.a});
      }
    }
    for (std::vector<BalanceQuery>& asked_of_rank : queries) {
      std::sort(asked_of_rank.begin(), asked_of_rank.end());
      asked_of_rank.erase(std::unique(asked_of_rank.begin(), asked_of_rank.end()),
                          asked_of_rank.end());
    }
    std::vector<int> asked_by;  // queries from each rank, to send the answers back
    const std::vector<BalanceQuery> asked = all_to_all(comm_, queries, &asked_by);
    std::vector<double> answers(asked.size());
    tbb::parallel_for(std::size_t{0}, asked.size(), [&](std::size_t q) {
      const BalanceQuery& query = asked[q];
      answers[q] =
          kernels::partner_balance(rows, query.u - first(), owner, query.a, owner[at(query.u)]);
    });
    // Answers go back in the order asked: rank by rank, query by query.
    std::vector<std::vector<double>> replies(static_cast<std::size_t>(ranks_));
    std::size_t q = 0;
    for (std::size_t r = 0; r < replies.size(); ++r) {
      const auto asked_here = static_cast<std::size_t>(asked_by[r]);
      replies[r].assign(answers.begin() + static_cast<std::ptrdiff_t>(q),
                        answers.begin() + static_cast<std::ptrdiff_t>(q + asked_here));
      q += asked_here;
    }
    const std::vector<double> balances = all_to_all(comm_, replies);
    // 3. Each held row's best swap: a partner's balance less 2 w(v, u) from v's own row, which is
    // partner_gain's value (the matrix is symmetric).
    std::vector<std::size_t> base(static_cast<std::size_t>(ranks_), 0);
    for (int r = 1; r < ranks_; ++r)
      base[static_cast<std::size_t>(r)] =
          base[static_cast<std::size_t>(r) - 1] + queries[static_cast<std::size_t>(r) - 1].size();
    std::vector<kernels::SwapProposal> proposals;
    std::vector<double> gains;
    for (Index l = 0; l < held; ++l) {
      const auto& mine_options = options[at(l)];
      gains.assign(mine_options.size(), 0.0);
      for (std::size_t o = 0; o < mine_options.size(); ++o) {
        const kernels::SwapOption& option = mine_options[o];
        if (option.u >= stored) continue;
        const auto r = static_cast<std::size_t>(blocks_.rank_of(option.u));
        const std::vector<BalanceQuery>& keys = queries[r];
        const auto key =
            std::lower_bound(keys.begin(), keys.end(), BalanceQuery{option.u, option.a});
        gains[o] = balances[base[r] + static_cast<std::size_t>(key - keys.begin())] -
                   2.0 * rows.weight(l, option.u);
      }
      const kernels::SwapProposal best = kernels::best_swap(first() + l, mine_options, gains);
      if (best.u >= 0) proposals.push_back(best);
    }
    // 4. Every rank applies all proposals in the same fixed order.
    const long long applied =
        kernels::apply_swaps(all_gather<kernels::SwapProposal>(comm_, proposals), groups, owner);
    swaps += applied;
    if (applied == 0) break;
  }
  groups = kernels::ordered_by_first_member(groups);
  return swaps;
}

std::unique_ptr<LevelMatrix> DistributedLevelMatrix::aggregate(
    const kernels::Groups& groups) const {
  const Index count = groups.count();
  const std::vector<Index> owner = kernels::group_owner(groups, order_);
  std::vector<Index> position(at(order_), 0);
  for (Index g = 0; g < count; ++g) {
    for (Index t = 0; t < groups.k; ++t) position[at(groups.group(g)[at(t)])] = t;
  }
  const RowBlocks next_blocks = RowBlocks::even(count, ranks_);
  const Index group_first = next_blocks.first(rank_);
  const Index group_count = next_blocks.count(rank_);
  kernels::Csr next;
  next.n = count;
  next.offsets.assign(at(group_count) + 1, 0);
  {
    // Each held row summed by target group, sent to the rank that builds its group's row.
    const ReceivedPartials got =
        exchange_partials(comm_, mine(), first(), owner, position, count, next_blocks, piece());
    // Fold each group's members in member order.
    std::vector<std::vector<std::pair<Index, std::size_t>>> members(at(group_count));
    std::vector<Offset> starts(got.headers.size() + 1, 0);
    std::vector<Offset> group_bound(at(group_count), 0);
    for (std::size_t h = 0; h < got.headers.size(); ++h) {
      const PartialHeader& header = got.headers[h];
      starts[h + 1] = starts[h] + header.length;
      members[at(header.group - group_first)].emplace_back(header.position, h);
      group_bound[at(header.group - group_first)] += header.length;
    }
    Offset bound = 0;
    for (const Offset b : group_bound) bound += std::min<Offset>(b, count);
    // Capacity for the bound, never reallocated: pages never written are never resident.
    next.targets.reserve(static_cast<std::size_t>(bound));
    next.weights.reserve(static_cast<std::size_t>(bound));
    // Batches of groups folded in parallel, each chunk of groups into a piece of its own, the
    // pieces then appended in group order: only one batch's rows are held twice. (The stencil
    // weighted in thirds of map_any_rank_count.sh folds several batches a rank.)
    constexpr Index kChunk = 128;
    constexpr Index kBatch = 32 * kChunk;
    tbb::enumerable_thread_specific<kernels::PartialRowFolder> folders(
        [count] { return kernels::PartialRowFolder(count); });
    std::vector<kernels::Csr> pieces;
    for (Index batch = 0; batch < group_count; batch += kBatch) {
      const Index batch_end = std::min(group_count, batch + kBatch);
      pieces.assign(at((batch_end - batch + kChunk - 1) / kChunk), kernels::Csr{});
      tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t c) {
        kernels::PartialRowFolder& folder = folders.local();
        kernels::Csr& piece = pieces[c];
        const Index begin = batch + static_cast<Index>(c) * kChunk;
        for (Index g = begin; g < std::min(batch_end, begin + kChunk); ++g) {
          auto& list = members[at(g)];
          std::sort(list.begin(), list.end());
          for (const auto& [place, h] : list) {
            const auto b = static_cast<std::size_t>(starts[h]);
            const auto len = static_cast<std::size_t>(got.headers[h].length);
            folder.add(std::span<const Index>(got.targets).subspan(b, len),
                       std::span<const Weight>(got.weights).subspan(b, len), group_first + g);
          }
          const std::size_t end = piece.targets.size();
          piece.targets.resize(end + folder.length());
          piece.weights.resize(end + folder.length());
          folder.emit(std::span<Index>(piece.targets).subspan(end),
                      std::span<Weight>(piece.weights).subspan(end));
          piece.offsets.push_back(static_cast<Offset>(piece.targets.size()));
        }
      });
      Index g = batch;
      for (const kernels::Csr& piece : pieces) {
        const auto base = static_cast<Offset>(next.targets.size());
        next.targets.insert(next.targets.end(), piece.targets.begin(), piece.targets.end());
        next.weights.insert(next.weights.end(), piece.weights.begin(), piece.weights.end());
        for (std::size_t r = 1; r < piece.offsets.size(); ++r, ++g)
          next.offsets[at(g) + 1] = base + piece.offsets[r];
      }
    }
  }
  mirror_upper_triangle(comm_, next, group_first, next_blocks);
  // Small enough: every rank takes the whole next level and continues with threads only.
  Offset local = next.offsets.back();
  Offset total = 0;
  {
    const CountedCall counted(sizeof local);
    check_mpi(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  }
  if (total <= gather_entries_) {
    return std::make_unique<LocalLevelMatrix>(gather_rows(comm_, next.view(), count));
  }
  return std::make_unique<DistributedLevelMatrix>(comm_, std::move(next), next_blocks,
                                                  gather_entries_, piece_entries_);
}

}  // namespace treematch::distributed
