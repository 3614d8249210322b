// Distributed mapping under mpiexec: the same mapping, bit for bit, as the threaded mapping of the
// gathered graph, whatever the number of ranks and wherever the levels are gathered.
#include <mpi.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "io/matrix_hdf5_collective_reader.h"
#include "io/matrix_hdf5_writer.h"
#include "src/distributed/distributed_input.h"
#include "src/driver/treematch.h"
#include "src/patterns/stencil_pattern.h"
#include "tests/graph_arrays.h"
#include "tests/mpi_world.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch::distributed {
namespace {

using testing::world_rank;

/// A directed n x n matrix with real (non-integer) volumes: row i sends to `degree` random
/// ranks, and to its neighbours i +- 1 in a ring, so that rows differ in length.
kernels::Csr directed_matrix(Index n, int degree, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::map<Index, Weight>> sent(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    auto& row = sent[static_cast<std::size_t>(i)];
    row[(i + 1) % n] += 1000.0 / 3.0;
    for (int d = 0; d < degree; ++d) {
      const auto j = static_cast<Index>(rng() % static_cast<std::uint64_t>(n));
      if (j != i) row[j] += static_cast<Weight>(1 + rng() % 1000) / 7.0;
    }
  }
  kernels::Csr rows;
  rows.n = n;
  for (const auto& row : sent) {
    for (const auto& [j, w] : row) {
      rows.targets.push_back(j);
      rows.weights.push_back(w);
    }
    rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
  }
  return rows;
}

/// The rows [first, first + count) of `rows`.
kernels::Csr slice(const kernels::Csr& rows, Index first, Index count) {
  kernels::Csr part;
  part.n = rows.n;
  const Offset base = rows.offsets[static_cast<std::size_t>(first)];
  part.offsets.clear();
  for (Index r = first; r <= first + count; ++r)
    part.offsets.push_back(rows.offsets[static_cast<std::size_t>(r)] - base);
  part.targets.assign(rows.targets.begin() + base,
                      rows.targets.begin() + rows.offsets[static_cast<std::size_t>(first + count)]);
  part.weights.assign(rows.weights.begin() + base,
                      rows.weights.begin() + rows.offsets[static_cast<std::size_t>(first + count)]);
  return part;
}

kernels::Csr rows_of(const CommGraph& graph) {
  const kernels::CsrView v = graph.view();
  kernels::Csr rows;
  rows.n = v.n;
  rows.offsets.assign(v.offsets.begin(), v.offsets.end());
  rows.targets.assign(v.targets.begin(), v.targets.end());
  rows.weights.assign(v.weights.begin(), v.weights.end());
  return rows;
}

/// Maps `directed` (every rank holds it) distributed, each rank given its own rows only, and
/// checks the result against the threaded mapping of the whole graph.
void expect_same_mapping(const kernels::Csr& directed, const Topology& topology,
                         Offset gather_entries, const Context& ctx = default_context(),
                         Offset piece_entries = DistributedContext{}.piece_entries) {
  const CommGraph graph = CommGraph::from_directed_rows(directed.n, directed.offsets,
                                                        directed.targets, directed.weights);
  const TreeMatchResult reference = treematch_map(graph, topology, ctx);

  const RowBlocks blocks = DistributedMappingInput::blocks_for(MPI_COMM_WORLD, directed.n);
  const int rank = world_rank();
  const auto input = DistributedMappingInput::from_directed_rows(
      MPI_COMM_WORLD, directed.n, slice(directed, blocks.first(rank), blocks.count(rank)),
      DistributedContext{gather_entries, piece_entries});
  const TreeMatchResult distributed = treematch_map(*input, topology, ctx);

  EXPECT_EQ(distributed.mapping.leaf_of_rank, reference.mapping.leaf_of_rank);
  EXPECT_EQ(distributed.cost.hop_bytes, reference.cost.hop_bytes);
  EXPECT_EQ(distributed.cost.weighted, reference.cost.weighted);
  EXPECT_EQ(input->was_symmetrised(), graph.was_symmetrised());
  // The matrix the whole-matrix phases (refinement, top-down mappings) gather: bit for bit the
  // threaded run's, so that those phases, the same code in both runs, give the same result.
  EXPECT_TRUE(testing::arrays(input->whole()) == testing::arrays(graph));
}

/// The default preset without its swap refinement: the refinement runs on the gathered matrix,
/// which expect_same_mapping compares bit for bit, and took two thirds of these tests' time.
Context unrefined_default() {
  Context ctx = default_context();
  ctx.refinement.swaps = false;
  return ctx;
}

/// unrefined_default() with only the strategies whose levels run distributed (the walks): the
/// top-down mappings run on the gathered matrix, the threaded run's code, which
/// DirectedRealVolumesSymmetrisedByExchange compares; here every rank would make their seeds at
/// once (DenseRowsCutToStrongestLinks: 27 s of this suite's 81 s under the sanitizers).
Context distributed_walks() {
  Context ctx = unrefined_default();
  ctx.driver.strategies = {Strategy::kBottomUp, Strategy::kPrioritisedLinks, Strategy::kIdentity};
  return ctx;
}

TEST(DistributedMapping, HierarchicalPatternEveryLevelDistributed) {
  // 4 x 4 x 8 = 128 leaves; the pattern relabelled at random; nothing gathered before the top.
  const Topology tree = testing::tree_of({4, 4, 8});
  const CommGraph pattern =
      testing::hierarchical_pattern(tree, testing::random_permutation(128, 7));
  expect_same_mapping(rows_of(pattern), tree, /*gather_entries=*/0);
}

TEST(DistributedMapping, StencilWeightedInThirdsEveryLevelDistributed) {
  // A relabelled 27-point stencil weighted 1, 1/2, 1/3 under the fast preset's walk: many swaps'
  // gains tie but for the order of their sums, so each level's matrix must be the same bit for bit
  // wherever its rows were summed (both triangles of an aggregated level hold one value).
  Context ctx = preset_context(Preset::kFast);
  ctx.driver.whole_matrix_max_entries = 0;  // the walk over distributed levels, as at scale
  // 65536 ranks: the smallest size found whose mapping the summation order changed (16384 did not).
  const StencilSpec spec{64, 64, 16, 1.0, 0.5, 1.0 / 3.0, /*seed=*/2};
  expect_same_mapping(rows_of(make_stencil_27(spec)), testing::tree_of({512, 16, 2, 4}),
                      /*gather_entries=*/0, ctx);
}

TEST(DistributedMapping, DirectedRealVolumesSymmetrisedByExchange) {
  const Topology tree = testing::tree_of({4, 4, 4, 16});  // 1024 leaves
  const kernels::Csr directed = directed_matrix(1000, 6, 11);
  expect_same_mapping(directed, tree, /*gather_entries=*/0, unrefined_default());
  // Gathered part-way, refined.
  expect_same_mapping(directed, tree, /*gather_entries=*/4000);
}

TEST(DistributedMapping, AggregationInSmallPieces) {
  // One row per exchange: as many exchanges on every rank as the rank holding most rows makes
  // (the others send nothing); the fold puts each group's members back in member order. 500
  // rows, not 1000: each exchange is a collective, which 3 MPICH ranks oversubscribed on 2 cores
  // pass one scheduler slice at a time (this test 31 s against 59 s there).
  const Topology tree = testing::tree_of({4, 4, 32});
  const kernels::Csr directed = directed_matrix(500, 6, 11);
  expect_same_mapping(directed, tree, /*gather_entries=*/0, unrefined_default(),
                      /*piece_entries=*/1);
  expect_same_mapping(directed, tree, /*gather_entries=*/0, unrefined_default(),
                      /*piece_entries=*/40);
}

TEST(DistributedMapping, DenseRowsCutToStrongestLinks) {
  // 600 processes talking to 200 others each: candidate growth uses the cut-down rows.
  const Topology tree = testing::tree_of({5, 4, 32});
  expect_same_mapping(directed_matrix(600, 200, 5), tree, /*gather_entries=*/0,
                      distributed_walks());
}

TEST(DistributedMapping, ArtificialProcessesAndOneHeuristic) {
  Context ctx = default_context();
  ctx.grouping.largest_index_last = false;
  ctx.walk.split = AritySplit::kNever;
  const Topology tree = testing::tree_of({3, 8, 4});  // 96 leaves for 90 processes
  expect_same_mapping(directed_matrix(90, 4, 3), tree, /*gather_entries=*/0, ctx);
}

TEST(DistributedMapping, CollectiveHdf5ReadGivesEachRankItsRows) {
  const kernels::Csr directed = directed_matrix(700, 5, 2);
  std::string path = "/tmp/tm_distributed_read_test.h5";
  if (world_rank() == 0) {
    // One file for all ranks; the name comes from rank 0.
    char name[] = "/tmp/tm_distributed_readXXXXXX";
    const int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    close(fd);
    path = std::string(name) + ".h5";
    std::remove(name);
    io::write_matrix_hdf5_csr(path, directed.view());
    io::write_matrix_hdf5_dense(
        path, directed.n,
        [&](Index row, std::span<double> values) {
          std::fill(values.begin(), values.end(), 0.0);
          for (Offset e = directed.offsets[static_cast<std::size_t>(row)];
               e < directed.offsets[static_cast<std::size_t>(row) + 1]; ++e)
            values[static_cast<std::size_t>(directed.targets[static_cast<std::size_t>(e)])] =
                directed.weights[static_cast<std::size_t>(e)];
        },
        "/dense", io::Hdf5WriteMode::kAppend);
  }
  int length = static_cast<int>(path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(length));
  MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);

  const RowBlocks blocks = DistributedMappingInput::blocks_for(MPI_COMM_WORLD, directed.n);
  const int rank = world_rank();
  for (const char* object : {"/matrix", "/dense"}) {
    io::Hdf5MatrixReader reader = io::open_hdf5_matrix_collective(path, object, MPI_COMM_WORLD);
    kernels::Csr mine;
    reader.read_rows_collective(blocks.first(rank), blocks.count(rank), mine);
    const kernels::Csr expected = slice(directed, blocks.first(rank), blocks.count(rank));
    EXPECT_EQ(mine.offsets, expected.offsets) << object;
    EXPECT_EQ(mine.targets, expected.targets) << object;
    EXPECT_EQ(mine.weights, expected.weights) << object;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
}

}  // namespace
}  // namespace treematch::distributed
