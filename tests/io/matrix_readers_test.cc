// Tests of the matrix readers (dense text, CSV, METIS, HDF5) on fixtures, real data and bad inputs.
#include <hdf5.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "io/matrix_stream.h"
#include "tests/h5_id.h"
#include "tests/io/input_error_expectation.h"
#include "tests/seed_example.h"
#include "tests/test_support.h"

namespace treematch::io {
namespace {

using testing::input_error_of;

using testing::data_dir;
using testing::expect_input_error;
using testing::H5Id;

namespace fs = std::filesystem;

using Dense = std::vector<std::vector<double>>;

// The seed matrix: 8 processes, symmetric, row 3 column 3 is 0 like every diagonal entry.
const Dense kSeed = testing::seed_rows();

/// The stored CSR arrays of a graph, comparable with ==.
struct CsrArrays {
  std::vector<Offset> offsets;
  std::vector<Index> targets;
  std::vector<Weight> weights;
  bool operator==(const CsrArrays&) const = default;
};

CsrArrays arrays(const CommGraph& g) {
  const kernels::CsrView v = g.view();
  return {{v.offsets.begin(), v.offsets.end()},
          {v.targets.begin(), v.targets.end()},
          {v.weights.begin(), v.weights.end()}};
}

/// Weight stored for (i, j), 0 when absent.
double entry(const CommGraph& g, Index i, Index j) {
  const kernels::CsrView v = g.view();
  for (Offset e = v.row_begin(i); e < v.row_end(i); ++e) {
    if (v.targets[static_cast<std::size_t>(e)] == j) return v.weights[static_cast<std::size_t>(e)];
  }
  return 0.0;
}

/// The off-diagonal non-zeros of a symmetric dense matrix as CSR.
CsrArrays csr_of(const Dense& m) {
  CsrArrays a;
  a.offsets.push_back(0);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (i != j && m[i][j] != 0.0) {
        a.targets.push_back(static_cast<Index>(j));
        a.weights.push_back(m[i][j]);
      }
    }
    a.offsets.push_back(static_cast<Offset>(a.targets.size()));
  }
  return a;
}

std::string dense_text(const Dense& m, char separator) {
  std::string text;
  for (const auto& row : m) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) text += separator;
      text += std::to_string(static_cast<long long>(row[j]));
    }
    text += '\n';
  }
  return text;
}

