// Candidate groups of a level whose rows live on several MPI ranks: grown where their seeds'
// rows are, each further member's row asked of the rank that holds it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>

#include "kernels/types.h"
#include "src/distributed/distributed_level_matrix.h"

namespace treematch::distributed {

/// kernels::neighbourhood_candidates over the rows of `held` (this rank's rows of `blocks`, each
/// cut as the candidates read them; held.n = the level's order): each rank grows the groups
/// seeded by its own rows, at most `piece_entries` / (k x longest row) of them at a time, and
/// gets each further member's row from the rank holding it, one exchange per step. No rank
/// holds more than its rows and the rows of the groups in flight; every rank returns every
/// candidate (the same Groups as the kernel on the gathered rows). Collective.
kernels::Groups distributed_neighbourhood_candidates(MPI_Comm comm, kernels::CsrView held,
                                                     const RowBlocks& blocks,
                                                     std::span<const Weight> rowsum,
                                                     std::span<const std::uint8_t> free,
                                                     std::span<const Index> fillers, Index k,
                                                     int seeds, Offset piece_entries);

/// kernels::pack_remaining over rows held in blocks: the rows of the processes still free (their
/// entries to free processes only, the others are never read) are gathered on every rank and
/// packed there. Collective.
kernels::Groups distributed_pack_remaining(MPI_Comm comm, kernels::CsrView held,
                                           const RowBlocks& blocks, std::span<const Weight> rowsum,
                                           std::span<std::uint8_t> free, Index k);

}  // namespace treematch::distributed
