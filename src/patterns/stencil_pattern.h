// A synthetic regular pattern: a 3-D 27-point stencil with shuffled ranks, and its nested block
// mapping (benchmark and tests).
#pragma once

#include <cstdint>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"

namespace treematch {

/// A box of nx x ny x nz processes, each exchanging with its up to 26 neighbours inside the box
/// (no wraparound). Weights are per direction and symmetric: a neighbour across a face (one
/// coordinate differs) gets `face`, across an edge (two differ) `edge`, across a corner (three
/// differ) `corner`.
struct StencilSpec {
  Index nx = 1;
  Index ny = 1;
  Index nz = 1;
  Weight face = 1000.0;
  Weight edge = 100.0;
  Weight corner = 10.0;
  std::uint64_t seed = 1;  ///< of the rank permutation
  bool shuffled = true;    ///< false: cell i runs as rank i (the grid's natural order)
};

/// The stencil's symmetric communication graph. Cell (x, y, z) has grid index x + nx * (y + ny * z)
/// and runs as rank seeded_permutation(cells, seed)[grid index] (src/patterns/permutation.h), so
/// the rank order says nothing about the geometry. Throws std::invalid_argument for a dimension < 1
/// or more than 2^31 - 1 cells.
CommGraph make_stencil_27(const StencilSpec& spec);

/// The cells a node of the tree holds in a nested block mapping: a box of x by y by z cells.
struct CellBox {
  Index x = 1;
  Index y = 1;
  Index z = 1;
};

/// The arities, root first, of the tree `boxes` cut the stencil's grid for: a node whose box is
/// `parent` has (parent.x / box.x) (parent.y / box.y) (parent.z / box.z) children, the whole grid
/// being the root's box; levels of arity 1 are left out, as Topology drops them. Throws
/// std::invalid_argument when the boxes do not nest: every side of a box must divide the same
/// side of the box before it (the grid for the first), and the last box must be one cell.
std::vector<Index> nested_block_arities(const StencilSpec& spec, const std::vector<CellBox>& boxes);

/// The nested block mapping of make_stencil_27(spec) onto a balanced tree of
/// nested_block_arities(spec, boxes): the grid is cut into boxes[0], one per child of the root,
/// each of those into boxes[1], one per grandchild, and so on down to one cell per leaf. Children
/// are numbered in x-major order (the box at (bx, by, bz) inside its parent is child
/// (bx * cy + by) * cz + bz, where cy x cz boxes fit in the parent's y and z), and leaf =
/// child at the top level, then the next, as mixed-radix digits: the logical leaf of a tree
/// without holes such as "group:128 group:16 pack:2 core:4". Each rank gets the leaf of its cell
/// (ranks permuted by spec.seed as make_stencil_27 does); the mapping is one-to-one.
///
/// When it is optimal: the weighted cost of a one-to-one mapping is the sum over the tree's levels
/// of twice the level's link cost times the traffic between processes in different nodes of that
/// level. A mapping whose every level cuts the least traffic that any partition of the grid into
/// parts of that level's size can cut therefore costs the least, whatever the (non-negative) link
/// costs. The benchmark takes its stencil machines (4 x 4 x 8 cells per switch of 16 nodes,
/// 2 x 2 x 2 per node, 2 x 2 x 1 per package, one cell per core; weights face > edge > corner) to
/// meet that, every box having the least cut a box of its size can have (README, "Benchmark");
/// this is an argument, not a proof. The tests check the principle against every mapping of
/// grids of 8 cells, and that treematch's default lands exactly on this cost, never below, on a
/// shuffled 32 x 16 x 16 stencil with the benchmark's boxes. Boxes of other shapes (a 1 x 1 x 8
/// column per node, say) give a valid mapping that is not optimal. Throws std::invalid_argument as
/// nested_block_arities and make_stencil_27 do.
Mapping nested_block_mapping(const StencilSpec& spec, const std::vector<CellBox>& boxes);

}  // namespace treematch
