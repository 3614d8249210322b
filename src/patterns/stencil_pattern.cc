// Builds the 27-point stencil graph with a seeded, portable rank permutation, and its nested block
// mapping.
#include "src/patterns/stencil_pattern.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "src/patterns/permutation.h"

namespace treematch {
namespace {

/// The rank each cell runs as: seeded_permutation, or the identity when not shuffled.
std::vector<Index> cell_ranks(Index cells, const StencilSpec& spec) {
  if (spec.shuffled) return seeded_permutation(cells, spec.seed);
  std::vector<Index> identity(kernels::at(cells));
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

/// The number of cells, checked as make_stencil_27 documents; `who` names the caller.
Index cell_count(const StencilSpec& spec, const char* who) {
  if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) {
    throw std::invalid_argument(std::string(who) + ": every dimension must be at least 1");
  }
  const long long cells = static_cast<long long>(spec.nx) * spec.ny * spec.nz;
  if (cells > std::numeric_limits<Index>::max()) {
    throw std::invalid_argument(std::string(who) + ": more than 2^31 - 1 cells");
  }
  return static_cast<Index>(cells);
}

std::string box_text(const CellBox& box) {
  return std::to_string(box.x) + "x" + std::to_string(box.y) + "x" + std::to_string(box.z);
}

}  // namespace

CommGraph make_stencil_27(const StencilSpec& spec) {
  const Index cells = cell_count(spec, "make_stencil_27");
  const std::vector<Index> rank_of_cell = cell_ranks(cells, spec);
  std::vector<Index> cell_of_rank(static_cast<std::size_t>(cells));
  for (Index c = 0; c < cells; ++c)
    cell_of_rank[static_cast<std::size_t>(rank_of_cell[static_cast<std::size_t>(c)])] = c;

  const Weight by_changed[4] = {0.0, spec.face, spec.edge, spec.corner};
  std::vector<Offset> offsets{0};
  offsets.reserve(static_cast<std::size_t>(cells) + 1);
  std::vector<Index> targets;
  std::vector<Weight> weights;
  targets.reserve(static_cast<std::size_t>(cells) * 26);
  weights.reserve(static_cast<std::size_t>(cells) * 26);
  std::vector<std::pair<Index, Weight>> row;
  for (Index r = 0; r < cells; ++r) {
    const Index c = cell_of_rank[static_cast<std::size_t>(r)];
    const Index x = c % spec.nx;
    const Index y = (c / spec.nx) % spec.ny;
    const Index z = c / (spec.nx * spec.ny);
    row.clear();
    for (Index dz = -1; dz <= 1; ++dz) {
      for (Index dy = -1; dy <= 1; ++dy) {
        for (Index dx = -1; dx <= 1; ++dx) {
          const int changed = (dx != 0) + (dy != 0) + (dz != 0);
          const Index nx = x + dx;
          const Index ny = y + dy;
          const Index nz = z + dz;
          if (changed == 0 || nx < 0 || ny < 0 || nz < 0 || nx >= spec.nx || ny >= spec.ny ||
              nz >= spec.nz)
            continue;
          const Index neighbour =
              rank_of_cell[static_cast<std::size_t>(nx + spec.nx * (ny + spec.ny * nz))];
          row.emplace_back(neighbour, by_changed[changed]);
        }
      }
    }
    std::sort(row.begin(), row.end());
    for (const auto& [target, weight] : row) {
      if (weight <= 0.0) continue;  // a zero weight means "no entry" in the model
      targets.push_back(target);
      weights.push_back(weight);
    }
    offsets.push_back(static_cast<Offset>(targets.size()));
  }
  return CommGraph::from_symmetric_csr(cells, std::move(offsets), std::move(targets),
                                       std::move(weights));
}

std::vector<Index> nested_block_arities(const StencilSpec& spec,
                                        const std::vector<CellBox>& boxes) {
  (void)cell_count(spec, "nested_block_arities");
  if (boxes.empty() || boxes.back().x != 1 || boxes.back().y != 1 || boxes.back().z != 1) {
    throw std::invalid_argument(
        "nested_block_arities: the last box must be one cell (1x1x1: one process per leaf)");
  }
  std::vector<Index> arities;
  CellBox parent{spec.nx, spec.ny, spec.nz};
  for (const CellBox& box : boxes) {
    if (box.x < 1 || box.y < 1 || box.z < 1 || parent.x % box.x != 0 || parent.y % box.y != 0 ||
        parent.z % box.z != 0) {
      throw std::invalid_argument("nested_block_arities: box " + box_text(box) +
                                  " does not tile the " + box_text(parent) + " box above it");
    }
    const Index arity = (parent.x / box.x) * (parent.y / box.y) * (parent.z / box.z);
    if (arity > 1) arities.push_back(arity);
    parent = box;
  }
  return arities;
}

Mapping nested_block_mapping(const StencilSpec& spec, const std::vector<CellBox>& boxes) {
  const Index cells = cell_count(spec, "nested_block_mapping");
  (void)nested_block_arities(spec, boxes);
  const std::vector<Index> rank_of_cell = cell_ranks(cells, spec);
  Mapping mapping;
  mapping.leaf_of_rank.resize(static_cast<std::size_t>(cells));
  for (Index z = 0; z < spec.nz; ++z) {
    for (Index y = 0; y < spec.ny; ++y) {
      for (Index x = 0; x < spec.nx; ++x) {
        // Down the boxes: the child holding the cell is one more mixed-radix digit of the leaf.
        Index leaf = 0;
        CellBox parent{spec.nx, spec.ny, spec.nz};
        Index px = x;  // the cell's coordinates inside `parent`
        Index py = y;
        Index pz = z;
        for (const CellBox& box : boxes) {
          const Index cy = parent.y / box.y;
          const Index cz = parent.z / box.z;
          const Index children = (parent.x / box.x) * cy * cz;
          leaf = leaf * children + (px / box.x * cy + py / box.y) * cz + pz / box.z;
          px %= box.x;
          py %= box.y;
          pz %= box.z;
          parent = box;
        }
        const Index rank = rank_of_cell[static_cast<std::size_t>(x + spec.nx * (y + spec.ny * z))];
        mapping.leaf_of_rank[static_cast<std::size_t>(rank)] = leaf;
      }
    }
  }
  return mapping;
}

}  // namespace treematch
