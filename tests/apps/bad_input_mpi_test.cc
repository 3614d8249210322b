// `mpiexec -n 2|3 treematch map` on HDF5 rings whose bad data only one rank reads (a NaN, a
// negative value, a column out of range, a corrupt deflate chunk): every rank ends, non-zero,
// within the timeout, with exactly one error line for the whole job and no output file.
#include <hdf5.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/apps/run_command.h"
#include "tests/h5_id.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;

/// 1536 ranks: row 1400 is read by the last rank at 2 and 3 ranks alike.
constexpr int kRanks = 1536;
constexpr int kBadRow = 1400;
/// Entries per CSR chunk and rows per dense chunk: small, so that a corrupt chunk holds rows of
/// one rank only.
constexpr hsize_t kCsrChunk = 256;
constexpr hsize_t kDenseChunkRows = 64;
/// Seconds a run may take before it counts as a hang.
constexpr int kTimeout = 60;

enum class Defect { kNan, kNegative, kColumnOutOfRange, kCorruptChunk };

/// A chunked, deflated 1-D dataset `name` of `values` in `group`.
template <typename T>
void write_chunked(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                   const std::vector<T>& values) {
  const hsize_t length = values.size();
  const hsize_t chunk = std::min(length, kCsrChunk);
  const H5Id space(H5Screate_simple(1, &length, nullptr), H5Sclose);
  const H5Id plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  ASSERT_GE(H5Pset_chunk(plist, 1, &chunk), 0);
  ASSERT_GE(H5Pset_deflate(plist, 4), 0);
  const H5Id set(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, plist, H5P_DEFAULT),
                 H5Dclose);
  ASSERT_GE(set, 0);
  ASSERT_GE(H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
}

/// Where the chunk of `dataset` (in `path`) starting at `offset` lies in the file.
struct ChunkPlace {
  haddr_t address = 0;
  hsize_t bytes = 0;
};

ChunkPlace chunk_place(const std::string& path, const char* dataset,
                       const std::vector<hsize_t>& offset) {
  const H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  const H5Id set(H5Dopen2(file, dataset, H5P_DEFAULT), H5Dclose);
  unsigned filter_mask = 0;
  ChunkPlace place;
  EXPECT_GE(
      H5Dget_chunk_info_by_coord(set, offset.data(), &filter_mask, &place.address, &place.bytes),
      0);
  return place;
}

/// Overwrites all but the first two bytes of a stored chunk: inflate() fails on it.
void corrupt(const std::string& path, const ChunkPlace& place) {
  ASSERT_GT(place.bytes, 2u);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(place.address + 2));
  const std::string garbage(place.bytes - 2, '\xa5');
  file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  ASSERT_TRUE(file.good());
}

