// The input matrix of a mapping run held in row blocks by the ranks of an MPI communicator.
#pragma once

#include <mpi.h>

#include <memory>

#include "src/distributed/distributed_level_matrix.h"
#include "src/model/comm_graph.h"
#include "src/mpi/mpi_environment.h"
#include "src/walk/mapping_input.h"

namespace treematch::distributed {

/// What changes when the mapping runs over several ranks (never the mapping itself).
struct DistributedContext {
  /// A level is gathered on every rank, and the rest of the walk runs with threads only, once it
  /// has at most this many stored entries (an input that small is gathered at once).
  Offset gather_entries = Offset{1} << 22;
  /// Aggregation makes and sends the members' partial rows in pieces of at most this many
  /// entries (a longer row alone), and at most an eighth of the entries a rank holds (not below
  /// 2^16): what an exchange adds to the rows held stays bounded. Candidate growth keeps about
  /// as many entries in flight.
  Offset piece_entries = Offset{1} << 22;
};

/// The symmetric communication graph in row blocks (starts multiple of kCostBlockRanks so that
/// costs reduce in the threaded order). Collective: every rank builds and uses it together.
class DistributedMappingInput final : public MappingInput {
 public:
  /// Builds from this rank's directed rows [first_row, first_row + rows) of an n x n matrix read
  /// on every rank (RowBlocks::even(n, ranks, kCostBlockRanks)): symmetric rows are used as
  /// they are, others become C + C^T (entries exchanged with the ranks holding the transposed
  /// rows), as CommGraph::from_directed_rows does.
  static std::unique_ptr<DistributedMappingInput> from_directed_rows(MPI_Comm comm, Index n,
                                                                     kernels::Csr rows,
                                                                     const DistributedContext& ctx);

  /// The row blocks of an n-process input over the ranks of `comm`.
  static RowBlocks blocks_for(MPI_Comm comm, Index n);

  [[nodiscard]] Index size() const override { return n_; }
  [[nodiscard]] Offset entries() const override { return total_entries_; }
  [[nodiscard]] std::unique_ptr<LevelMatrix> first_level() const override;
  [[nodiscard]] MappingCost cost(const Topology& topology, const Mapping& mapping) const override;
  [[nodiscard]] const CommGraph& whole() const override;

  /// Sum of the entries over i != j, as CommGraph::total_volume (summed over the ranks; for the
  /// overflow check of the inputs, not for costs).
  [[nodiscard]] double total_volume() const { return total_volume_; }

  /// Entries stored on this rank.
  [[nodiscard]] Offset local_entries() const { return rows_.offsets.back(); }
  [[nodiscard]] bool was_symmetrised() const { return symmetrised_; }

 private:
  DistributedMappingInput(MPI_Comm comm, Index n, kernels::Csr rows, RowBlocks blocks,
                          bool symmetrised, const DistributedContext& ctx);

  MPI_Comm comm_;
  Index n_ = 0;
  kernels::Csr rows_;
  RowBlocks blocks_;
  bool symmetrised_ = false;
  DistributedContext ctx_;
  Offset total_entries_ = 0;
  double total_volume_ = 0.0;
  std::shared_ptr<LinkCache> links_;
  mutable std::unique_ptr<CommGraph> whole_;
};

}  // namespace treematch::distributed
