// A level whose rows live on several MPI ranks: partial sums where the rows are, decisions
// everywhere.
#include "src/distributed/distributed_level_matrix.h"

#include <algorithm>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "kernels/aggregation.h"
#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "kernels/partition_refinement.h"
#include "src/distributed/mpi_collectives.h"

namespace treematch::distributed {
namespace {

std::size_t at(Index i) {
  return static_cast<std::size_t>(i);
}

/// A partner-gain question for the rank holding u's row, and where the answer goes back.
struct GainQuery {
  Index u;
  Index a;
  Index b;
  Index v;
};

/// One member's partial aggregated row on its way to the rank that builds its group's row.
struct PartialHeader {
  Index group;
  Index position;  ///< the member's place in its group (fold order)
  Offset length;
};

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
                                               Offset gather_entries)
    : comm_(comm),
      rows_(rows),
      blocks_(std::move(blocks)),
      order_(rows.n),
      links_(links ? std::move(links) : std::make_shared<LinkCache>()),
      gather_entries_(gather_entries) {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &ranks_), "MPI_Comm_size");
}

DistributedLevelMatrix::DistributedLevelMatrix(MPI_Comm comm, kernels::Csr rows, RowBlocks blocks,
                                               Offset gather_entries)
    : DistributedLevelMatrix(comm, kernels::CsrView{}, std::move(blocks), nullptr, gather_entries) {
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
    check_mpi(MPI_Allreduce(&local, &longest_, 1, MPI_INT64_T, MPI_MAX, comm_), "MPI_Allreduce");
  }
  return longest_;
}

kernels::CsrView DistributedLevelMatrix::links(Offset limit) {
  // Cut-down copies are the same for every limit at or above the longest row.
  const Offset key = std::min(limit, longest_row());
  auto found = links_->find(key);
  if (found == links_->end()) {
    const kernels::Csr cut = key >= longest_row()
                                 ? kernels::Csr{}
                                 : kernels::strongest_neighbours(mine(), static_cast<Index>(key));
    found =
        links_->emplace(key, gather_rows(comm_, key >= longest_row() ? mine() : cut.view(), order_))
            .first;
  }
  kernels::CsrView view = found->second.view();
  view.n = order_;
  return view;
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
    // 2. Partner gains from the ranks holding the partners' rows.
    std::vector<std::vector<GainQuery>> queries(static_cast<std::size_t>(ranks_));
    for (Index l = 0; l < held; ++l) {
      for (const kernels::SwapOption& o : options[at(l)]) {
        if (o.u < stored)
          queries[static_cast<std::size_t>(blocks_.rank_of(o.u))].push_back(
              GainQuery{o.u, o.a, o.b, first() + l});
      }
    }
    std::vector<int> asked_by;  // queries from each rank, to send the answers back
    const std::vector<GainQuery> asked = all_to_all(comm_, queries, &asked_by);
    std::vector<double> answers(asked.size());
    tbb::parallel_for(std::size_t{0}, asked.size(), [&](std::size_t q) {
      const GainQuery& query = asked[q];
      answers[q] = kernels::partner_gain(rows, query.u - first(), owner, query.a, query.b, query.v);
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
    const std::vector<double> gains_back = all_to_all(comm_, replies);
    // 3. Each held row's best swap, with the answers in the order its options were asked.
    std::vector<std::size_t> next(static_cast<std::size_t>(ranks_), 0);
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
        if (mine_options[o].u >= stored) continue;
        const auto r = static_cast<std::size_t>(blocks_.rank_of(mine_options[o].u));
        gains[o] = gains_back[base[r] + next[r]++];
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
  // Each held row summed by target group, sent to the rank that builds its group's row.
  const kernels::Csr partial = kernels::member_partial_rows(mine(), first(), owner, count);
  const RowBlocks next_blocks = RowBlocks::even(count, ranks_);
  std::vector<std::vector<PartialHeader>> headers(static_cast<std::size_t>(ranks_));
  std::vector<std::vector<Index>> targets(static_cast<std::size_t>(ranks_));
  std::vector<std::vector<Weight>> weights(static_cast<std::size_t>(ranks_));
  const Index held = static_cast<Index>(partial.offsets.size()) - 1;
  for (Index l = 0; l < held; ++l) {
    const Index v = first() + l;
    const auto dest = static_cast<std::size_t>(next_blocks.rank_of(owner[at(v)]));
    const auto begin = static_cast<std::size_t>(partial.offsets[at(l)]);
    const auto end = static_cast<std::size_t>(partial.offsets[at(l) + 1]);
    headers[dest].push_back(
        PartialHeader{owner[at(v)], position[at(v)], static_cast<Offset>(end - begin)});
    targets[dest].insert(targets[dest].end(),
                         partial.targets.begin() + static_cast<std::ptrdiff_t>(begin),
                         partial.targets.begin() + static_cast<std::ptrdiff_t>(end));
    weights[dest].insert(weights[dest].end(),
                         partial.weights.begin() + static_cast<std::ptrdiff_t>(begin),
                         partial.weights.begin() + static_cast<std::ptrdiff_t>(end));
  }
  const std::vector<PartialHeader> got_headers = all_to_all(comm_, headers);
  const std::vector<Index> got_targets = all_to_all(comm_, targets);
  const std::vector<Weight> got_weights = all_to_all(comm_, weights);
  // Fold each group's members in member order.
  const Index group_first = next_blocks.first(rank_);
  const Index group_count = next_blocks.count(rank_);
  std::vector<std::vector<std::pair<Index, std::size_t>>> members(at(group_count));
  std::vector<Offset> starts(got_headers.size() + 1, 0);
  for (std::size_t h = 0; h < got_headers.size(); ++h) {
    starts[h + 1] = starts[h] + got_headers[h].length;
    members[at(got_headers[h].group - group_first)].emplace_back(got_headers[h].position, h);
  }
  kernels::Csr next;
  next.n = count;
  next.offsets.assign(at(group_count) + 1, 0);
  kernels::PartialRowFolder folder(count);
  std::vector<Index> row_targets(at(count));
  std::vector<Weight> row_weights(at(count));
  for (Index g = 0; g < group_count; ++g) {
    auto& list = members[at(g)];
    std::sort(list.begin(), list.end());
    for (const auto& [place, h] : list) {
      const auto b = static_cast<std::size_t>(starts[h]);
      const auto len = static_cast<std::size_t>(got_headers[h].length);
      folder.add(std::span<const Index>(got_targets).subspan(b, len),
                 std::span<const Weight>(got_weights).subspan(b, len), group_first + g);
    }
    const Offset length = folder.emit(row_targets, row_weights);
    next.targets.insert(next.targets.end(), row_targets.begin(), row_targets.begin() + length);
    next.weights.insert(next.weights.end(), row_weights.begin(), row_weights.begin() + length);
    next.offsets[at(g) + 1] = static_cast<Offset>(next.targets.size());
  }
  // Small enough: every rank takes the whole next level and continues with threads only.
  Offset local = next.offsets.back();
  Offset total = 0;
  check_mpi(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  if (total <= gather_entries_) {
    return std::make_unique<LocalLevelMatrix>(gather_rows(comm_, next.view(), count));
  }
  return std::make_unique<DistributedLevelMatrix>(comm_, std::move(next), next_blocks,
                                                  gather_entries_);
}

}  // namespace treematch::distributed