/// A ring (i talks to i - 1 and i + 1) as a deflated csr_matrix group /matrix with the defect in
/// row kBadRow.
void write_csr_ring(const std::string& path, Defect defect) {
  std::vector<double> data;
  std::vector<std::int64_t> indices;
  std::vector<std::int64_t> indptr{0};
  for (int i = 0; i < kRanks; ++i) {
    const int a = (i + kRanks - 1) % kRanks;
    const int b = (i + 1) % kRanks;
    indices.push_back(std::min(a, b));
    indices.push_back(std::max(a, b));
    data.push_back(1.0 + i % 7);
    data.push_back(1.0 + i % 7);
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  const std::size_t bad = 2 * kBadRow + 1;
  if (defect == Defect::kNan) data[bad] = std::nan("");
  if (defect == Defect::kNegative) data[bad] = -5.0;
  if (defect == Defect::kColumnOutOfRange) indices[bad] = kRanks + 7;
  {
    const H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const H5Id group(H5Gcreate2(file, "/matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    write_chunked(group, "data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data);
    write_chunked(group, "indices", H5T_STD_I64LE, H5T_NATIVE_INT64, indices);
    write_chunked(group, "indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, indptr);
    const hsize_t two = 2;
    const H5Id space(H5Screate_simple(1, &two, nullptr), H5Sclose);
    const H5Id shape(H5Acreate2(group, "shape", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose);
    const std::int64_t order[2] = {kRanks, kRanks};
    ASSERT_GE(H5Awrite(shape, H5T_NATIVE_INT64, order), 0);
  }
  if (defect == Defect::kCorruptChunk) {
    corrupt(path, chunk_place(path, "/matrix/data", {bad / kCsrChunk * kCsrChunk}));
  }
}

/// The same ring as a dense, deflated 2-D dataset /matrix in chunks of 64 rows.
void write_dense_ring(const std::string& path, Defect defect) {
  const auto n = static_cast<std::size_t>(kRanks);
  std::vector<double> values(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    values[i * n + (i + 1) % n] = 1.0;
    values[i * n + (i + n - 1) % n] = 1.0;
  }
  const std::size_t bad = static_cast<std::size_t>(kBadRow) * n + kBadRow + 1;
  if (defect == Defect::kNan) values[bad] = std::nan("");
  if (defect == Defect::kNegative) values[bad] = -3.0;
  {
    const H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const hsize_t dims[2] = {n, n};
    const hsize_t chunk[2] = {kDenseChunkRows, n};
    const H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const H5Id plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    ASSERT_GE(H5Pset_chunk(plist, 2, chunk), 0);
    ASSERT_GE(H5Pset_deflate(plist, 4), 0);
    const H5Id set(
        H5Dcreate2(file, "/matrix", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT),
        H5Dclose);
    ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
  if (defect == Defect::kCorruptChunk) {
    corrupt(path, chunk_place(path, "/matrix", {kBadRow / kDenseChunkRows * kDenseChunkRows, 0}));
  }
}

struct BadRing {
  std::string name;
  bool dense = false;
  Defect defect = Defect::kNan;
  std::string keyword;  ///< in the error line
};

std::ostream& operator<<(std::ostream& out, const BadRing& ring) {
  return out << ring.name;
}

/// Lines of `text` containing `needle`.
std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> found;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) != std::string::npos) found.push_back(line);
  }
  return found;
}

/// `timeout 60 mpiexec <launcher_options> -n ranks treematch <arguments>` in `dir`; the options in
/// the words of TM_MPIEXEC (cmake/TmTesting.cmake).
CommandResult run_mpi(int ranks, const std::string& arguments, const TempDir& dir,
                      const std::string& launcher_options = "") {
  return run_shell("timeout " + std::to_string(kTimeout) + " " + TM_MPIEXEC + " " +
                       launcher_options + " -n " + std::to_string(ranks) + " " + quote(TM_BINARY) +
                       " " + arguments,
                   dir.file("mpi-stdout.txt"), dir.file("mpi-stderr.txt"));
}

/// The job failed on its own (not killed by the timeout), with one error line naming `source` (the
/// matrix, or the option at fault) and containing `keyword`, and left no `output`.
void expect_one_agreed_error(const CommandResult& run, const std::string& source,
                             const std::string& keyword, const fs::path& output) {
  EXPECT_NE(run.exit_code, 0) << run.err;
  EXPECT_NE(run.exit_code, 124) << "timed out (a rank hangs):\n" << run.err;
  const std::vector<std::string> errors = lines_with(run.err, "treematch: error:");
  ASSERT_EQ(errors.size(), 1u) << run.err;
  EXPECT_NE(errors[0].find(source + ": "), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find(keyword), std::string::npos) << errors[0];
  EXPECT_FALSE(fs::exists(output));
}

class BadRingMpi : public ::testing::TestWithParam<std::tuple<BadRing, int>> {};

TEST_P(BadRingMpi, EveryRankEndsWithOneErrorLineAndNoOutput) {
  const auto& [ring, ranks] = GetParam();
  TempDir dir;
  const std::string matrix = dir.file(ring.name + ".h5");
  if (ring.dense) {
    write_dense_ring(matrix, ring.defect);
  } else {
    write_csr_ring(matrix, ring.defect);
  }
  const fs::path output = dir.path() / "r.perm";
  // 1536 processes on 128 cores x 12: the rows are read (not refused for their number).
  const CommandResult run = run_mpi(ranks,
                                    "map --matrix " + quote(matrix) +
                                        " --topology 'pack:8 core:16 pu:1' --oversubscribe 12 -o " +
                                        quote(output.string()),
                                    dir);
  expect_one_agreed_error(run, matrix, ring.keyword, output);
}

INSTANTIATE_TEST_SUITE_P(
    Rings, BadRingMpi,
    ::testing::Combine(
        ::testing::Values(BadRing{"csr_nan", false, Defect::kNan, "row 1400, column 1401"},
                          BadRing{"csr_negative", false, Defect::kNegative, "is negative"},
                          BadRing{"csr_column", false, Defect::kColumnOutOfRange,
                                  "/matrix/indices[2801] = 1543 is out of range"},
                          BadRing{"csr_corrupt_chunk", false, Defect::kCorruptChunk,
                                  "H5Dread failed on /matrix/data"},
                          BadRing{"dense_nan", true, Defect::kNan, "is NaN"},
                          BadRing{"dense_negative", true, Defect::kNegative, "is negative"},
                          BadRing{"dense_corrupt_chunk", true, Defect::kCorruptChunk,
                                  "H5Dread failed on /matrix"}),
        ::testing::Values(2, 3)),
    [](const ::testing::TestParamInfo<std::tuple<BadRing, int>>& param) {
      return std::get<0>(param.param).name + "_np" + std::to_string(std::get<1>(param.param));
    });

TEST(BadInputMpi, TooManyProcessesForTheSlotsIsOneLineFromTheHeader) {
  TempDir dir;
  const std::string matrix = dir.file("ring.h5");
  write_csr_ring(matrix, Defect::kNan);
  const fs::path output = dir.path() / "r.perm";
  // 1536 processes, 128 cores: refused from the shape, before row 1400's NaN is read.
  const CommandResult run =
      run_mpi(3,
              "map --matrix " + quote(matrix) + " --topology 'pack:8 core:16 pu:1' -o " +
                  quote(output.string()),
              dir);
  expect_one_agreed_error(run, matrix, "1536 processes but pack:8 core:16 pu:1 offers 128 slots",
                          output);
}

TEST(BadInputMpi, AMappingThatNeedsMoreMemoryThanAllowedIsOneLineFromTheHeader) {
  TempDir dir;
  const std::string matrix = dir.file("ring.h5");
  write_csr_ring(matrix, Defect::kNan);
  const fs::path output = dir.path() / "r.perm";
  // Every rank's share is refused from the shape and the CSR's length, before row 1400's NaN.
  const CommandResult run = run_mpi(3,
                                    "map --matrix " + quote(matrix) +
                                        " --topology 'pack:8 core:16 pu:1' --oversubscribe 12 "
                                        "--max-memory 1M -o " +
                                        quote(output.string()),
                                    dir);
  expect_one_agreed_error(run, matrix, "mapping 1536 processes (3072 entries)", output);
}

TEST(BadInputMpi, AnUnknownPresetIsOneLineForTheJob) {
  TempDir dir;
  const std::string matrix = dir.file("ring.h5");
  write_csr_ring(matrix, Defect::kNan);
  const fs::path output = dir.path() / "r.perm";
  const CommandResult run =
      run_mpi(2,
              "map --matrix " + quote(matrix) +
                  " --topology 'pack:8 core:16 pu:1' --preset quick -o " + quote(output.string()),
              dir);
  expect_one_agreed_error(run, "--preset", "--preset: unknown preset 'quick'", output);
}

// Open MPI's mpirun adds its own box after a non-zero exit; `mpirun -q` removes it, and then the
// job's whole stderr is treematch's one line. Hydra adds nothing of its own.
TEST(BadInputMpi, UnderAQuietLauncherTheErrorLineIsAllOfStderr) {
  TempDir dir;
  const std::string matrix = dir.file("bad.mat");
  std::ofstream(matrix) << "0 1\n1 x\n";
  const fs::path output = dir.path() / "r.perm";
  const std::string arguments = "map --matrix " + quote(matrix) +
                                " --topology 'pack:2 core:2 pu:1' -o " + quote(output.string());
  const CommandResult loud = run_mpi(2, arguments, dir);
  expect_one_agreed_error(loud, matrix, "'x' is not a number", output);
  if (std::string_view(TM_MPI_FLAVOUR) == "openmpi") {
    EXPECT_GT(lines_with(loud.err, "").size(), 1u) << "mpirun printed nothing of its own:\n"
                                                   << loud.err;
  }
  const CommandResult quiet = run_mpi(2, arguments, dir, "--quiet");
  expect_one_agreed_error(quiet, matrix, "'x' is not a number", output);
  EXPECT_EQ(lines_with(quiet.err, "").size(), 1u) << quiet.err;
}

// A treematch built for one MPI started by the other MPI's launcher (Debian installs both): each
// rank initialises alone and would believe it is rank 0 of 1. The job ends at once: the launcher's
// rank 0 says why in one line naming both and exits with 2. When every rank exited with 2, the
// launcher sometimes ended the job on another rank's exit before rank 0 had written its line.
TEST(BadInputMpi, TheOtherMpisLauncherIsRefusedInOneLine) {
  if (std::string(TM_OTHER_MPIEXEC).empty() || !fs::exists(TM_OTHER_MPIEXEC_PATH)) {
    GTEST_SKIP() << "the other MPI's launcher (" << TM_OTHER_MPIEXEC_PATH << ") is not installed";
  }
  TempDir dir;
  const std::string matrix = dir.write("ring.mat", "0 1 1\n1 0 1\n1 1 0\n");
  const fs::path output = dir.path() / "r.perm";
  const CommandResult run =
      run_shell("timeout " + std::to_string(kTimeout) + " " + TM_OTHER_MPIEXEC + " -n 3 " +
                    quote(TM_BINARY) + " map --matrix " + quote(matrix) +
                    " --topology 'pack:2 core:2' -o " + quote(output.string()),
                dir.file("mpi-stdout.txt"), dir.file("mpi-stderr.txt"));
  EXPECT_NE(run.exit_code, 0) << run.err;
  EXPECT_NE(run.exit_code, 124) << "timed out:\n" << run.err;
  const std::vector<std::string> refusals = lines_with(run.err, "treematch: built with");
  ASSERT_EQ(refusals.size(), 1u) << run.err;
  EXPECT_NE(refusals[0].find("one of 3 ranks that this MPI does not see"), std::string::npos)
      << refusals[0];
  EXPECT_NE(refusals[0].find(TM_OTHER_LAUNCHER_NAME), std::string::npos) << refusals[0];
  EXPECT_FALSE(fs::exists(output));
}

// A file whose object header is damaged past what HDF5 can close (found by the HDF5 fuzzer):
// HDF5's own shutdown at MPI_Finalize printed "HDF5: infinite loop closing library" and a line of
// codes after the error; HDF5 now starts before MPI and is not shut down at exit.
TEST(BadInputMpi, ADamagedObjectHeaderIsOneLineWithNothingFromHdf5) {
  TempDir dir;
  const std::string matrix =
      std::string(TM_SOURCE_ROOT) + "/tests/fuzz/corpus/hdf5_dense_fuzzer/corrupt_object_header.h5";
  const fs::path output = dir.path() / "r.perm";
  for (const int ranks : {1, 2}) {
    const CommandResult run = run_mpi(
        ranks,
        "map --matrix " + quote(matrix) + " --topology 'tleaf 1 64 1' -o " + quote(output.string()),
        dir);
    expect_one_agreed_error(run, matrix, "H5Oopen failed on /matrix", output);
    EXPECT_EQ(run.err.find("HDF5:"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace treematch::testing