/// Writes a 1-D dataset of int32 or double values.
template <class T>
void write_vector(hid_t location, const char* name, const std::vector<T>& values) {
  const hsize_t length = values.size();
  const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT32;
  const H5Id space(H5Screate_simple(1, &length, nullptr), H5Sclose);
  const H5Id set(H5Dcreate2(location, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
  ASSERT_GE(set, 0);
  ASSERT_GE(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
}

/// A CSR group "/matrix" written by hand: int32 indices/indptr, no encoding-type attribute.
void write_raw_csr(const std::string& path, std::int32_t n, const std::vector<double>& data,
                   const std::vector<std::int32_t>& indices,
                   const std::vector<std::int32_t>& indptr) {
  const H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  ASSERT_GE(file, 0);
  const H5Id group(H5Gcreate2(file, "/matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  ASSERT_GE(group, 0);
  write_vector(group, "data", data);
  write_vector(group, "indices", indices);
  write_vector(group, "indptr", indptr);
  const hsize_t two = 2;
  const H5Id space(H5Screate_simple(1, &two, nullptr), H5Sclose);
  const H5Id shape(H5Acreate2(group, "shape", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose);
  const std::int32_t order[2] = {n, n};
  ASSERT_GE(H5Awrite(shape, H5T_NATIVE_INT32, order), 0);
}

/// A dense int32 dataset "/matrix" written by hand.
void write_raw_dense_int(const std::string& path, const std::vector<std::int32_t>& values,
                         hsize_t rows, hsize_t cols) {
  const H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  ASSERT_GE(file, 0);
  const hsize_t dims[2] = {rows, cols};
  const H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  const H5Id set(
      H5Dcreate2(file, "/matrix", H5T_STD_I32BE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  ASSERT_GE(set, 0);
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
}

class MatrixReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("tm_matrix_readers_" + std::to_string(::getpid()) + "_" +
                                     info->name() + "_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// Writes `content` to a fixture file and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// ---------------------------------------------------------------- dense text

TEST_F(MatrixReaders, DenseTextSymmetricExactCsr) {
  // 0 2 0
  // 2 0 5
  // 0 5 0
  const std::string file = write("small.mat", "0 2 0\n2 0 5\n0 5 0\n");

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(g.size(), 3);
  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), (CsrArrays{{0, 1, 3, 4}, {1, 0, 2, 1}, {2, 2, 5, 5}}));
}

TEST_F(MatrixReaders, DenseTextDirectedIsSymmetrisedAndDiagonalIgnored) {
  // 7 3      stored: 0 4
  // 1 9              4 0
  const std::string file = write("directed.mat", "7 3\n1 9\n");

  const CommGraph g = read_matrix(file);

  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), (CsrArrays{{0, 1, 2}, {1, 0}, {4, 4}}));
  EXPECT_EQ(g.total_volume(), 4.0);
}

TEST_F(MatrixReaders, DenseTextToleratesTabsCrlfTrailingBlanksAndBlankLines) {
  const std::string file =
      write("messy.txt", "\n0\t1.5e1 +2 \r\n\n15 0   0.5\r\n  2 0.5 0   \n\n\n");

  const CommGraph g = read_matrix(file);

  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), (CsrArrays{{0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {15, 2, 15, 0.5, 2, 0.5}}));
}

TEST_F(MatrixReaders, DenseTextLongZeroRunsKeepColumnsAndNoFinalNewline) {
  // 12 x 12: row i sends i + 1 to column (i + 5) mod 12, written with single blanks, no final '\n'.
  Dense m(12, std::vector<double>(12, 0.0));
  for (std::size_t i = 0; i < 12; ++i) m[i][(i + 5) % 12] = static_cast<double>(i + 1);
  std::string text = dense_text(m, ' ');
  text.pop_back();
  const std::string file = write("runs.mat", text);

  const CommGraph g = read_matrix(file);

  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(g.nnz(), 24);
  for (Index i = 0; i < 12; ++i) {  // (i + 10) mod 12 != i: no entry has a reverse to add
    EXPECT_EQ(entry(g, i, (i + 5) % 12), i + 1.0) << i;
    EXPECT_EQ(entry(g, (i + 5) % 12, i), i + 1.0) << i;
  }
  EXPECT_EQ(g.total_volume(), 78.0);
}

TEST_F(MatrixReaders, SeedMatrixFromMatText) {
  const std::string file = write("seed.mat", dense_text(kSeed, ' '));

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(g.size(), 8);
  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), csr_of(kSeed));
  EXPECT_EQ(entry(g, 2, 3), 1000.0);
  EXPECT_EQ(entry(g, 3, 3), 0.0);
}

TEST_F(MatrixReaders, UpperCaseExtensionsAreRecognised) {
  const std::string mat = write("seed.MAT", dense_text(kSeed, ' '));
  const std::string h5 = path("seed.HDF5");
  write_matrix_hdf5_csr(h5, read_matrix(mat).view());

  EXPECT_EQ(arrays(read_matrix(h5)), csr_of(kSeed));
}

// ---------------------------------------------------------------- CSV

TEST_F(MatrixReaders, CsvExactCsrAndHeaderSkipped) {
  // 0 1 2 / 3 0 0 / 0 0 0, with a header line of names.
  const std::string plain = write("plain.csv", "0,1,2\n3,0,0\n0,0,0\n");
  const std::string with_header = write("header.csv", "r0,r1,r2\n0, 1 ,2\r\n3,0,0\n0,0,0\n");

  const CommGraph a = read_matrix(plain);
  const CommGraph b = read_matrix(with_header);

  // C + C^T = 0 4 2 / 4 0 0 / 2 0 0
  EXPECT_TRUE(a.was_symmetrised());
  EXPECT_EQ(arrays(a), (CsrArrays{{0, 2, 3, 4}, {1, 2, 0, 0}, {4, 2, 4, 2}}));
  EXPECT_EQ(arrays(b), arrays(a));
}

TEST_F(MatrixReaders, CsvSizeCountPairGivesThreeMetrics) {
  // size:  0 10 0 / 30 0 8 / 0 8 0      count: 0 2 0 / 3 0 0 / 0 4 0
  const std::string size = write("app.size.csv", "0,10,0\n30,0,8\n0,8,0\n");
  const std::string count = write("app.count.csv", "0,2,0\n3,0,0\n0,4,0\n");

  const CommGraph by_size = read_matrix(size, Metric::kSize);
  const CommGraph by_msg = read_matrix(size, Metric::kMsg);
  const CommGraph by_avg = read_matrix(count, Metric::kAvg);
  const CommGraph size_via_count = read_matrix(count, Metric::kSize);

  EXPECT_EQ(arrays(by_size), (CsrArrays{{0, 1, 3, 4}, {1, 0, 2, 1}, {40, 40, 16, 16}}));
  EXPECT_EQ(arrays(size_via_count), arrays(by_size));
  EXPECT_EQ(arrays(by_msg), (CsrArrays{{0, 1, 3, 4}, {1, 0, 2, 1}, {5, 5, 4, 4}}));
  // avg: 10/2 = 5, 30/3 = 10, 8/0 -> 0, 8/4 = 2  =>  C + C^T = 0 15 0 / 15 0 2 / 0 2 0
  EXPECT_EQ(arrays(by_avg), (CsrArrays{{0, 1, 3, 4}, {1, 0, 2, 1}, {15, 15, 2, 2}}));
  EXPECT_EQ(by_avg.total_volume(), 17.0);
}

TEST_F(MatrixReaders, CsvMissingSiblingIsNamed) {
  const std::string size = write("lonely.size.csv", "0,1\n1,0\n");

  expect_input_error([&] { read_matrix(size, Metric::kMsg); }, size, "lonely.count.csv");
  expect_input_error([&] { read_matrix(size, Metric::kAvg); }, size, "missing");
  EXPECT_EQ(read_matrix(size, Metric::kSize).size(), 2);
}

TEST_F(MatrixReaders, PlainCsvCarriesOnlySize) {
  const std::string plain = write("plain.csv", "0,1\n1,0\n");

  expect_input_error([&] { read_matrix(plain, Metric::kMsg); }, plain, "carries a single metric");
  expect_input_error([&] { read_matrix(plain, Metric::kAvg); }, plain, "carries a single metric");
}

// ---------------------------------------------------------------- METIS

TEST_F(MatrixReaders, MetisWeightedExactCsr) {
  // 1 -5- 2 -7- 3, vertex 3's neighbours listed out of order with 4 -2- 3.
  const std::string file =
      write("g.graph", "% a comment\n4 3 001\n2 5 \n1 5 3 7\n4 2 2 7\n%c\n3 2\n\n\n");

  const CommGraph g = read_matrix(file);

  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), (CsrArrays{{0, 1, 3, 5, 6}, {1, 0, 2, 1, 3, 2}, {5, 5, 7, 7, 2, 2}}));
}

