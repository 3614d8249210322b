// The input graph in row blocks over MPI ranks: symmetrised with one exchange, costed by blocks.
#include "src/distributed/distributed_input.h"

#include <numeric>

#include "src/model/cost.h"
#include "src/mpi/mpi_collectives.h"
#include "src/mpi/mpi_traffic.h"

namespace treematch::distributed {
namespace {

using kernels::at;

/// One entry of C^T on its way to the rank holding its row.
struct Transposed {
  Index row;
  Index col;
  Weight weight;
};

/// This rank's rows of C^T, from the entries of C every rank holds: row j of C^T gets (i, w)
/// for each C[i][j] = w. Entries arrive from ranks in rank order and each rank sends its rows in
/// order, so every row comes out sorted by column, as CommGraph's transpose leaves it.
kernels::Csr transposed_rows(MPI_Comm comm, const RowBlocks& blocks, int rank, Index n,
                             const kernels::Csr& rows) {
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  std::vector<std::vector<Transposed>> outgoing(static_cast<std::size_t>(ranks));
  const Index first = blocks.first(rank);
  for (Index l = 0; l + 1 < static_cast<Index>(rows.offsets.size()); ++l) {
    for (Offset e = rows.offsets[at(l)]; e < rows.offsets[at(l) + 1]; ++e) {
      const Index j = rows.targets[static_cast<std::size_t>(e)];
      outgoing[static_cast<std::size_t>(blocks.rank_of(j))].push_back(
          Transposed{j, first + l, rows.weights[static_cast<std::size_t>(e)]});
    }
  }
  const std::vector<Transposed> incoming = all_to_all(comm, outgoing);
  kernels::Csr t;
  t.n = n;
  t.offsets.assign(at(blocks.count(rank)) + 1, 0);
  for (const Transposed& entry : incoming) ++t.offsets[at(entry.row - first) + 1];
  std::partial_sum(t.offsets.begin(), t.offsets.end(), t.offsets.begin());
  t.targets.resize(incoming.size());
  t.weights.resize(incoming.size());
  std::vector<Offset> fill(t.offsets.begin(), t.offsets.end() - 1);
  for (const Transposed& entry : incoming) {
    const auto slot = static_cast<std::size_t>(fill[at(entry.row - first)]++);
    t.targets[slot] = entry.col;
    t.weights[slot] = entry.weight;
  }
  return t;
}

}  // namespace

RowBlocks DistributedMappingInput::blocks_for(MPI_Comm comm, Index n) {
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  return RowBlocks::even(n, ranks, kCostBlockRanks);
}

std::unique_ptr<DistributedMappingInput> DistributedMappingInput::from_directed_rows(
    MPI_Comm comm, Index n, kernels::Csr rows, const DistributedContext& ctx) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  RowBlocks blocks = blocks_for(comm, n);
  rows.n = n;
  const SymmetryChecksums local = symmetry_checksums(rows.view(), blocks.first(rank));
  std::uint64_t sums[2] = {local.forward, local.backward};
  {
    const CountedCall counted(sizeof sums);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  }
  const bool symmetric = sums[0] == sums[1];
  if (!symmetric) {
    const kernels::Csr t = transposed_rows(comm, blocks, rank, n, rows);
    rows = add_rows(rows.view(), t.view());
    rows.n = n;
  }
  return std::unique_ptr<DistributedMappingInput>(
      new DistributedMappingInput(comm, n, std::move(rows), std::move(blocks), !symmetric, ctx));
}

DistributedMappingInput::DistributedMappingInput(MPI_Comm comm, Index n, kernels::Csr rows,
                                                 RowBlocks blocks, bool symmetrised,
                                                 const DistributedContext& ctx)
    : comm_(comm),
      n_(n),
      rows_(std::move(rows)),
      blocks_(std::move(blocks)),
      symmetrised_(symmetrised),
      ctx_(ctx),
      links_(std::make_shared<LinkCache>()) {
  const Offset local = rows_.offsets.back();
  {
    const CountedCall counted(sizeof local);
    check_mpi(MPI_Allreduce(&local, &total_entries_, 1, MPI_INT64_T, MPI_SUM, comm_),
              "MPI_Allreduce");
  }
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm_, &rank), "MPI_Comm_rank");
  const Index first = blocks_.first(rank);
  double volume = 0.0;
  for (Index r = 0; r + 1 < static_cast<Index>(rows_.offsets.size()); ++r) {
    for (Offset e = rows_.offsets[at(r)]; e < rows_.offsets[at(r) + 1]; ++e) {
      if (rows_.targets[at(e)] != first + r) volume += rows_.weights[at(e)];
    }
  }
  {
    const CountedCall counted(sizeof volume);
    check_mpi(MPI_Allreduce(&volume, &total_volume_, 1, MPI_DOUBLE, MPI_SUM, comm_),
              "MPI_Allreduce");
  }
  total_volume_ *= symmetrised_ ? 0.5 : 1.0;
}

std::unique_ptr<LevelMatrix> DistributedMappingInput::first_level() const {
  // A small input is gathered once and mapped with threads only, as a large one is from the
  // level where it becomes small.
  if (total_entries_ <= ctx_.gather_entries)
    return std::make_unique<LocalLevelMatrix>(whole().view(), links_);
  return std::make_unique<DistributedLevelMatrix>(comm_, rows_.view(), blocks_, links_,
                                                  ctx_.gather_entries, ctx_.piece_entries);
}

MappingCost DistributedMappingInput::cost(const Topology& topology, const Mapping& mapping) const {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm_, &rank), "MPI_Comm_rank");
  const std::vector<MappingCost> mine =
      block_costs(rows_.view(), blocks_.first(rank), topology, mapping);
  const std::vector<MappingCost> all = all_gather<MappingCost>(comm_, mine);
  return sum_block_costs(all, symmetrised_ ? 0.5 : 1.0);
}

const CommGraph& DistributedMappingInput::whole() const {
  if (!whole_) {
    kernels::Csr all = gather_rows(comm_, rows_.view(), n_);
    whole_ = std::make_unique<CommGraph>(CommGraph::from_symmetric_csr(
        n_, std::move(all.offsets), std::move(all.targets), std::move(all.weights), symmetrised_));
  }
  return *whole_;
}

}  // namespace treematch::distributed
