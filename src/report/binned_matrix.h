// The communication matrix summed into a bounded grid of cells, in rank order or in mapped order.
#pragma once

#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"

namespace treematch {

/// Cells per side of a report's heat maps: a 512 x 512 grid stays a small image for any p.
inline constexpr Index kHeatMapCells = 512;

/// A square matrix of order `order` whose rows and columns are summed in runs of `cell_width`:
/// cell (r, c) holds the sum of the entries in rows [r w, r w + w) and columns [c w, c w + w) (the
/// last run may be shorter). O(cells^2) memory, whatever the order.
struct BinnedMatrix {
  Index order = 0;           ///< rows (= columns) before binning
  Index cell_width = 1;      ///< consecutive rows (columns) summed into one cell
  Index cells = 0;           ///< cells per side: ceil(order / cell_width)
  std::vector<double> sums;  ///< cells x cells, row-major

  [[nodiscard]] double at(Index row, Index col) const {
    return sums[static_cast<std::size_t>(row) * static_cast<std::size_t>(cells) +
                static_cast<std::size_t>(col)];
  }
};

/// The smallest run width w with ceil(order / w) <= max_cells (1 when order <= max_cells).
/// Throws std::invalid_argument if order < 0 or max_cells < 1.
Index cell_width_for(Index order, Index max_cells);

/// Bins the input matrix behind `graph` with rank i at row and column position[i]: cell (r, c) =
/// sum over stored entries (i, j) with position[i] in run r and position[j] in run c of
/// S_ij x graph.cost_scale(), so the cells add up to graph.total_volume() (a directed input C is
/// shown as (C + C^T) / 2). Positions may repeat (oversubscription) or leave gaps (unused cores).
/// One pass over the stored entries: O(nnz + p + order / w + cells^2) time, O(p + cells^2) memory.
/// Parallel over rows of cells, each summed by one task in rank order, so the result does not
/// depend on the number of threads. Throws std::invalid_argument if position.size() != p, a
/// position is outside [0, order), or max_cells < 1.
BinnedMatrix bin_matrix(const CommGraph& graph, const std::vector<Index>& position, Index order,
                        Index max_cells);

/// Sequential reference twin of bin_matrix (bit-identical result).
BinnedMatrix bin_matrix_seq(const CommGraph& graph, const std::vector<Index>& position, Index order,
                            Index max_cells);

/// The matrix in rank order: row and column i = rank i (order p).
BinnedMatrix bin_in_rank_order(const CommGraph& graph, Index max_cells);

/// The matrix in mapped order: row and column = the leaf (core) each rank was placed on, among
/// `leaves` leaves (order `leaves`). Same checks as bin_matrix.
BinnedMatrix bin_in_mapped_order(const CommGraph& graph, const Mapping& mapping, Index leaves,
                                 Index max_cells);

}  // namespace treematch