TEST_F(MatrixReaders, MetisUnweightedAndVertexWeightedFormats) {
  // Path 1 - 2 - 3 plus an isolated vertex 4 (blank line).
  const std::string plain = write("plain.metis", "4 2\n2\n1 3\n2\n\n");
  const std::string vertex_weights =
      write("vw.metis", "4 2 011 2\n1 1 2 9\n1 1 1 9 3 4\n1 1 2 4\n1 1\n");

  const CommGraph a = read_matrix(plain);
  const CommGraph b = read_matrix(vertex_weights);

  EXPECT_EQ(arrays(a), (CsrArrays{{0, 1, 3, 4, 4}, {1, 0, 2, 1}, {1, 1, 1, 1}}));
  EXPECT_EQ(arrays(b), (CsrArrays{{0, 1, 3, 4, 4}, {1, 0, 2, 1}, {9, 9, 4, 4}}));
}

// ---------------------------------------------------------------- HDF5

TEST_F(MatrixReaders, SeedMatrixIdenticalFromMatHdf5DenseAndHdf5Csr) {
  const std::string mat = write("seed.mat", dense_text(kSeed, ' '));
  std::vector<double> flat;
  for (const auto& row : kSeed) flat.insert(flat.end(), row.begin(), row.end());
  const std::string dense = path("seed_dense.h5");
  const std::string csr = path("seed_csr.hdf5");

  const CommGraph from_mat = read_matrix(mat);
  write_matrix_hdf5_dense(dense, 8, flat);
  write_matrix_hdf5_csr(csr, from_mat.view());
  const CommGraph from_dense = read_matrix(dense);
  const CommGraph from_csr = read_matrix(csr);

  EXPECT_EQ(arrays(from_mat), csr_of(kSeed));
  EXPECT_EQ(arrays(from_dense), arrays(from_mat));
  EXPECT_EQ(arrays(from_csr), arrays(from_mat));
  EXPECT_FALSE(from_dense.was_symmetrised());
  EXPECT_FALSE(from_csr.was_symmetrised());
}

TEST_F(MatrixReaders, Hdf5FilesKeptOpenForAReadAreClosedWithItsScope) {
  const std::string h5 = path("seed.h5");
  write_matrix_hdf5_csr(h5, read_matrix(write("seed.mat", dense_text(kSeed, ' '))).view());
  const ssize_t before = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  const auto opened = [&] { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) - before; };

  hdf5_keep_open_in_scope(h5);
  EXPECT_EQ(opened(), 0);  // no scope: nothing kept
  {
    const Hdf5ProbeScope outer;
    {
      const Hdf5ProbeScope inner;  // shares the outer record
      hdf5_keep_open_in_scope(h5);
      hdf5_keep_open_in_scope(h5);
      EXPECT_EQ(opened(), 1);  // once per file
    }
    EXPECT_EQ(opened(), 1);
    hdf5_keep_open_in_scope(write("not.h5", "not HDF5"));
    EXPECT_EQ(opened(), 1);  // nothing kept, nothing printed
  }
  EXPECT_EQ(opened(), 0);

  EXPECT_EQ(arrays(read_matrix(h5)), csr_of(kSeed));
  EXPECT_EQ(opened(), 0);  // a whole read leaves no file open
}

TEST_F(MatrixReaders, Hdf5DenseRowProducerSpanningSeveralBlocks) {
  // 600 x 600 ring with weight i + 1 from i to i + 1 (directed): several 256-row blocks.
  const std::string file = path("ring.h5");
  write_matrix_hdf5_dense(file, 600, [](Index row, std::span<double> values) {
    values[static_cast<std::size_t>((row + 1) % 600)] = row + 1;
  });

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(g.size(), 600);
  EXPECT_TRUE(g.was_symmetrised());
  EXPECT_EQ(g.nnz(), 1200);
  EXPECT_EQ(entry(g, 299, 300), 300.0);
  EXPECT_EQ(entry(g, 300, 299), 300.0);
  EXPECT_EQ(entry(g, 0, 599), 600.0);
  EXPECT_EQ(g.total_volume(), 600.0 * 601.0 / 2.0);
}

