// Tests of the Open MPI monitoring reader: the recorded 16-rank sample, one-sided lines, errors.
#include <hdf5.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_reader.h"
#include "io/matrix_stream.h"
#include "io/ompi_monitoring_reader.h"
#include "tests/io/input_error_expectation.h"
#include "tests/test_support.h"

namespace treematch::io {
namespace {

using testing::expect_input_error;
using testing::TempDir;

namespace fs = std::filesystem;

std::string sample_dir() {
  return testing::data_dir() + "/ompi-monitoring-sample/stencil16";
}

/// Entry (i, j) of a directed CSR, 0 when absent.
double at(const kernels::Csr& m, Index i, Index j) {
  for (Offset e = m.offsets[static_cast<std::size_t>(i)];
       e < m.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
    if (m.targets[static_cast<std::size_t>(e)] == j) return m.weights[static_cast<std::size_t>(e)];
  }
  return 0.0;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// 66 comma-separated counts, as Open MPI prints a size histogram.
std::string histogram() {
  std::string counts = "1";
  for (int k = 1; k < 66; ++k) counts += ",0";
  return counts;
}

const std::string kSummaries =
    "# COLLECTIVES\n"
    "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\n"
    "D\tMPI COMMUNICATOR 4 SPLIT_TYPE FROM 3\tprocs: 0,1,2,3\n";

/// The point-to-point and one-sided lines that Open MPI 4.1.4 (osc rdma) wrote on this machine
/// for 4 ranks running: a ring of MPI_Sendrecv (5 x 800 B to rank + 1), an MPI_Allreduce, an
/// MPI_Win_create, then MPI_Put of 10 ints into rank + 1 and MPI_Get of 20 ints from rank - 1
/// (histograms replaced, collective summaries shortened).
std::map<int, std::string> recorded_run() {
  const std::string h = "\t" + histogram();
  std::map<int, std::string> files;
  files[0] =
      "# POINT TO POINT\n"
      "E\t0\t1\t4000 bytes\t5 msgs sent" +
      h +
      "\n"
      "I\t0\t1\t4292 bytes\t29 msgs sent\n"
      "I\t0\t2\t4324 bytes\t29 msgs sent" +
      h +
      "\n"
      "I\t0\t3\t0 bytes\t6 msgs sent" +
      h +
      "\n"
      "# OSC\n"
      "S\t0\t1\t40 bytes\t1 msgs sent\n"
      "S\t0\t3\t0 bytes\t1 msgs sent\n"
      "R\t0\t3\t80 bytes\t1 msgs sent\n"
      "# COLLECTIVES\n"
      "C\t0\t1\t4292 bytes\t29 msgs sent\n"
      "C\t0\t2\t4292 bytes\t29 msgs sent\n"
      "C\t0\t3\t4292 bytes\t29 msgs sent\n"
      "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\n"
      "O2A\t0\t0 bytes\t0 msgs sent\n"
      "A2O\t0\t0 bytes\t0 msgs sent\n"
      "A2A\t0\t60 bytes\t5 msgs sent\n"
      "D\tMPI COMMUNICATOR 4 SPLIT_TYPE FROM 3\tprocs: 0,1,2,3\n"
      "O2A\t0\t12432 bytes\t2 msgs sent\n"
      "A2O\t0\t0 bytes\t0 msgs sent\n"
      "A2A\t0\t96 bytes\t5 msgs sent\n";
  files[1] =
      "# POINT TO POINT\n"
      "E\t1\t2\t4000 bytes\t5 msgs sent" +
      h +
      "\n"
      "I\t1\t0\t148 bytes\t27 msgs sent" +
      h +
      "\n"
      "I\t1\t3\t4324 bytes\t23 msgs sent" +
      h +
      "\n"
      "# OSC\n"
      "S\t1\t0\t0 bytes\t1 msgs sent\n"
      "R\t1\t0\t80 bytes\t1 msgs sent\n"
      "S\t1\t2\t40 bytes\t1 msgs sent\n" +
      kSummaries;
  files[2] =
      "# POINT TO POINT\n"
      "E\t2\t3\t4000 bytes\t5 msgs sent" +
      h +
      "\n"
      "I\t2\t0\t180 bytes\t27 msgs sent" +
      h +
      "\n"
      "I\t2\t3\t112 bytes\t12 msgs sent\n"
      "# OSC\n"
      "S\t2\t1\t0 bytes\t1 msgs sent\n"
      "R\t2\t1\t80 bytes\t1 msgs sent\n"
      "S\t2\t3\t40 bytes\t1 msgs sent\n" +
      kSummaries;
  files[3] =
      "# POINT TO POINT\n"
      "E\t3\t0\t4000 bytes\t5 msgs sent" +
      h +
      "\n"
      "I\t3\t0\t0 bytes\t6 msgs sent\n"
      "I\t3\t1\t144 bytes\t12 msgs sent" +
      h +
      "\n"
      "I\t3\t2\t148 bytes\t21 msgs sent" +
      h +
      "\n"
      "# OSC\n"
      "S\t3\t0\t40 bytes\t1 msgs sent\n"
      "S\t3\t2\t0 bytes\t1 msgs sent\n"
      "R\t3\t2\t80 bytes\t1 msgs sent\n" +
      kSummaries;
  return files;
}

void write_run(const TempDir& dir, const std::map<int, std::string>& files,
               const std::string& prefix = "prof") {
  for (const auto& [rank, text] : files) {
    write_text(dir.file(prefix + "." + std::to_string(rank) + ".prof"), text);
  }
}

// --- The recorded sample -------------------------------------------------------------------------

// The sample: 16 ranks on a 4 x 4 grid (rank = 4 * row + column), each sending 10 x 8000 B to
// every grid neighbour (halo), 10 x 64 B to rank + 1 mod 16 (ring) and an MPI_Allreduce that
// Open MPI runs as recursive doubling (partners rank XOR 1, 2, 4, 8, tag < 0: I lines).
//      0 -- 1 -- 2 -- 3
//      |    |    |    |
//      4 -- 5 -- 6 -- 7       E[i][j] = 80000 x (grid neighbours) + 640 x (j == i + 1 mod 16)
//      |    |    |    |
//      8 -- 9 -- 10 - 11
//      |    |    |    |
//      12 - 13 - 14 - 15
bool grid_neighbours(Index i, Index j) {
  const Index di = i / 4 - j / 4;
  const Index dj = i % 4 - j % 4;
  return (di == 0 && (dj == 1 || dj == -1)) || (dj == 0 && (di == 1 || di == -1));
}

TEST(OmpiMonitoringReader, ReadsTheRecordedSample) {
  const OmpiMonitoringPattern p = read_ompi_monitoring(sample_dir());
  EXPECT_EQ(p.ranks, 16);
  EXPECT_EQ(p.prefix, sample_dir() + "/prof");
  // prof.0.prof: "E 0 1 80640 bytes 20 msgs sent" (halo + ring), "E 0 4 80000 bytes 10 msgs".
  EXPECT_EQ(at(p.external.size, 0, 1), 80640.0);
  EXPECT_EQ(at(p.external.msg, 0, 1), 20.0);
  EXPECT_EQ(at(p.external.size, 0, 4), 80000.0);
  EXPECT_EQ(at(p.external.size, 1, 0), 80000.0);  // prof.1.prof: no ring back
  EXPECT_EQ(at(p.external.size, 15, 0), 640.0);   // the ring closing, prof.15.prof
  EXPECT_EQ(at(p.external.msg, 15, 0), 10.0);
  EXPECT_EQ(at(p.external.size, 0, 15), 0.0);
  // 48 halo entries + 16 ring entries, 12 of which coincide with a halo entry.
  EXPECT_EQ(p.external.size.targets.size(), 52u);
  EXPECT_EQ(p.external.total_bytes(), 48u * 80000u + 16u * 640u);
  EXPECT_EQ(p.external.total_messages(), 48u * 10u + 16u * 10u);
  // "I 0 1 92 bytes 13 msgs sent": 64 entries, 5480 B, 730 messages in all.
  EXPECT_EQ(at(p.internal.size, 0, 1), 92.0);
  EXPECT_EQ(at(p.internal.msg, 0, 1), 13.0);
  EXPECT_EQ(at(p.internal.size, 2, 3), 80.0);
  EXPECT_EQ(p.internal.size.targets.size(), 64u);
  EXPECT_EQ(p.internal.total_bytes(), 5480u);
  EXPECT_EQ(p.internal.total_messages(), 730u);
  // No one-sided traffic: an empty matrix of order 16.
  EXPECT_EQ(p.onesided.size.n, 16);
  EXPECT_EQ(p.onesided.size.offsets, std::vector<Offset>(17, 0));
  EXPECT_TRUE(p.onesided.msg.targets.empty());
  EXPECT_EQ(p.collective_lines, 16u * 15u);
}

TEST(OmpiMonitoringReader, SampleIsAHaloPlusARingAndARecursiveDoubling) {
  const OmpiMonitoringPattern p = read_ompi_monitoring(sample_dir());
  for (Index i = 0; i < 16; ++i) {
    for (Index j = 0; j < 16; ++j) {
      const bool ring = j == (i + 1) % 16;
      const double halo = grid_neighbours(i, j) ? 80000.0 : 0.0;
      EXPECT_EQ(at(p.external.size, i, j), halo + (ring ? 640.0 : 0.0)) << i << " -> " << j;
      // The halo part is symmetric.
      EXPECT_EQ(at(p.external.size, i, j) - (ring ? 640.0 : 0.0),
                at(p.external.size, j, i) - (i == (j + 1) % 16 ? 640.0 : 0.0));
      const Index x = i ^ j;
      const bool partners = x == 1 || x == 2 || x == 4 || x == 8;
      EXPECT_EQ(at(p.internal.size, i, j) > 0.0, partners) << i << " -> " << j;
    }
  }
}

TEST(OmpiMonitoringReader, CollectiveLinesAreNotAdded) {
  // prof.0.prof has "C 0 3 92 bytes 13 msgs sent" (the allreduce's logical volume) but no E or I
  // line to rank 3: the total has nothing there.
  const OmpiMonitoringPattern p = read_ompi_monitoring(sample_dir());
  EXPECT_EQ(at(p.total.size, 0, 3), 0.0);
  EXPECT_EQ(at(p.total.msg, 0, 3), 0.0);
  EXPECT_EQ(p.total.total_bytes(), 3850240u + 5480u);  // E + I only, not the 22080 B of C lines
  EXPECT_EQ(p.total.total_messages(), 640u + 730u);
  EXPECT_EQ(p.total.size.targets.size(), 84u);  // distinct pairs of E and I lines
}

TEST(OmpiMonitoringReader, TotalIsTheEntrywiseSumOfTheClasses) {
  TempDir dir;
  write_run(dir, recorded_run());
  for (const std::string& source : {sample_dir(), dir.path().string()}) {
    const OmpiMonitoringPattern p = read_ompi_monitoring(source);
    for (Index i = 0; i < p.ranks; ++i) {
      for (Index j = 0; j < p.ranks; ++j) {
        EXPECT_EQ(at(p.total.size, i, j), at(p.external.size, i, j) + at(p.internal.size, i, j) +
                                              at(p.onesided.size, i, j));
        EXPECT_EQ(at(p.total.msg, i, j),
                  at(p.external.msg, i, j) + at(p.internal.msg, i, j) + at(p.onesided.msg, i, j));
      }
    }
  }
}

TEST(OmpiMonitoringReader, AcceptsADirectoryAPrefixOrOneRankFile) {
  const OmpiMonitoringPattern by_dir = read_ompi_monitoring(sample_dir());
  const OmpiMonitoringPattern by_prefix = read_ompi_monitoring(sample_dir() + "/prof");
  const OmpiMonitoringPattern by_file = read_ompi_monitoring(sample_dir() + "/prof.7.prof");
  for (const OmpiMonitoringPattern* p : {&by_prefix, &by_file}) {
    EXPECT_EQ(p->ranks, 16);
    EXPECT_EQ(p->total.size.targets, by_dir.total.size.targets);
    EXPECT_EQ(p->total.size.weights, by_dir.total.size.weights);
  }
}

// --- One-sided and zero-byte lines
// ------------------------------------------------------------------

TEST(OmpiMonitoringReader, OneSidedKeepsSAtTheOriginAndRTransposed) {
  // Rank r puts 40 B into r + 1 (its S line) and gets 80 B from r - 1: the R line "R r r-1" is
  // data that flowed from r - 1 to r, and the Get's request is a 0-byte S message r -> r - 1.
  TempDir dir;
  write_run(dir, recorded_run());
  const OmpiMonitoringPattern p = read_ompi_monitoring(dir.path());
  ASSERT_EQ(p.ranks, 4);
  for (Index r = 0; r < 4; ++r) {
    const Index next = (r + 1) % 4;
    EXPECT_EQ(at(p.onesided.size, r, next), 40.0 + 80.0) << r;  // put + what next fetched
    EXPECT_EQ(at(p.onesided.msg, r, next), 2.0) << r;
    EXPECT_EQ(at(p.onesided.size, next, r), 0.0) << r;  // only the Get request went back
    EXPECT_EQ(at(p.onesided.msg, next, r), 1.0) << r;
  }
  EXPECT_EQ(p.onesided.size.targets.size(), 4u);
  EXPECT_EQ(p.onesided.msg.targets.size(), 8u);
  EXPECT_EQ(p.onesided.total_bytes(), 4u * 120u);  // 4 x (40 put + 80 got): nothing counted twice
}

TEST(OmpiMonitoringReader, ZeroByteMessagesCountInMsgOnly) {
  TempDir dir;
  write_run(dir, recorded_run());
  const OmpiMonitoringPattern p = read_ompi_monitoring(dir.path());
  // "I 0 3 0 bytes 6 msgs sent" (a barrier's messages).
  EXPECT_EQ(at(p.internal.size, 0, 3), 0.0);
  EXPECT_EQ(at(p.internal.msg, 0, 3), 6.0);
  EXPECT_EQ(at(p.total.msg, 0, 3), 6.0 + 1.0);  // and the 0-byte Get request of rank 0
}

TEST(OmpiMonitoringReader, SelfTrafficIsDropped) {
  TempDir dir;
  std::map<int, std::string> files = recorded_run();
  files[2] += "# POINT TO POINT\nE\t2\t2\t999 bytes\t3 msgs sent\n";
  write_run(dir, files);
  const OmpiMonitoringPattern p = read_ompi_monitoring(dir.path());
  EXPECT_EQ(at(p.external.size, 2, 2), 0.0);
  EXPECT_EQ(at(p.total.msg, 2, 2), 0.0);
}

// --- HDF5 output
// ----------------------------------------------------------------------------------

std::string string_attribute(const std::string& path, const char* object, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t owner = H5Oopen(file, object, H5P_DEFAULT);
  const hid_t attribute = H5Aopen(owner, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attribute);
  char* value = nullptr;
  std::string text;
  if (H5Aread(attribute, type, &value) >= 0 && value != nullptr) text = value;
  H5free_memory(value);
  H5Tclose(type);
  H5Aclose(attribute);
  H5Oclose(owner);
  H5Fclose(file);
  return text;
}

std::int64_t integer_attribute(const std::string& path, const char* object, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t owner = H5Oopen(file, object, H5P_DEFAULT);
  const hid_t attribute = H5Aopen(owner, name, H5P_DEFAULT);
  std::int64_t value = -1;
  H5Aread(attribute, H5T_NATIVE_INT64, &value);
  H5Aclose(attribute);
  H5Oclose(owner);
  H5Fclose(file);
  return value;
}

TEST(OmpiMonitoringHdf5, WritesTheTotalAndEveryClass) {
  TempDir dir;
  write_run(dir, recorded_run());
  const OmpiMonitoringPattern p = read_ompi_monitoring(dir.path());
  const std::string out = dir.file("pattern.h5");
  write_ompi_monitoring_hdf5(out, p);

  const std::pair<const char*, const kernels::Csr*> objects[] = {
      {"/size", &p.total.size},
      {"/msg", &p.total.msg},
      {"/external/size", &p.external.size},
      {"/external/msg", &p.external.msg},
      {"/internal/size", &p.internal.size},
      {"/internal/msg", &p.internal.msg},
      {"/onesided/size", &p.onesided.size},
      {"/onesided/msg", &p.onesided.msg}};
  for (const auto& [object, expected] : objects) {
    const kernels::Csr read = read_hdf5_matrix_rows(out, object);
    EXPECT_EQ(read.n, 4) << object;
    EXPECT_EQ(read.offsets, expected->offsets) << object;
    EXPECT_EQ(read.targets, expected->targets) << object;
    EXPECT_EQ(read.weights, expected->weights) << object;
  }
  EXPECT_EQ(string_attribute(out, "/", "source"), "ompi-monitoring");
  EXPECT_EQ(integer_attribute(out, "/", "ranks"), 4);
  EXPECT_NE(string_attribute(out, "/onesided", "description").find("origin"), std::string::npos);
}

TEST(OmpiMonitoringHdf5, AClassWithoutTrafficIsAnEmptyMatrix) {
  TempDir dir;
  const std::string out = dir.file("pattern.h5");
  write_ompi_monitoring_hdf5(out, read_ompi_monitoring(sample_dir()));
  const kernels::Csr onesided = read_hdf5_matrix_rows(out, "/onesided/size");
  EXPECT_EQ(onesided.n, 16);
  EXPECT_TRUE(onesided.targets.empty());
  const CommGraph graph = read_matrix(out + ":/onesided", Metric::kMsg);
  EXPECT_EQ(graph.size(), 16);
}

// --- FILE.h5:/OBJECT in the matrix readers
// ---------------------------------------------------------

TEST(MatrixReaderHdf5Object, AGroupGivesBothMetricsAMatrixOnlyTheSize) {
  TempDir dir;
  write_run(dir, recorded_run());
  const OmpiMonitoringPattern p = read_ompi_monitoring(dir.path());
  const std::string out = dir.file("pattern.h5");
  write_ompi_monitoring_hdf5(out, p);

  // read_matrix symmetrises: C + C^T.
  const auto sym = [](const kernels::Csr& m, Index i, Index j) {
    return at(m, i, j) + at(m, j, i);
  };
  const auto weight = [](const CommGraph& g, Index i, Index j) {
    const kernels::CsrView v = g.view();
    for (Offset e = v.row_begin(i); e < v.row_end(i); ++e) {
      if (v.targets[static_cast<std::size_t>(e)] == j)
        return v.weights[static_cast<std::size_t>(e)];
    }
    return 0.0;
  };
  const CommGraph whole = read_matrix(out);
  const CommGraph external = read_matrix(out + ":/external");
  const CommGraph external_msg = read_matrix(out + ":/external", Metric::kMsg);
  const CommGraph internal_avg = read_matrix(out + ":/internal/", Metric::kAvg);
  const CommGraph onesided_size = read_matrix(out + ":/onesided/size");
  EXPECT_EQ(weight(whole, 0, 1), sym(p.total.size, 0, 1));
  EXPECT_EQ(weight(external, 0, 1), sym(p.external.size, 0, 1));
  EXPECT_EQ(weight(external, 0, 2), 0.0);
  EXPECT_EQ(weight(external_msg, 3, 0), sym(p.external.msg, 3, 0));
  EXPECT_DOUBLE_EQ(weight(internal_avg, 0, 1), 4292.0 / 29.0 + 148.0 / 27.0);
  EXPECT_EQ(weight(onesided_size, 1, 2), 120.0);

  EXPECT_TRUE(has_both_metrics(out));
  EXPECT_TRUE(has_both_metrics(out + ":/external"));
  EXPECT_FALSE(has_both_metrics(out + ":/external/size"));
  expect_input_error([&] { read_matrix(out + ":/external/size", Metric::kMsg); },
                     out + ":/external/size", "single metric");
  expect_input_error([&] { read_matrix(out + ":/nothing"); }, out + ":/nothing",
                     "no object /nothing");
  expect_input_error([&] { read_matrix(out + ":/nothing/deeper"); }, out + ":/nothing/deeper",
                     "no object /nothing/deeper");
  expect_input_error([&] { read_matrix(out + ":/size/data/deeper"); }, out, "no object");
  expect_input_error([&] { read_matrix(out + ":/external/size/data"); }, out,
                     "/external/size/data");
}

// --- Errors
// ------------------------------------------------------------------------------------------

TEST(OmpiMonitoringErrors, AnEmptyDirectoryOrAMissingPrefix) {
  TempDir dir;
  write_text(dir.file("notes.txt"), "not a rank file\n");
  expect_input_error([&] { read_ompi_monitoring(dir.path()); }, dir.path(),
                     "no Open MPI monitoring file");
  expect_input_error([&] { read_ompi_monitoring(dir.file("prof")); }, dir.file("prof"),
                     "no file " + dir.file("prof") + ".<rank>.prof");
  expect_input_error([&] { read_ompi_monitoring(dir.file("nowhere/prof")); },
                     dir.file("nowhere/prof"), "neither a directory nor the prefix");
}

TEST(OmpiMonitoringErrors, AMissingRankFileIsNamed) {
  TempDir dir;
  std::map<int, std::string> files = recorded_run();
  files.erase(2);
  write_run(dir, files);
  expect_input_error([&] { read_ompi_monitoring(dir.path()); }, dir.file("prof.2.prof"),
                     "missing: the run has rank files up to prof.3.prof but none for rank 2");
}

TEST(OmpiMonitoringErrors, LostLastRanksShowAsARankOutOfRange) {
  TempDir dir;
  std::map<int, std::string> files = recorded_run();
  files.erase(3);  // rank 2 still sends to 3
  write_run(dir, files);
  expect_input_error([&] { read_ompi_monitoring(dir.path()); }, dir.file("prof.0.prof"),
                     "line 5: destination rank 3 out of range: the run has rank files 0..2 only");
}

TEST(OmpiMonitoringErrors, SeveralRunsInOneDirectory) {
  TempDir dir;
  write_run(dir, recorded_run(), "prof");
  write_run(dir, recorded_run(), "other");
  expect_input_error([&] { read_ompi_monitoring(dir.path()); }, dir.path(),
                     "several runs (prefixes other, prof)");
  EXPECT_EQ(read_ompi_monitoring(dir.file("other")).ranks, 4);
}

struct BadLine {
  const char* name;
  std::string rank1;  // the whole content of prof.1.prof
  const char* message;
};

void PrintTo(const BadLine& bad, std::ostream* out) {
  *out << bad.name;
}

class OmpiMonitoringBadFile : public ::testing::TestWithParam<BadLine> {};

TEST_P(OmpiMonitoringBadFile, IsAnInputErrorNamingTheFileAndLine) {
  TempDir dir;
  std::map<int, std::string> files = recorded_run();
  files[1] = GetParam().rank1;
  write_run(dir, files);
  expect_input_error([&] { read_ompi_monitoring(dir.path()); }, dir.file("prof.1.prof"),
                     GetParam().message);
}

const std::string kHead = "# POINT TO POINT\n";

INSTANTIATE_TEST_SUITE_P(
    Lines, OmpiMonitoringBadFile,
    ::testing::Values(BadLine{"Empty", "", "empty (Open MPI writes at least '# POINT TO POINT')"},
                      BadLine{"NotMonitoring", "E\t1\t2\t4 bytes\t1 msgs sent\n",
                              "line 1: not an Open MPI monitoring file"},
                      BadLine{"TooFewFields", kHead + "E\t1\t2\t4000 bytes\n",
                              "line 2: E line with 4 tab-separated fields; expected TYPE SRC DST"},
                      BadLine{"HistogramOnS", kHead + "S\t1\t2\t40 bytes\t1 msgs sent\t1,0\n",
                              "line 2: S line with 6 tab-separated fields"},
                      BadLine{"SpacesForTabs", kHead + "E 1 2 4000 bytes 5 msgs sent\n",
                              "line 2: unknown record 'E 1 2 4000 bytes 5 msgs sent'"},
                      BadLine{"NonNumericBytes", kHead + "E\t1\t2\tmany bytes\t5 msgs sent\n",
                              "line 2: expected '<count> bytes' in field 4, got 'many bytes'"},
                      BadLine{
                          "NegativeMessages", kHead + "I\t1\t2\t40 bytes\t-5 msgs sent\n",
                          "line 2: expected '<count> msgs sent' in field 5, got '-5 msgs sent'"},
                      BadLine{"NonNumericRank", kHead + "E\t1\tx\t40 bytes\t5 msgs sent\n",
                              "line 2: the destination rank 'x' is not a rank"},
                      BadLine{"RankOutOfRange", kHead + "E\t1\t4\t40 bytes\t5 msgs sent\n",
                              "line 2: destination rank 4 out of range"},
                      BadLine{"NegativeRank", kHead + "R\t1\t-1\t40 bytes\t5 msgs sent\n",
                              "line 2: destination rank -1 out of range"},
                      BadLine{"OtherRanksLine", kHead + "I\t2\t3\t40 bytes\t5 msgs sent\n",
                              "line 2: source rank 2 in the file of rank 1"},
                      BadLine{"BytesWithoutMessages", kHead + "E\t1\t2\t40 bytes\t0 msgs sent\n",
                              "line 2: 40 bytes in 0 messages"},
                      BadLine{"BadHistogram", kHead + "E\t1\t2\t40 bytes\t5 msgs sent\t1,2,x\n",
                              "line 2: the size histogram (field 6) is not a list of counts"},
                      BadLine{"Duplicate",
                              kHead + "E\t1\t2\t40 bytes\t5 msgs sent\n# x\n"
                                      "E\t1\t2\t40 bytes\t5 msgs sent\n",
                              "line 4: a second 'E 1 2' record (first on line 2)"},
                      BadLine{"DuplicateR",
                              kHead + "R\t1\t0\t40 bytes\t5 msgs sent\n"
                                      "R\t1\t0\t40 bytes\t5 msgs sent\n",
                              "line 3: a second 'R 1 0' record (first on line 2)"},
                      BadLine{"UnknownRecord", kHead + "X\t1\t2\n", "line 2: unknown record 'X'"},
                      BadLine{"BadCommunicator", kHead + "D\tMPI_COMM_WORLD\t0,1,2,3\n",
                              "line 2: expected 'procs: <ranks>' in field 3"},
                      BadLine{"BadSummary", kHead + "A2A\t1\t60 bytes\n",
                              "line 2: A2A line with 3 tab-separated fields"},
                      BadLine{"BadSummaryCount", kHead + "O2A\t1\t60 bytes\tsome msgs sent\n",
                              "line 2: expected '<count> msgs sent' in field 4"}),
    [](const ::testing::TestParamInfo<BadLine>& param) { return std::string(param.param.name); });

}  // namespace
}  // namespace treematch::io
