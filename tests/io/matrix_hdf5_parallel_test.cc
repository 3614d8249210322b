// Under mpiexec: every rank writes its block of rows of one HDF5 file (parallel HDF5), rank 0 reads
// it back with the serial reader; every rank reads its rows with the collective reader; failures
// end on every rank at once.
#include <mpi.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/agreement.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_collective_reader.h"
#include "io/matrix_hdf5_parallel.h"
#include "io/matrix_hdf5_writer.h"
#include "tests/mpi_world.h"

namespace treematch::io {
namespace {

using testing::world_rank;
using testing::world_size;

namespace fs = std::filesystem;
using kernels::Csr;
using kernels::Index;

/// A directory made by rank 0, named on every rank, removed at the end.
class SharedDir {
 public:
  SharedDir() {
    std::string name(4096, '\0');
    if (world_rank() == 0) {
      std::string pattern = (fs::temp_directory_path() / "tm-parallel-XXXXXX").string();
      name = mkdtemp(pattern.data());
      name.resize(4096, '\0');
    }
    MPI_Bcast(name.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = name.c_str();
  }
  ~SharedDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
    }
  }
  SharedDir(const SharedDir&) = delete;
  SharedDir& operator=(const SharedDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Rank r holds (r + 1) % 3 rows (so some ranks hold none); n = their sum. Row i sends i + 1 to
// (i + 1) % n and 0.5 to (i + 3) % n when n > 3, columns sorted, never the diagonal.
Index rows_of(int rank) {
  return (rank + 1) % 3;
}

Index order() {
  Index n = 0;
  for (int r = 0; r < world_size(); ++r) n += rows_of(r);
  return n;
}

std::vector<std::pair<Index, double>> row_entries(Index i, Index n) {
  std::vector<std::pair<Index, double>> entries;
  if (n < 2) return entries;
  entries.emplace_back((i + 1) % n, i + 1.0);
  if (n > 3) entries.emplace_back((i + 3) % n, 0.5);
  std::sort(entries.begin(), entries.end());
  return entries;
}

/// This rank's rows, with offsets starting at 7 (any base must do).
Csr local_rows() {
  const Index n = order();
  Index first = 0;
  for (int r = 0; r < world_rank(); ++r) first += rows_of(r);
  Csr rows;
  rows.n = rows_of(world_rank());
  rows.offsets = {7};
  rows.targets.assign(7, -1);
  rows.weights.assign(7, -1.0);
  for (Index i = first; i < first + rows_of(world_rank()); ++i) {
    for (const auto& [column, weight] : row_entries(i, n)) {
      rows.targets.push_back(column);
      rows.weights.push_back(weight);
    }
    rows.offsets.push_back(static_cast<kernels::Offset>(rows.targets.size()));
  }
  return rows;
}

TEST(Hdf5ParallelCsrFile, EveryRankWritesItsRowsAndTheSerialReaderReadsTheMatrix) {
  const SharedDir dir;
  const std::string path = dir.file("matrix.h5");
  const Index n = order();
  {
    Hdf5ParallelCsrFile file(MPI_COMM_WORLD, path);
    file.write("/size", n, local_rows());
    file.write("/group/empty", n, [] {
      Csr rows;
      rows.offsets.assign(static_cast<std::size_t>(rows_of(world_rank())) + 1, 0);
      return rows;
    }());
    file.write_attribute("/", "source", "test");
    file.write_attribute("/group", "ranks", std::int64_t{world_size()});
    file.close();
  }
  if (world_rank() == 0) {
    const Csr read = read_hdf5_matrix_rows(path, "/size");
    ASSERT_EQ(read.n, n);
    for (Index i = 0; i < n; ++i) {
      const auto expected = row_entries(i, n);
      ASSERT_EQ(read.offsets[i + 1] - read.offsets[i],
                static_cast<kernels::Offset>(expected.size()))
          << "row " << i;
      for (std::size_t k = 0; k < expected.size(); ++k) {
        EXPECT_EQ(read.targets[read.offsets[i] + k], expected[k].first) << "row " << i;
        EXPECT_EQ(read.weights[read.offsets[i] + k], expected[k].second) << "row " << i;
      }
    }
    const Csr empty = read_hdf5_matrix_rows(path, "/group/empty");
    EXPECT_EQ(empty.n, n);
    EXPECT_TRUE(empty.targets.empty());
  }
}

TEST(Hdf5ParallelCsrFile, ACreateFailureThrowsOnEveryRankAndIsReportedOnce) {
  const SharedDir dir;
  const std::string path = dir.file("missing-directory/matrix.h5");
  int own_errors = 0;
  int peer_errors = 0;
  try {
    Hdf5ParallelCsrFile file(MPI_COMM_WORLD, path);
  } catch (const Hdf5PeerError&) {
    ++peer_errors;
  } catch (const Hdf5Error& e) {
    ++own_errors;
    EXPECT_NE(std::string(e.what()).find("H5Fcreate"), std::string::npos) << e.what();
  }
  int totals[2] = {0, 0};
  const int mine[2] = {own_errors, peer_errors};
  MPI_Allreduce(mine, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(totals[0], 1) << "one rank names the failed call";
  EXPECT_EQ(totals[1], world_size() - 1);
}

TEST(Hdf5ParallelCsrFile, RowsThatDoNotAddUpToTheOrderAreRejectedBeforeWriting) {
  const SharedDir dir;
  Hdf5ParallelCsrFile file(MPI_COMM_WORLD, dir.file("matrix.h5"));
  bool invalid = false;
  bool peer = false;
  try {
    file.write("/size", order() + 1, local_rows());
  } catch (const Hdf5PeerError&) {
    peer = true;
  } catch (const std::invalid_argument& e) {
    invalid = true;
    EXPECT_NE(std::string(e.what()).find("rows of a matrix of order"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(invalid, world_rank() == 0);
  EXPECT_EQ(peer, world_rank() != 0);
  // The file is still usable afterwards.
  file.write("/size", order(), local_rows());
  file.close();
}

/// A ring of 300 ranks per rank of the job (row i talks to i + 1 and i - 1) written by rank 0 as a
/// dense dataset in chunks of 16 rows, so that every rank reads several blocks of its own; the
/// entry (bad_row, bad_row + 1) holds `bad`.
std::string write_ring(const SharedDir& dir, Index bad_row, double bad) {
  const std::string path = dir.file("ring.h5");
  const Index n = 300 * world_size();
  if (world_rank() == 0) {
    write_matrix_hdf5_dense(
        path, n,
        [&](Index row, std::span<double> values) {
          values[static_cast<std::size_t>((row + 1) % n)] = row == bad_row ? bad : 1.0;
          values[static_cast<std::size_t>((row + n - 1) % n)] = 1.0;
        },
        "/matrix", Hdf5WriteMode::kTruncate, Hdf5WriteOptions{.compress = true, .chunk_rows = 16});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

/// This rank's even share of n rows: {first, count}.
std::pair<Index, Index> my_rows(Index n) {
  const Index first = n * world_rank() / world_size();
  return {first, n * (world_rank() + 1) / world_size() - first};
}

TEST(Hdf5MatrixReaderCollective, ABadValueOnlyTheLastRankReadsFailsEveryRankWithOneMessage) {
  const SharedDir dir;
  const Index n = 300 * world_size();
  // In the first of the last rank's two blocks: it must still make its second collective read.
  const Index bad_row = n - 290;
  const std::string path = write_ring(dir, bad_row, std::nan(""));
  int agreed = 0;
  {
    Hdf5MatrixReader reader = open_hdf5_matrix_collective(path, "/matrix", MPI_COMM_WORLD);
    const auto [first, count] = my_rows(reader.size());
    Csr rows;
    try {
      reader.read_rows_collective(first, count, rows);
    } catch (const AgreedError& e) {
      ++agreed;
      EXPECT_EQ(e.kind(), FailureKind::kInput);
      EXPECT_EQ(e.failed_rank(), world_size() - 1);
      EXPECT_EQ(std::string(e.what()), path + ": /matrix: entry at row " + std::to_string(bad_row) +
                                           ", column " + std::to_string(bad_row + 1) +
                                           " (0-based) is NaN (nan)");
    }
  }  // every rank closes the file (collective): a rank left reading would hang here
  int total = 0;
  MPI_Allreduce(&agreed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, world_size());
}

TEST(Hdf5MatrixReaderCollective, AnOrderRefusedOnOneRankIsRefusedOnEveryRank) {
  const SharedDir dir;
  const std::string path = write_ring(dir, 0, 1.0);
  const int last = world_size() - 1;
  int agreed = 0;
  try {
    Hdf5MatrixReader reader = open_hdf5_matrix_collective(
        path, "/matrix", MPI_COMM_WORLD, [&](const MatrixHeader& header) {
          if (world_rank() == last)
            throw InputError(path, std::to_string(header.order) + " is too many");
        });
  } catch (const AgreedError& e) {
    ++agreed;
    EXPECT_EQ(e.failed_rank(), last);
    EXPECT_EQ(std::string(e.what()),
              path + ": " + std::to_string(300 * world_size()) + " is too many");
  }
  int total = 0;
  MPI_Allreduce(&agreed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, world_size());
  // Every rank closed the file: it opens again, and reads.
  Hdf5MatrixReader reader = open_hdf5_matrix_collective(path, "/matrix", MPI_COMM_WORLD);
  const auto [first, count] = my_rows(reader.size());
  Csr rows;
  reader.read_rows_collective(first, count, rows);
  EXPECT_EQ(rows.targets.size(), 2 * static_cast<std::size_t>(count));
}

}  // namespace
}  // namespace treematch::io