TEST_F(MatrixReaders, Hdf5ReaderReadsAnyRowRange) {
  // The seed matrix, rows 3 and 4 only, from both layouts.
  std::vector<double> flat;
  for (const auto& row : kSeed) flat.insert(flat.end(), row.begin(), row.end());
  const std::string dense = path("dense.h5");
  const std::string csr = path("csr.h5");
  write_matrix_hdf5_dense(dense, 8, flat);
  write_matrix_hdf5_csr(
      csr, CommGraph::from_directed_rows(8, csr_of(kSeed).offsets, csr_of(kSeed).targets,
                                         csr_of(kSeed).weights)
               .view());

  for (const std::string& file : {dense, csr}) {
    Hdf5MatrixReader reader(file, "/matrix");
    kernels::Csr rows;
    reader.read_rows(/*first_row=*/3, /*row_count=*/2, rows);

    EXPECT_EQ(reader.size(), 8);
    // row 3: 1 1 1000 - 1 1 1 100; row 4: 100 1 1 1 - 1000 10 1
    EXPECT_EQ(rows.offsets, (std::vector<Offset>{0, 7, 14}));
    EXPECT_EQ(rows.targets, (std::vector<Index>{0, 1, 2, 4, 5, 6, 7, 0, 1, 2, 3, 5, 6, 7}));
    EXPECT_EQ(rows.weights,
              (std::vector<Weight>{1, 1, 1000, 1, 1, 1, 100, 100, 1, 1, 1, 1000, 10, 1}));
  }
}

TEST_F(MatrixReaders, Hdf5DenseIntegerDatasetIsReadAsDouble) {
  // big-endian int32:  0 3 / 3 0
  const std::string file = path("int.h5");
  write_raw_dense_int(file, {0, 3, 3, 0}, 2, 2);

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(arrays(g), (CsrArrays{{0, 1, 2}, {1, 0}, {3, 3}}));
}

TEST_F(MatrixReaders, Hdf5CsrUnsortedRowsAndDuplicatesAreCanonicalised) {
  // row 0: (2, 1) (1, 4) (1, 1) (0, 9 diagonal)   row 1: (0, 5)   row 2: (0, 1)
  const std::string file = path("raw.h5");
  write_raw_csr(file, 3, {1, 4, 1, 9, 5, 1}, {2, 1, 1, 0, 0, 0}, {0, 4, 5, 6});

  const CommGraph g = read_matrix(file);

  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(arrays(g), (CsrArrays{{0, 2, 3, 4}, {1, 2, 0, 0}, {5, 1, 5, 1}}));
}

TEST_F(MatrixReaders, Hdf5SizeAndMsgMetrics) {
  // /size: 0 10 / 30 0   /msg: 0 2 / 3 0
  const std::string file = path("both.h5");
  write_matrix_hdf5_dense(file, 2, std::vector<double>{0, 10, 30, 0}, "/size");
  write_matrix_hdf5_csr(file,
                        kernels::CsrView{2, std::vector<Offset>{0, 1, 2}, std::vector<Index>{1, 0},
                                         std::vector<Weight>{2, 3}},
                        "/msg", Hdf5WriteMode::kAppend);

  EXPECT_EQ(read_matrix(file, Metric::kSize).view().weights[0], 40.0);
  EXPECT_EQ(read_matrix(file, Metric::kMsg).view().weights[0], 5.0);
  EXPECT_EQ(read_matrix(file, Metric::kAvg).view().weights[0], 15.0);  // 10/2 + 30/3
}

TEST_F(MatrixReaders, Hdf5SingleMatrixCarriesOnlySize) {
  const std::string file = path("one.h5");
  write_matrix_hdf5_dense(file, 2, std::vector<double>{0, 1, 1, 0});

  expect_input_error([&] { read_matrix(file, Metric::kMsg); }, file, "single metric");
}

TEST_F(MatrixReaders, Hdf5ContentWithUnknownExtensionIsDetected) {
  const std::string file = path("matrix.bin");
  write_matrix_hdf5_dense(file, 2, std::vector<double>{0, 1, 1, 0});

  EXPECT_EQ(read_matrix(file).nnz(), 2);
}

// ---------------------------------------------------------------- real data

TEST(MatrixReadersRealData, PacosSixteenMat) {
  const std::string file = data_dir() + "/pacos/examples/taskgraph/16.mat";

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(g.size(), 16);
  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(entry(g, 0, 1), 100.0);
  EXPECT_EQ(entry(g, 1, 0), 100.0);
  EXPECT_EQ(entry(g, 0, 15), 281.0);
  EXPECT_EQ(entry(g, 1, 15), 15848.0);
}

TEST(MatrixReadersRealData, MaplibAmgSizeCountAvg) {
  const std::string size_file = data_dir() + "/maplib/amg_comm_matrix.p2p.size.csv";

  const CommGraph size = read_matrix(size_file, Metric::kSize);
  const CommGraph msg = read_matrix(size_file, Metric::kMsg);
  const CommGraph avg = read_matrix(size_file, Metric::kAvg);

  for (const CommGraph* g : {&size, &msg, &avg}) {
    EXPECT_EQ(g->size(), 64);
    EXPECT_TRUE(g->was_symmetrised());
  }
  // size[0][1] = 17737128, size[1][0] = 17714368; count[0][1] = 1177, count[1][0] = 1169.
  EXPECT_EQ(entry(size, 0, 1), 17737128.0 + 17714368.0);
  EXPECT_EQ(entry(msg, 1, 0), 1177.0 + 1169.0);
  EXPECT_DOUBLE_EQ(entry(avg, 0, 1), 17737128.0 / 1177.0 + 17714368.0 / 1169.0);
  EXPECT_EQ(size.nnz(), 4002);
  EXPECT_EQ(size.total_volume(), 5431666584.0);
  EXPECT_EQ(msg.total_volume(), 1256017.0);
}

