// Under mpiexec: the allocation topology of this machine and the in-job reorder (C++ and C APIs).
#include <gtest/gtest.h>

#include <mpi.h>
#include <sched.h>
#include <unistd.h>
#include <algorithm>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "apps/reorder/reorder.h"
#include "apps/reorder/treematch_reorder.h"
#include "io/allocation_topology.h"
#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "tests/mpi_world.h"

namespace treematch::distributed {
namespace {

using testing::world_rank;
using testing::world_size;

/// The CPUs this process may run on (sched_getaffinity: independent of hwloc).
std::vector<int> affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

/// Rank 0's string on every rank.
std::string broadcast(std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

/// The test pattern on p ranks, row r described by rank r: r talks 1000 to its "partner"
/// (r + p/2) mod p, 10 to r + 1 and 1 to r + 2: far apart in rank order, close in TreeMatch's.
struct Row {
  std::vector<int> destinations;
  std::vector<int> weights;
};

Row pattern_row(int r, int p) {
  Row row;
  const int partner = (r + p / 2) % p;
  const std::vector<std::pair<int, int>> edges{
      {partner, 1000}, {(r + 1) % p, 10}, {(r + 2) % p, 1}};
  for (const auto& [destination, weight] : edges) {
    if (destination == r) continue;
    std::size_t e = 0;
    while (e < row.destinations.size() && row.destinations[e] != destination) ++e;
    if (e == row.destinations.size()) {
      row.destinations.push_back(destination);
      row.weights.push_back(0);
    }
    row.weights[e] += weight;  // small p: the same rank may be partner and neighbour
  }
  return row;
}

CommGraph pattern_graph(int p) {
  std::vector<Triplet> entries;
  for (int r = 0; r < p; ++r) {
    const Row row = pattern_row(r, p);
    for (std::size_t e = 0; e < row.destinations.size(); ++e) {
      entries.push_back(Triplet{r, row.destinations[e], static_cast<Weight>(row.weights[e])});
    }
  }
  return CommGraph::from_triplets(p, std::move(entries));
}

/// The pattern as a dense text matrix written by rank 0; its path on every rank.
std::string write_pattern_file(int p, int extra_rows = 0) {
  std::string path;
  if (world_rank() == 0) {
    path = ::testing::TempDir() + "reorder_mpi_test_" + std::to_string(getpid()) + "_" +
           std::to_string(p + extra_rows) + ".mat";
    const int n = p + extra_rows;
    std::vector<std::vector<int>> dense(static_cast<std::size_t>(n),
                                        std::vector<int>(static_cast<std::size_t>(n), 0));
    for (int r = 0; r < p; ++r) {
      const Row row = pattern_row(r, p);
      for (std::size_t e = 0; e < row.destinations.size(); ++e) {
        dense[static_cast<std::size_t>(r)][static_cast<std::size_t>(row.destinations[e])] =
            row.weights[e];
      }
    }
    std::ofstream out(path);
    for (const auto& line : dense) {
      for (std::size_t j = 0; j < line.size(); ++j) out << (j > 0 ? " " : "") << line[j];
      out << '\n';
    }
  }
  return broadcast(path);
}

/// Checks, on every rank, that `result.comm` orders the processes as TreeMatch maps `graph` onto
/// the same slots: new rank k is the process sitting on slot sigma(k). `binding_unchanged`: the
/// process is still bound as it was during the reorder (then a single-CPU binding is checked).
void expect_treematch_order(const ReorderResult& result, const CommGraph& graph,
                            bool binding_unchanged = true) {
  const int p = world_size();
  const int me = world_rank();
  // Collectives first, so that a failed expectation on one rank cannot desynchronise the others.
  int comm_size = 0;
  MPI_Comm_size(result.comm.get(), &comm_size);
  int rank_in_comm = -1;
  MPI_Comm_rank(result.comm.get(), &rank_in_comm);
  std::vector<int> old_of_new(static_cast<std::size_t>(p), -1);
  MPI_Allgather(&me, 1, MPI_INT, old_of_new.data(), 1, MPI_INT, result.comm.get());
  int compare = MPI_UNEQUAL;
  MPI_Comm_compare(MPI_COMM_WORLD, result.comm.get(), &compare);

  ASSERT_EQ(comm_size, p);
  EXPECT_TRUE(compare == MPI_CONGRUENT || compare == MPI_SIMILAR);
  EXPECT_EQ(rank_in_comm, result.new_rank);
  ASSERT_EQ(result.new_rank_of_old.size(), static_cast<std::size_t>(p));
  EXPECT_EQ(result.new_rank_of_old[static_cast<std::size_t>(me)], result.new_rank);
  ASSERT_EQ(result.slots.slot_of_rank.size(), static_cast<std::size_t>(p));
  ASSERT_EQ(result.mapping.leaf_of_rank.size(), static_cast<std::size_t>(p));
  for (int k = 0; k < p; ++k) {
    const int old = old_of_new[static_cast<std::size_t>(k)];
    EXPECT_EQ(result.slots.slot_of_rank[static_cast<std::size_t>(old)],
              result.mapping.leaf_of_rank[static_cast<std::size_t>(k)])
        << "new rank " << k << " (old rank " << old << ") is not where TreeMatch put rank " << k;
  }

  // A process bound to one CPU sits on that CPU's slot (checked with sched_getaffinity).
  const std::vector<int> cpus = affinity();
  if (binding_unchanged && cpus.size() == 1) {
    const Index slot = result.slots.slot_of_rank[static_cast<std::size_t>(me)];
    EXPECT_EQ(result.slots.topology.os_index(slot) / result.slots.per_pu, cpus.front());
  }

  if (me != 0) return;
  // Rank 0 maps the same matrix onto the same slots, as `treematch map` does, and compares.
  const TreeMatchResult expected =
      treematch_map(graph, result.slots.topology, reorder_context(result.slots, default_context()));
  EXPECT_EQ(result.mapping.leaf_of_rank, expected.mapping.leaf_of_rank);
  // Independent cost check: the placement the communicator realises costs what TreeMatch's does.
  Mapping realised;
  realised.leaf_of_rank.resize(static_cast<std::size_t>(p));
  for (int k = 0; k < p; ++k) {
    realised.leaf_of_rank[static_cast<std::size_t>(k)] =
        result.slots
            .slot_of_rank[static_cast<std::size_t>(old_of_new[static_cast<std::size_t>(k)])];
  }
  EXPECT_EQ(evaluate_cost(graph, result.slots.topology, realised).hop_bytes,
            evaluate_cost(graph, result.slots.topology, expected.mapping).hop_bytes);
}

TEST(AllocationTopologyMpi, ThisMachineIsOneNodeWithItsOwnShape) {
  const AllocationTopology allocation = gather_allocation_topology(MPI_COMM_WORLD, NetworkShape{});
  const std::string tleaf_on_root = broadcast(allocation.topology.to_tleaf());
  // Expected: the machine as hwloc shows it to this process (its allowed PUs), not its binding.
  const Topology here = io::read_topology("");
  char host[256] = {};
  gethostname(host, sizeof host - 1);

  EXPECT_EQ(allocation.nodes, 1);
  EXPECT_EQ(allocation.hosts, (std::vector<std::string>{host}));
  EXPECT_EQ(allocation.topology.shape(), here.shape());
  EXPECT_EQ(allocation.topology.leaf_os_indexes(), here.leaf_os_indexes());
  EXPECT_EQ(allocation.topology.machine_level(), 0);
  EXPECT_FALSE(allocation.topology.has_holes());
  EXPECT_EQ(allocation.node_of_rank, std::vector<Index>(static_cast<std::size_t>(world_size()), 0));
  EXPECT_EQ(allocation.topology.to_tleaf(), tleaf_on_root);  // the same tree on every rank
  // Every CPU this rank may run on is a PU of a leaf: a binding does not shrink the allocation.
  std::vector<Index> pus;
  for (Index leaf = 0; leaf < allocation.topology.leaf_count(); ++leaf) {
    for (const Index cpu : allocation.topology.cpus(leaf)) pus.push_back(cpu);
  }
  for (const int cpu : affinity())
    EXPECT_NE(std::find(pus.begin(), pus.end(), cpu), pus.end()) << cpu;
}

TEST(AllocationTopologyMpi, ANetworkAddsSpareNodeSlots) {
  const AllocationTopology allocation =
      gather_allocation_topology(MPI_COMM_WORLD, parse_network("2:2"));
  const Topology here = io::read_topology("");
  EXPECT_EQ(allocation.topology.machine_level(), 2);
  EXPECT_EQ(allocation.topology.leaf_count(), 4 * here.leaf_count());
  ASSERT_EQ(allocation.hosts.size(), 4U);
  EXPECT_EQ(allocation.hosts[1], "unused-slot-1");
  EXPECT_EQ(allocation.topology.present_leaf_count(), here.leaf_count());
}

TEST(AllocationTopologyMpi, ReadUsesTheWorldUnderMpi) {
  const AllocationTopology read = read_allocation_topology(NetworkShape{});
  EXPECT_EQ(read.node_of_rank.size(), static_cast<std::size_t>(world_size()));
}

TEST(ReorderMpi, DistGraphOrderAgreesWithTreeMatchMap) {
  const int p = world_size();
  const int me = world_rank();
  const Row row = pattern_row(me, p);
  const std::vector<int> sources{me};
  const std::vector<int> degrees{static_cast<int>(row.destinations.size())};
  const ReorderResult result =
      reorder_dist_graph(MPI_COMM_WORLD, sources, degrees, row.destinations, row.weights);
  expect_treematch_order(result, pattern_graph(p));
}

TEST(ReorderMpi, ProcessesBoundOutOfOrderAreReorderedAfterTheirPus) {
  // Rank r binds itself to the allocation's PU (r + 1) mod PUs: a placement the launcher did not
  // make, so the new order generally differs from the old one (p = 2 on 2 PUs: ranks swap PUs).
  const int p = world_size();
  const int me = world_rank();
  const std::vector<Index> pus = io::read_topology("").leaf_os_indexes();
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool got = sched_getaffinity(0, sizeof saved, &saved) == 0;
  cpu_set_t one;
  CPU_ZERO(&one);
  const Index pu = pus[static_cast<std::size_t>(me + 1) % pus.size()];
  CPU_SET(static_cast<int>(pu), &one);
  const bool bound = got && sched_setaffinity(0, sizeof one, &one) == 0;

  const Row row = pattern_row(me, p);
  const std::vector<int> sources{me};
  const std::vector<int> degrees{static_cast<int>(row.destinations.size())};
  const ReorderResult result =
      reorder_dist_graph(MPI_COMM_WORLD, sources, degrees, row.destinations, row.weights);
  if (got) sched_setaffinity(0, sizeof saved, &saved);

  ASSERT_TRUE(bound) << "sched_setaffinity to PU " << pu << " failed";
  const Index slot = result.slots.slot_of_rank[static_cast<std::size_t>(me)];
  EXPECT_EQ(result.slots.topology.os_index(slot) / result.slots.per_pu, pu);
  expect_treematch_order(result, pattern_graph(p), /*binding_unchanged=*/false);
}

TEST(ReorderMpi, MatrixFileOrderAgreesWithTreeMatchMap) {
  const int p = world_size();
  const std::string path = write_pattern_file(p);
  const ReorderResult result = reorder_matrix_file(MPI_COMM_WORLD, path, "size");
  if (world_rank() == 0) {
    expect_treematch_order(result, io::read_matrix(path));
    std::remove(path.c_str());
  } else {
    expect_treematch_order(result, CommGraph());
  }
}

TEST(ReorderMpi, ABadDestinationFailsOnEveryRank) {
  const int p = world_size();
  const int me = world_rank();
  const int culprit = p - 1;
  const std::vector<int> sources{me};
  const std::vector<int> degrees{1};
  const std::vector<int> destinations{me == culprit ? p : (me + 1) % p};
  try {
    reorder_dist_graph(MPI_COMM_WORLD, sources, degrees, destinations, {});
    FAIL() << "no exception";
  } catch (const ReorderError& error) {
    const std::string prefix = p > 1 ? "rank " + std::to_string(culprit) + ": " : "";
    EXPECT_EQ(std::string(error.what()), prefix + "destinations[0] = " + std::to_string(p) +
                                             " is not a rank of the communicator (" +
                                             std::to_string(p) + " ranks)");
    EXPECT_EQ(error.error_class(), MPI_ERR_ARG);
    EXPECT_EQ(error.origin(), me == culprit);
  }
}

TEST(ReorderMpi, AMatrixOfTheWrongSizeFailsOnEveryRank) {
  const std::string path = write_pattern_file(world_size(), /*extra_rows=*/1);
  try {
    reorder_matrix_file(MPI_COMM_WORLD, path, "size");
    FAIL() << "no exception";
  } catch (const ReorderError& error) {
    EXPECT_NE(
        std::string(error.what())
            .find("the matrix has " + std::to_string(world_size() + 1) +
                  " processes but the communicator has " + std::to_string(world_size()) + " ranks"),
        std::string::npos)
        << error.what();
    EXPECT_EQ(error.error_class(), MPI_ERR_ARG);
  }
  if (world_rank() == 0) std::remove(path.c_str());
}

TEST(ReorderCApi, DistGraphFromRankZeroGivesAWorkingCommunicator) {
  // Appendix C: rank 0 describes the whole pattern, the others n = 0 (and MPI_UNWEIGHTED).
  const int p = world_size();
  const int me = world_rank();
  std::vector<int> sources;
  std::vector<int> degrees;
  std::vector<int> destinations;
  std::vector<int> weights;
  if (me == 0) {
    for (int r = 0; r < p; ++r) {
      const Row row = pattern_row(r, p);
      sources.push_back(r);
      degrees.push_back(static_cast<int>(row.destinations.size()));
      destinations.insert(destinations.end(), row.destinations.begin(), row.destinations.end());
      weights.insert(weights.end(), row.weights.begin(), row.weights.end());
    }
  }
  MPI_Comm reordered = MPI_COMM_NULL;
  const int code = treematch_reorder_dist_graph(
      MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(), degrees.data(),
      destinations.data(), me == 0 ? weights.data() : MPI_UNWEIGHTED, &reordered);
  ASSERT_EQ(code, MPI_SUCCESS);
  ASSERT_NE(reordered, MPI_COMM_NULL);
  // A ring on the new communicator: each rank receives its left neighbour's new rank.
  int rank = -1;
  MPI_Comm_rank(reordered, &rank);
  const int right = (rank + 1) % p;
  const int left = (rank + p - 1) % p;
  int received = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &received, 1, MPI_INT, left, 0, reordered,
               MPI_STATUS_IGNORE);
  EXPECT_EQ(received, left);
  MPI_Comm_free(&reordered);
}

TEST(ReorderCApi, MatrixFileGivesACommunicatorOfTheSameGroup) {
  const std::string path = write_pattern_file(world_size());
  MPI_Comm reordered = MPI_COMM_NULL;
  const int code = treematch_reorder_matrix_file(MPI_COMM_WORLD, path.c_str(), "size", &reordered);
  int compare = MPI_UNEQUAL;
  if (code == MPI_SUCCESS) MPI_Comm_compare(MPI_COMM_WORLD, reordered, &compare);
  EXPECT_EQ(code, MPI_SUCCESS);
  EXPECT_TRUE(compare == MPI_CONGRUENT || compare == MPI_SIMILAR);
  if (reordered != MPI_COMM_NULL) MPI_Comm_free(&reordered);
  if (world_rank() == 0) std::remove(path.c_str());
}

TEST(ReorderCApi, ErrorsAreReturnedOnEveryRank) {
  const int me = world_rank();
  MPI_Comm reordered = MPI_COMM_WORLD;
  // Rank 0 passes a negative n: every rank gets MPI_ERR_ARG and MPI_COMM_NULL.
  const int code = treematch_reorder_dist_graph(MPI_COMM_WORLD, me == 0 ? -1 : 0, nullptr, nullptr,
                                                nullptr, nullptr, &reordered);
  EXPECT_EQ(code, MPI_ERR_ARG);
  EXPECT_EQ(reordered, MPI_COMM_NULL);

  reordered = MPI_COMM_WORLD;
  const int missing = treematch_reorder_matrix_file(
      MPI_COMM_WORLD, "/nonexistent/reorder_mpi_test.mat", "size", &reordered);
  EXPECT_EQ(missing, MPI_ERR_ARG);
  EXPECT_EQ(reordered, MPI_COMM_NULL);

  const int bad_metric =
      treematch_reorder_matrix_file(MPI_COMM_WORLD, "unused.mat", "bytes", &reordered);
  EXPECT_EQ(bad_metric, MPI_ERR_ARG);

  // A NULL result pointer on one rank only: all ranks fail together instead of hanging.
  MPI_Comm other = MPI_COMM_NULL;
  const int null_result = treematch_reorder_matrix_file(MPI_COMM_WORLD, "unused.mat", "size",
                                                        me == 0 ? nullptr : &other);
  EXPECT_EQ(null_result, MPI_ERR_ARG);
  EXPECT_EQ(other, MPI_COMM_NULL);
}

}  // namespace
}  // namespace treematch::distributed

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // The other ranks fail the job through their exit code without repeating rank 0's report.
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  MPI_Finalize();
  return failed;
}
