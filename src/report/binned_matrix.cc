// Binning of the communication matrix for heat maps: one pass, rows of cells summed independently.
#include "src/report/binned_matrix.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace treematch {
namespace {

void check_positions(const CommGraph& graph, const std::vector<Index>& position, Index order) {
  if (position.size() != static_cast<std::size_t>(graph.size())) {
    throw std::invalid_argument("binned matrix: " + std::to_string(position.size()) +
                                " positions for " + std::to_string(graph.size()) +
                                " processes; give one position per process");
  }
  for (std::size_t rank = 0; rank < position.size(); ++rank) {
    if (position[rank] < 0 || position[rank] >= order) {
      throw std::invalid_argument("binned matrix: process " + std::to_string(rank) +
                                  " is at position " + std::to_string(position[rank]) +
                                  " outside [0, " + std::to_string(order) + ")");
    }
  }
}

BinnedMatrix bin_matrix_impl(const CommGraph& graph, const std::vector<Index>& position,
                             Index order, Index max_cells, bool parallel) {
  BinnedMatrix binned;
  binned.order = order;
  binned.cell_width = cell_width_for(order, max_cells);
  check_positions(graph, position, order);
  const Index width = binned.cell_width;
  const Index cells = (order + width - 1) / width;
  binned.cells = cells;
  binned.sums.assign(static_cast<std::size_t>(cells) * static_cast<std::size_t>(cells), 0.0);

  // The ranks of each row of cells, ascending (a counting sort), so that every row of cells is
  // summed by one task in a fixed order and no two tasks write the same cell.
  std::vector<Index> first(static_cast<std::size_t>(cells) + 1, 0);
  for (const Index at : position) ++first[static_cast<std::size_t>(at / width) + 1];
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<Index> ranks(position.size());
  std::vector<Index> next(first.begin(), first.end() - 1);
  for (std::size_t rank = 0; rank < position.size(); ++rank) {
    const auto row = static_cast<std::size_t>(position[rank] / width);
    ranks[static_cast<std::size_t>(next[row]++)] = static_cast<Index>(rank);
  }

  const kernels::CsrView view = graph.view();
  const double scale = graph.cost_scale();
  const auto sum_row = [&](Index row) {
    double* cell_row =
        binned.sums.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(cells);
    for (Index k = first[static_cast<std::size_t>(row)];
         k < first[static_cast<std::size_t>(row) + 1]; ++k) {
      const Index i = ranks[static_cast<std::size_t>(k)];
      for (Offset e = view.row_begin(i); e < view.row_end(i); ++e) {
        const auto entry = static_cast<std::size_t>(e);
        const Index col = position[static_cast<std::size_t>(view.targets[entry])] / width;
        cell_row[col] += view.weights[entry] * scale;
      }
    }
  };
  if (parallel) {
    tbb::parallel_for(tbb::blocked_range<Index>(0, cells, /*grainsize=*/1),
                      [&](const tbb::blocked_range<Index>& r) {
                        for (Index row = r.begin(); row < r.end(); ++row) sum_row(row);
                      });
  } else {
    for (Index row = 0; row < cells; ++row) sum_row(row);
  }
  return binned;
}

std::vector<Index> identity_positions(Index ranks) {
  std::vector<Index> position(static_cast<std::size_t>(ranks));
  std::iota(position.begin(), position.end(), 0);
  return position;
}

}  // namespace

Index cell_width_for(Index order, Index max_cells) {
  if (order < 0) {
    throw std::invalid_argument("binned matrix: order " + std::to_string(order) + " is negative");
  }
  if (max_cells < 1) {
    throw std::invalid_argument("binned matrix: at most " + std::to_string(max_cells) +
                                " cells per side; allow at least 1");
  }
  // ceil(order / w) <= max_cells  <=>  w >= ceil(order / max_cells).
  return std::max<Index>(1, (order + max_cells - 1) / max_cells);
}

BinnedMatrix bin_matrix(const CommGraph& graph, const std::vector<Index>& position, Index order,
                        Index max_cells) {
  return bin_matrix_impl(graph, position, order, max_cells, /*parallel=*/true);
}

BinnedMatrix bin_matrix_seq(const CommGraph& graph, const std::vector<Index>& position, Index order,
                            Index max_cells) {
  return bin_matrix_impl(graph, position, order, max_cells, /*parallel=*/false);
}

BinnedMatrix bin_in_rank_order(const CommGraph& graph, Index max_cells) {
  return bin_matrix(graph, identity_positions(graph.size()), graph.size(), max_cells);
}

BinnedMatrix bin_in_mapped_order(const CommGraph& graph, const Mapping& mapping, Index leaves,
                                 Index max_cells) {
  return bin_matrix(graph, mapping.leaf_of_rank, leaves, max_cells);
}

}  // namespace treematch