TEST(MatrixReadersRealData, CloverLeaf128Aphid) {
  const std::string file = data_dir() + "/pacos/examples/taskgraph/CloverLeaf128.APHiD";

  const CommGraph g = read_matrix(file);

  EXPECT_EQ(g.size(), 128);
  EXPECT_EQ(g.nnz(), 2 * 232);
  EXPECT_FALSE(g.was_symmetrised());
  EXPECT_EQ(entry(g, 0, 1), 1774760.0);
  EXPECT_EQ(entry(g, 0, 8), 3413000.0);
  EXPECT_EQ(entry(g, 8, 0), 3413000.0);
}

// ---------------------------------------------------------------- bad inputs

TEST_F(MatrixReaders, MissingFileCannotOpen) {
  const std::string file = path("nowhere.mat");

  expect_input_error([&] { read_matrix(file); }, file, "cannot open: No such file");
  expect_input_error([&] { read_matrix(path("nowhere.h5")); }, path("nowhere.h5"), "cannot open");
}

TEST_F(MatrixReaders, DenseTextBadInputs) {
  const std::string ragged = write("ragged.mat", "0 1 2\n1 0 2 3\n2 2 0\n");
  const std::string tall = write("tall.mat", "0 1\n1 0\n1 1\n");
  const std::string wide = write("wide.mat", "0 1 1\n1 0 1\n");
  const std::string negative = write("negative.mat", "0 1\n-2 0\n");
  const std::string nan = write("nan.mat", "0 nan\n1 0\n");
  const std::string inf = write("inf.mat", "0 1\ninf 0\n");
  const std::string word = write("word.mat", "0 1 2\n1 0 x2\n2 2 0\n");
  const std::string empty = write("empty.mat", "\n  \n");
  const std::string binary = write("binary.mat", std::string("0 1\0\0\0", 6));

  expect_input_error([&] { read_matrix(ragged); }, ragged,
                     "row 2 (line 2) has 4 values, expected 3");
  expect_input_error([&] { read_matrix(tall); }, tall, "not square");
  expect_input_error([&] { read_matrix(wide); }, wide, "not square: 2 rows of 3 values");
  expect_input_error([&] { read_matrix(negative); }, negative, "negative");
  expect_input_error([&] { read_matrix(nan); }, nan, "NaN");
  expect_input_error([&] { read_matrix(inf); }, inf, "not finite");
  expect_input_error([&] { read_matrix(word); }, word, "line 2, column 3: 'x2' is not a number");
  expect_input_error([&] { read_matrix(empty); }, empty, "empty");
  expect_input_error([&] { read_matrix(binary); }, binary, "binary");
}

TEST_F(MatrixReaders, DenseTextLineLongerThanTheReadBuffer) {
  // One row of 3,000,000 zeros (6 MB, more than the 4 MiB first buffer): a 1 x 3000000 matrix.
  std::string row;
  for (int k = 0; k < 3'000'000; ++k) row += "0 ";
  const std::string file = write("wide_row.mat", row + "\n");

  expect_input_error([&] { read_matrix(file); }, file, "not square: 1 rows of 3000000 values");
}

TEST_F(MatrixReaders, CsvBadInputs) {
  const std::string gap = write("gap.csv", "0,,1\n1,0,1\n1,1,0\n");
  const std::string ragged = write("ragged.csv", "0,1\n1,0,1\n");

  expect_input_error([&] { read_matrix(gap); }, gap, "empty field");
  expect_input_error([&] { read_matrix(ragged); }, ragged, "ragged");
}

TEST_F(MatrixReaders, MetisBadInputs) {
  const std::string lying = write("lying.graph", "3 3 001\n2 5\n1 5 3 7\n2 7\n");
  const std::string asymmetric = write("asym.graph", "3 2 001\n2 5\n1 5 3 7\n2 6\n");
  const std::string one_way = write("oneway.graph", "3 2\n2 3\n1\n\n");
  const std::string out_of_range = write("range.APHiD", "3 2 001\n2 5\n1 5 4 7\n2 7\n");
  const std::string self_loop = write("self.metis", "2 1\n1 2\n1\n");
  const std::string short_file = write("short.graph", "3 1\n2\n1\n");
  const std::string long_file = write("long.graph", "2 1\n2\n1\n1\n");
  const std::string bad_header = write("header.graph", "3\n");

  expect_input_error([&] { read_matrix(lying); }, lying, "header says 3 edges, file has 2");
  expect_input_error([&] { read_matrix(asymmetric); }, asymmetric,
                     "edge 2-3 has weight 7 but edge 3-2 has weight 6");
  expect_input_error([&] { read_matrix(one_way); }, one_way,
                     "vertex 1 lists neighbour 3 but vertex 3 does not list 1");
  expect_input_error([&] { read_matrix(out_of_range); }, out_of_range,
                     "neighbour 4 is out of range 1..3");
  expect_input_error([&] { read_matrix(self_loop); }, self_loop, "self loop");
  expect_input_error([&] { read_matrix(short_file); }, short_file,
                     "header says 3 vertices, file has 2 vertex lines");
  expect_input_error([&] { read_matrix(long_file); }, long_file, "wrong number of vertex lines");
  expect_input_error([&] { read_matrix(bad_header); }, bad_header, "header");
}

TEST_F(MatrixReaders, Hdf5TruncatedFile) {
  const std::string file = path("truncated.h5");
  write_matrix_hdf5_dense(file, 64, [](Index row, std::span<double> values) {
    values[static_cast<std::size_t>((row + 3) % 64)] = 1.0 + row;
  });
  fs::resize_file(file, fs::file_size(file) / 2);

  expect_input_error([&] { read_matrix(file); }, file, "not a readable HDF5 file");
}

TEST_F(MatrixReaders, Hdf5PlainTextFile) {
  const std::string file = write("text.h5", "0 1\n1 0\n");

  expect_input_error([&] { read_matrix(file); }, file, "not a readable HDF5 file");
}

TEST_F(MatrixReaders, Hdf5CsrIndptrNotMonotone) {
  const std::string file = path("indptr.h5");
  write_raw_csr(file, 3, {1, 1, 1, 1}, {1, 0, 2, 1}, {0, 2, 1, 4});

  expect_input_error([&] { read_matrix(file); }, file, "not monotone");
}

TEST_F(MatrixReaders, Hdf5CsrBadShapes) {
  const std::string short_indptr = path("short.h5");
  const std::string bad_index = path("index.h5");
  const std::string bad_end = path("end.h5");
  write_raw_csr(short_indptr, 3, {1, 1}, {1, 0}, {0, 1, 2});
  write_raw_csr(bad_index, 2, {1, 1}, {1, 2}, {0, 1, 2});
  write_raw_csr(bad_end, 2, {1, 1}, {1, 0}, {0, 1, 1});

  expect_input_error([&] { read_matrix(short_indptr); }, short_indptr, "expected n + 1 = 4");
  expect_input_error([&] { read_matrix(bad_index); }, bad_index, "out of range");
  expect_input_error([&] { read_matrix(bad_end); }, bad_end, "ends at 1");
}

TEST_F(MatrixReaders, Hdf5MissingMatrix) {
  const std::string file = path("other.h5");
  write_matrix_hdf5_dense(file, 2, std::vector<double>{0, 1, 1, 0}, "/elsewhere");

  expect_input_error([&] { read_matrix(file); }, file, "missing /matrix");
}

TEST_F(MatrixReaders, Hdf5BadValuesAndShape) {
  const std::string negative = path("negative.h5");
  const std::string nan = path("nan.h5");
  const std::string rectangle = path("rectangle.h5");
  write_matrix_hdf5_dense(negative, 2, std::vector<double>{0, 1, -1, 0});
  write_matrix_hdf5_dense(nan, 2, std::vector<double>{0, std::nan(""), 1, 0});
  write_raw_dense_int(rectangle, {0, 1, 1, 1, 0, 1}, 2, 3);

  expect_input_error([&] { read_matrix(negative); }, negative, "negative");
  expect_input_error([&] { read_matrix(nan); }, nan, "NaN");
  expect_input_error([&] { read_matrix(rectangle); }, rectangle, "not square");
}

TEST_F(MatrixReaders, Hdf5EmptyMatricesHaveNoRanks) {
  const std::string dense = path("empty_dense.h5");
  const std::string csr = path("empty_csr.h5");
  write_matrix_hdf5_dense(dense, 0, std::vector<double>{});
  write_matrix_hdf5_csr(csr, kernels::CsrView{0, std::vector<Offset>{0}, {}, {}});

  expect_input_error([&] { read_matrix(dense); }, dense, "/matrix is 0x0: the matrix has no ranks");
  expect_input_error([&] { read_matrix(csr); }, csr, "/matrix (attribute shape) is 0x0");
}

/// A dataset `name` of `dims` values of `type` in `location`, created (contiguous, or chunked by
/// `chunk` when given) but never written: HDF5 stores nothing for it.
void create_unwritten(hid_t location, const char* name, hid_t type,
                      const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk = {}) {
  const H5Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  const H5Id plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!chunk.empty()) {
    ASSERT_GE(H5Pset_chunk(plist, static_cast<int>(chunk.size()), chunk.data()), 0);
  }
  const H5Id set(H5Dcreate2(location, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT),
                 H5Dclose);
  ASSERT_GE(set, 0);
}

TEST_F(MatrixReaders, Hdf5ExtentsWhoseDataWasNeverWrittenAreRefused) {
  // CSR of order 10^7 whose indptr (80 MB of extent) was never written: the file is a few KB.
  const std::string csr = path("unwritten_indptr.h5");
  {
    const H5Id file(H5Fcreate(csr.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const H5Id group(H5Gcreate2(file, "/matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    write_vector(group, "data", std::vector<double>{});
    write_vector(group, "indices", std::vector<std::int32_t>{});
    create_unwritten(group, "indptr", H5T_STD_I64LE, {10'000'001});
    const hsize_t two = 2;
    const H5Id space(H5Screate_simple(1, &two, nullptr), H5Sclose);
    const H5Id shape(H5Acreate2(group, "shape", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose);
    const std::int64_t order[2] = {10'000'000, 10'000'000};
    ASSERT_GE(H5Awrite(shape, H5T_NATIVE_INT64, order), 0);
  }
  // A contiguous 4096 x 4096 dataset never written, and a chunked one with 1 chunk of 4 written.
  const std::string dense = path("unwritten_dense.h5");
  const std::string partial = path("partial_dense.h5");
  {
    const H5Id file(H5Fcreate(dense.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    create_unwritten(file, "/matrix", H5T_IEEE_F64LE, {4096, 4096});
  }
  {
    const H5Id file(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    create_unwritten(file, "/matrix", H5T_IEEE_F64LE, {256, 256}, {64, 256});
    const H5Id set(H5Dopen2(file, "/matrix", H5P_DEFAULT), H5Dclose);
    const H5Id file_space(H5Dget_space(set), H5Sclose);
    const hsize_t start[2] = {0, 0};
    const hsize_t count[2] = {64, 256};
    ASSERT_GE(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
    const H5Id memory_space(H5Screate_simple(2, count, nullptr), H5Sclose);
    std::vector<double> rows(64 * 256, 0.0);
    rows[1] = 1.0;
    ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT, rows.data()),
              0);
  }

  expect_input_error([&] { read_matrix(csr); }, csr,
                     "/matrix/indptr declares 10000001 entries but stores none");
  expect_input_error([&] { read_matrix(dense); }, dense,
                     "/matrix declares 4096x4096 values but stores none");
  expect_input_error([&] { read_matrix(partial); }, partial,
                     "/matrix declares 256x256 values in 4 chunks but stores only 1 of them");
}

TEST_F(MatrixReaders, Hdf5CompressedDatasetsStoreFewerBytesThanTheirExtentAndAreRead) {
  // 2000 ranks, a ring: deflate makes data, indices and indptr far smaller than their extents.
  const Index n = 2000;
  kernels::Csr ring;
  ring.n = n;
  for (Index i = 0; i < n; ++i) {
    ring.targets.push_back((i + n - 1) % n < (i + 1) % n ? (i + n - 1) % n : (i + 1) % n);
    ring.targets.push_back((i + n - 1) % n < (i + 1) % n ? (i + 1) % n : (i + n - 1) % n);
    ring.weights.insert(ring.weights.end(), {1.0, 1.0});
    ring.offsets.push_back(static_cast<Offset>(ring.targets.size()));
  }
  const std::string file = path("ring.h5");
  write_matrix_hdf5_csr(file, ring.view());

  EXPECT_EQ(read_matrix(file).nnz(), 2 * n);
}

TEST_F(MatrixReaders, MetisHeaderCountsTheFileCannotHoldAreRefusedBeforeSizingAnything) {
  const std::string edges = write("edges.graph", "4 9223372036854775807\n2\n1\n4\n3\n");
  const std::string vertices = write("vertices.graph", "2147483647 1\n2\n1\n");
  const std::string none = write("none.graph", "0 0\n");

  expect_input_error([&] { read_matrix(edges); }, edges,
                     "header says 9223372036854775807 edges but the file (30 bytes) can hold at "
                     "most 7");
  expect_input_error([&] { read_matrix(vertices); }, vertices,
                     "header says 2147483647 vertices but the file (17 bytes) cannot hold");
  expect_input_error([&] { read_matrix(none); }, none,
                     "header says 0 vertices: the graph has no ranks");
  // The streaming reader (convert) refuses them the same way.
  expect_input_error([&] { open_matrix_source(edges, Metric::kSize); }, edges,
                     "can hold at most 7");
}

/// A METIS file of `n` vertices in a ring with chords, edge weights (2.2 MB for 60000): read whole,
/// it is parsed in several pieces (256 KB each) by parallel tasks. It has comment lines, CRLF line
/// ends, a real weight, an unsorted row and blank lines after the last vertex: what the pieces must
/// handle as the line-by-line reading does. `lines[i]` is line i + 1 of the file.
std::vector<std::string> big_metis_lines(Index n) {
  std::vector<std::string> lines;
  std::vector<std::vector<std::pair<Index, std::string>>> rows(static_cast<std::size_t>(n));
  std::int64_t edges = 0;
  const auto add = [&](Index a, Index b, const std::string& w) {
    rows[static_cast<std::size_t>(a)].emplace_back(b, w);
    rows[static_cast<std::size_t>(b)].emplace_back(a, w);
    ++edges;
  };
  for (Index v = 0; v < n; ++v) {
    add(v, (v + 1) % n, std::to_string(1 + v % 97));
    add(v, (v + 7 * n / 13) % n, v == 5 ? "2.5" : std::to_string(10 + v % 89));
  }
  lines.push_back("% a ring with chords");
  lines.push_back(std::to_string(n) + " " + std::to_string(edges) + " 001");
  for (Index v = 0; v < n; ++v) {
    auto& row = rows[static_cast<std::size_t>(v)];
    if (v != 11) std::sort(row.begin(), row.end());  // row 11 stays unsorted
    std::string line;
    for (const auto& [u, w] : row) line += std::to_string(u + 1) + " " + w + " ";
    if (v % 3 == 0) line += "\r";
    if (v % 1000 == 999) lines.push_back("  % every thousand vertices");
    lines.push_back(line);
  }
  lines.push_back("");
  lines.push_back("  ");
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

/// What the line-by-line reading gives (the streaming source), and its error line if any.
CsrArrays read_line_by_line(const std::string& file) {
  const auto source = open_matrix_source(file, Metric::kSize);
  const kernels::Csr rows = read_all_rows(*source);
  return {rows.offsets, rows.targets, rows.weights};
}

TEST_F(MatrixReaders, MetisReadInParallelPiecesGivesTheLineByLineRows) {
  constexpr Index kVertices = 60000;
  const std::string file = write("big.graph", joined(big_metis_lines(kVertices)));
  ASSERT_GT(fs::file_size(file), std::uintmax_t{4} << 18);  // more than 4 pieces
  const CsrArrays expected = read_line_by_line(file);
  ASSERT_EQ(expected.offsets.size(), static_cast<std::size_t>(kVertices) + 1);
  for (const int threads : {1, 2, 4}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    EXPECT_EQ(arrays(read_matrix(file)), expected) << threads << " threads";
  }
}

TEST_F(MatrixReaders, MetisReadInParallelPiecesReportsTheFirstErrorOfTheFile) {
  constexpr Index kVertices = 60000;
  const std::vector<std::string> good = big_metis_lines(kVertices);
  std::vector<std::pair<std::string, std::vector<std::string>>> bad;
  {  // two errors, in the first piece and in the last: the first is reported
    std::vector<std::string> lines = good;
    lines[40] = "3 5 " + std::to_string(kVertices + 9) + " 1";
    lines[lines.size() - 10] = "x";
    bad.emplace_back("two.graph", lines);
  }
  {  // one error only, late in the file
    std::vector<std::string> lines = good;
    lines[lines.size() - 10] = "1 0";
    bad.emplace_back("late.graph", lines);
  }
  {  // a vertex line too many, after the blank lines
    std::vector<std::string> lines = good;
    lines.push_back("1 1");
    bad.emplace_back("long.graph", lines);
  }
  {  // vertex lines missing
    std::vector<std::string> lines = good;
    lines.resize(lines.size() - 1000);
    bad.emplace_back("short.graph", lines);
  }
  for (const auto& [name, lines] : bad) {
    const std::string file = write(name, joined(lines));
    const std::string expected = input_error_of([&] { read_line_by_line(file); });
    ASSERT_NE(expected, "(no InputError thrown)") << name;
    for (const int threads : {1, 2, 4}) {
      const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(threads));
      EXPECT_EQ(input_error_of([&] { read_matrix(file); }), expected) << name << ", " << threads;
    }
  }
  // The first error is the first piece's: its line number (41) is named.
  EXPECT_NE(input_error_of([&] { read_matrix(path("two.graph")); }).find("line 41 "),
            std::string::npos);
}

TEST_F(MatrixReaders, MetisUtf8BomIsSkipped) {
  const std::string bom = write("bom.graph", "\xEF\xBB\xBF% comment\n3 2\n2\n1 3\n2\n");

  EXPECT_EQ(arrays(read_matrix(bom)), (CsrArrays{{0, 1, 3, 4}, {1, 0, 2, 1}, {1, 1, 1, 1}}));
}

TEST_F(MatrixReaders, MetisErrorsQuoteAtMost32PrintableCharactersOfTheInput) {
  const std::string raw = write(
      "raw.graph", "3 2 001\n2 1 3 \x01\x02\xff\xfe" + std::string(200, 'A') + "\n1 1\n1 1\n");

  try {
    read_matrix(raw);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("edge weight '????AAAAAAAAAAAAAAAAAAAAAAAAAAAA...'"), std::string::npos)
        << message;
    EXPECT_LT(message.size(), raw.size() + 120) << message;
    for (const char c : message) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << static_cast<int>(byte);
    }
  }
}

TEST_F(MatrixReaders, HeaderCheckRunsBeforeAnyRowIsRead) {
  // Each file's order is 3 and its last row is bad: the check must refuse it before the reader
  // gets there.
  const std::string mat = write("m.mat", "0 1 1\n1 0 1\n1 1 nan\n");
  const std::string csv = write("m.csv", "0,1,1\n1,0,1\n1,1,-1\n");
  const std::string metis = write("m.graph", "3 3\n2 3\n1 3\nx\n");
  const std::string dense = path("m.h5");
  write_matrix_hdf5_dense(dense, 3, std::vector<double>{0, 1, 1, 1, 0, 1, 1, 1, -1});
  const std::string csr = path("csr.h5");
  write_raw_csr(csr, 3, {1, 1, 1, 1, 1, 1}, {1, 2, 0, 2, 0, 9}, {0, 2, 4, 6});
  std::vector<Index> seen;
  std::vector<std::optional<Offset>> entries;
  const HeaderCheck refuse = [&](const MatrixHeader& header) {
    seen.push_back(header.order);
    entries.push_back(header.entries);
    throw InputError("--check", "refused order " + std::to_string(header.order));
  };

  for (const std::string& file : {mat, csv, metis, dense, csr}) {
    expect_input_error([&] { read_matrix(file, Metric::kSize, refuse); }, "--check",
                       "refused order 3");
    expect_input_error([&] { open_matrix_source(file, Metric::kSize, refuse); }, "--check",
                       "refused order 3");
  }
  EXPECT_EQ(seen, std::vector<Index>(10, 3));
  // The entries where the header states them: METIS 2m, a dense dataset n^2, CSR its length.
  const std::optional<Offset> unknown;
  EXPECT_EQ(entries, (std::vector<std::optional<Offset>>{unknown, unknown, unknown, unknown, 6, 6,
                                                         9, 9, 6, 6}));
}

TEST(MatrixReadersMetric, ParseMetric) {
  EXPECT_EQ(parse_metric("size"), Metric::kSize);
  EXPECT_EQ(parse_metric("msg"), Metric::kMsg);
  EXPECT_EQ(parse_metric("avg"), Metric::kAvg);
  expect_input_error([] { parse_metric("bytes"); }, "--metric", "'bytes' is not a metric");
}

}  // namespace
}  // namespace treematch::io
