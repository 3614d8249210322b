// Tests of the streaming matrix writers and row sources: round trips, HDF5 layouts, bad input.
#include <hdf5.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "io/matrix_stream.h"
#include "io/matrix_writers.h"
#include "tests/graph_arrays.h"
#include "tests/h5_id.h"
#include "tests/seed_example.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

using Dense = std::vector<std::vector<double>>;

// The seed matrix: 8 processes, symmetric, row 3 column 3 is 0 like every diagonal entry.
const Dense kSeed = testing::seed_rows();

using testing::arrays;
using testing::GraphArrays;
using testing::H5Id;

std::string dense_text(const Dense& m) {
  std::string text;
  for (const auto& row : m) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) text += ' ';
      text += fmt::format("{}", row[j]);
    }
    text += '\n';
  }
  return text;
}

/// A random symmetric sparse matrix: ~`degree` neighbours per row, weights with fractions (to
/// check that every format keeps doubles exactly), some rows empty.
Dense random_symmetric(int n, int degree, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  Dense m(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0.0));
  for (int i = 0; i < n; ++i) {
    if (i % 37 == 5) continue;  // isolated rows
    for (int k = 0; k < degree / 2; ++k) {
      const auto j = static_cast<int>(engine() % static_cast<std::uint64_t>(n));
      if (j == i || j % 37 == 5) continue;
      const double w = static_cast<double>(engine() % 100000) / 7.0 + 0.001;
      m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w;
      m[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = w;
    }
  }
  return m;
}

/// Reads `from` as a stream and writes it to `to` in `format` (what `treematch convert` does).
WriteSummary convert(const std::string& from, const std::string& to, MatrixFormat format,
                     const MatrixWriteOptions& options = {}) {
  const auto source = open_matrix_source(from, Metric::kSize);
  return write_matrix(to, format, *source, options);
}

/// Chunk dimensions, maximum dimensions and filter count of one dataset.
struct Layout {
  std::vector<hsize_t> chunk;
  std::vector<hsize_t> max_dims;
  int filters = 0;
};

Layout layout_of(const std::string& path, const std::string& dataset) {
  const H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  const H5Id set(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  const H5Id plist(H5Dget_create_plist(set), H5Pclose);
  const H5Id space(H5Dget_space(set), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  Layout layout;
  layout.max_dims.resize(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, nullptr, layout.max_dims.data());
  if (H5Pget_layout(plist) == H5D_CHUNKED) {
    layout.chunk.resize(static_cast<std::size_t>(rank));
    H5Pget_chunk(plist, rank, layout.chunk.data());
  }
  layout.filters = H5Pget_nfilters(plist);
  return layout;
}

class MatrixWriters : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("tm_matrix_writers_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Names of the files left in the test directory.
  std::set<std::string> files() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      names.insert(entry.path().filename().string());
    return names;
  }

  /// mat -> h5 -> csv -> metis -> h5-dense -> mat, checking every file reads as the original.
  void round_trip(const std::string& original) {
    const GraphArrays expected = arrays(read_matrix(original));
    const std::vector<std::pair<std::string, MatrixFormat>> steps = {
        {"step1.h5", MatrixFormat::kHdf5Csr},  {"step2.csv", MatrixFormat::kCsv},
        {"step3.graph", MatrixFormat::kMetis}, {"step4.h5", MatrixFormat::kHdf5Dense},
        {"step5.mat", MatrixFormat::kMat},
    };
    std::string from = original;
    for (const auto& [name, format] : steps) {
      const std::string to = path(name);
      const WriteSummary summary = convert(from, to, format);
      EXPECT_EQ(summary.n, expected.n) << name;
      EXPECT_FALSE(summary.symmetrised) << name;
      EXPECT_EQ(arrays(read_matrix(to)), expected) << name;
      from = to;
    }
  }

  fs::path dir_;
};

// ---------------------------------------------------------------- round trips

TEST_F(MatrixWriters, SeedMatrixRoundTripThroughEveryFormat) {
  round_trip(write("seed.mat", dense_text(kSeed)));
}

TEST_F(MatrixWriters, RandomSparse300RoundTripThroughEveryFormat) {
  // 300 ranks, ~12 neighbours each, fractional weights, isolated rows (blank METIS lines).
  round_trip(write("random.mat", dense_text(random_symmetric(300, 12, /*seed=*/7))));
}

TEST_F(MatrixWriters, TextWriterKeepsShortestExactDoubles) {
  // 0    0.1  1e-300
  // 0.1  0    3
  // 1e-300 3  0
  const std::string in = write("m.mat", "0 0.1 1e-300\n0.1 0 3\n1e-300 3 0\n");
  const std::string out = path("out.mat");

  convert(in, out, MatrixFormat::kMat);

  std::ifstream text(out);
  const std::string all((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "0 0.1 1e-300\n0.1 0 3\n1e-300 3 0\n");
}

TEST_F(MatrixWriters, DirectedInputToMetisIsWrittenAsCPlusCTranspose) {
  // C:  0 5      C + C^T:  0 6
  //     1 0                6 0
  const std::string in = write("directed.mat", "0 5\n1 0\n");
  const std::string out = path("out.graph");

  const WriteSummary summary = convert(in, out, MatrixFormat::kMetis);

  EXPECT_TRUE(summary.symmetrised);
  std::ifstream text(out);
  const std::string all((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "2 1 001\n2 6\n1 6\n");
  GraphArrays expected = arrays(read_matrix(in));
  expected.symmetrised = false;  // the METIS file is C + C^T itself
  EXPECT_EQ(arrays(read_matrix(out)), expected);
}

TEST_F(MatrixWriters, DirectedInputStaysDirectedInEveryOtherFormat) {
  const std::string in = write("directed.mat", "0 5 0\n1 0 0\n0 2 0\n");
  for (const auto& [name, format] :
       {std::pair{"d.h5", MatrixFormat::kHdf5Csr}, std::pair{"dd.h5", MatrixFormat::kHdf5Dense},
        std::pair{"d.csv", MatrixFormat::kCsv}}) {
    convert(in, path(name), format);
    EXPECT_EQ(arrays(read_matrix(path(name))), arrays(read_matrix(in))) << name;
    EXPECT_TRUE(read_matrix(path(name)).was_symmetrised()) << name;
  }
}

TEST_F(MatrixWriters, MaplibPairWithBothMetricsInOneHdf5File) {
  const char* source_dir = std::getenv("TM_SOURCE_DIR");
  const std::string stem = std::string(source_dir != nullptr ? source_dir : ".") +
                           "/../shared/data/maplib/amg_comm_matrix.p2p";
  if (!fs::exists(stem + ".size.csv")) GTEST_SKIP() << "MapLib data missing: " << stem;
  const std::string out = path("amg.h5");
  ASSERT_TRUE(has_both_metrics(stem + ".size.csv"));

  {
    const auto size = open_matrix_source(stem + ".size.csv", Metric::kSize);
    write_matrix(out, MatrixFormat::kHdf5Csr, *size, {{}, "/size", Hdf5WriteMode::kTruncate});
    const auto msg = open_matrix_source(stem + ".size.csv", Metric::kMsg);
    write_matrix(out, MatrixFormat::kHdf5Csr, *msg, {{}, "/msg", Hdf5WriteMode::kAppend});
  }

  EXPECT_TRUE(has_both_metrics(out));
  for (const Metric metric : {Metric::kSize, Metric::kMsg, Metric::kAvg}) {
    EXPECT_EQ(arrays(read_matrix(out, metric)), arrays(read_matrix(stem + ".size.csv", metric)));
  }
}

TEST_F(MatrixWriters, AverageSourceMatchesReadMatrix) {
  // size: 0 10 4 / 30 0 0 / 8 0 0     count: 0 2 0 / 3 0 0 / 4 1 0   avg where both: (0,1) (1,0)
  // (2,0)
  const std::string size = write("x.size.csv", "0,10,4\n30,0,0\n8,0,0\n");
  write("x.count.csv", "0,2,0\n3,0,0\n4,1,0\n");

  const kernels::Csr rows = read_all_rows(*open_matrix_source(size, Metric::kAvg));

  EXPECT_EQ(rows.offsets, (std::vector<Offset>{0, 1, 2, 3}));
  EXPECT_EQ(rows.targets, (std::vector<Index>{1, 0, 0}));
  EXPECT_EQ(rows.weights, (std::vector<Weight>{5, 10, 2}));
  EXPECT_EQ(arrays(read_matrix(size, Metric::kAvg)),
            arrays(CommGraph::from_directed_rows(3, rows.offsets, rows.targets, rows.weights)));
}

// ---------------------------------------------------------------- HDF5 layouts

TEST_F(MatrixWriters, CsrWriterGrowsChunkedDatasetsAcrossManyBlocks) {
  // 5000 ranks, row i -> i+1 .. i+60 (mod 5000): 300000 entries, more than two 2^17 chunks, and
  // two row blocks (kRowBlockRows = 4096).
  const Index n = 5000;
  const auto source = dense_producer_source(n, [&](Index row, std::span<double> values) {
    for (Index k = 1; k <= 60; ++k) values[static_cast<std::size_t>((row + k) % n)] = row + k / 8.0;
  });
  const std::string out = path("ring.h5");

  const WriteSummary summary = write_matrix(out, MatrixFormat::kHdf5Csr, *source);

  EXPECT_EQ(summary.entries, 300000);
  const Layout data = layout_of(out, "/matrix/data");
  EXPECT_EQ(data.chunk, (std::vector<hsize_t>{hsize_t{1} << 17}));
  EXPECT_EQ(data.max_dims, (std::vector<hsize_t>{H5S_UNLIMITED}));
  EXPECT_EQ(data.filters, 1);  // deflate
  const CommGraph g = read_matrix(out);
  EXPECT_EQ(g.size(), n);
  EXPECT_EQ(g.nnz(), 600000);
  const kernels::Csr back = read_hdf5_matrix_rows(out, "/matrix");
  EXPECT_EQ(back.offsets[4999], 4999 * 60);
  EXPECT_EQ(back.weights[0], 0.125);
}

TEST_F(MatrixWriters, SmallCsrGetsOneChunkAndNoCompressDropsDeflate) {
  const std::string in = write("seed.mat", dense_text(kSeed));
  MatrixWriteOptions options;
  options.hdf5.compress = false;

  convert(in, path("plain.h5"), MatrixFormat::kHdf5Csr, options);
  convert(in, path("packed.h5"), MatrixFormat::kHdf5Csr);

  const Layout plain = layout_of(path("plain.h5"), "/matrix/data");
  EXPECT_EQ(plain.chunk, (std::vector<hsize_t>{56}));
  EXPECT_EQ(plain.filters, 0);
  EXPECT_EQ(layout_of(path("packed.h5"), "/matrix/data").filters, 1);
  EXPECT_EQ(arrays(read_matrix(path("plain.h5"))), arrays(read_matrix(in)));
}

TEST_F(MatrixWriters, DenseChunksAreWholeRowsOfAboutOneMebibyte) {
  // 1000 ranks: 131072 / 1000 = 131 rows of 1000 doubles per chunk (1.05 MB).
  const auto ring = [](Index row, std::span<double> values) {
    values[static_cast<std::size_t>((row + 1) % 1000)] = 1.0;
  };
  write_matrix_hdf5_dense(path("auto.h5"), 1000, ring);
  write_matrix_hdf5_dense(path("rows.h5"), 1000, ring, "/matrix", Hdf5WriteMode::kTruncate,
                          Hdf5WriteOptions{/*compress=*/false, /*chunk_rows=*/7});

  const Layout automatic = layout_of(path("auto.h5"), "/matrix");
  EXPECT_EQ(automatic.chunk, (std::vector<hsize_t>{131, 1000}));
  EXPECT_EQ(automatic.filters, 1);
  const Layout rows = layout_of(path("rows.h5"), "/matrix");
  EXPECT_EQ(rows.chunk, (std::vector<hsize_t>{7, 1000}));
  EXPECT_EQ(rows.filters, 0);
  EXPECT_EQ(arrays(read_matrix(path("auto.h5"))), arrays(read_matrix(path("rows.h5"))));
  EXPECT_EQ(read_matrix(path("rows.h5")).nnz(), 2000);
}

TEST_F(MatrixWriters, DenseReaderHandlesChunksThatAreNotWholeRows) {
  // 700 x 700 ring written by hand with 100 x 64 deflated chunks (as h5py would pick): blocks of
  // rows end inside chunks, and the reader must still return every row once.
  const hsize_t n = 700;
  std::vector<double> values(n * n, 0.0);
  for (hsize_t i = 0; i < n; ++i) values[i * n + (i + 3) % n] = static_cast<double>(i + 1);
  {
    const H5Id file(H5Fcreate(path("h5py.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                    H5Fclose);
    const hsize_t dims[2] = {n, n};
    const hsize_t chunk[2] = {100, 64};
    const H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const H5Id plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    ASSERT_GE(H5Pset_chunk(plist, 2, chunk), 0);
    ASSERT_GE(H5Pset_deflate(plist, 1), 0);
    const H5Id set(
        H5Dcreate2(file, "/matrix", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT),
        H5Dclose);
    ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }

  Hdf5MatrixReader reader(path("h5py.h5"), "/matrix");
  EXPECT_EQ(reader.block_end(0), 300);  // 256 rows rounded up to whole 100-row chunks
  const kernels::Csr rows = read_hdf5_matrix_rows(path("h5py.h5"), "/matrix");

  ASSERT_EQ(rows.offsets.size(), n + 1);
  for (hsize_t i = 0; i < n; ++i) {
    ASSERT_EQ(rows.offsets[i + 1] - rows.offsets[i], 1) << i;
    EXPECT_EQ(rows.targets[i], static_cast<Index>((i + 3) % n));
    EXPECT_EQ(rows.weights[i], static_cast<double>(i + 1));
  }
}

// ---------------------------------------------------------------- sources

TEST_F(MatrixWriters, EverySourceGivesTheRowsReadMatrixGives) {
  const Dense m = random_symmetric(120, 10, /*seed=*/3);
  const std::string mat = write("m.mat", dense_text(m));
  const std::string csv = path("m.csv");
  const std::string graph = path("m.graph");
  const std::string h5 = path("m.h5");
  const std::string dense = path("m_dense.h5");
  convert(mat, csv, MatrixFormat::kCsv);
  convert(mat, graph, MatrixFormat::kMetis);
  convert(mat, h5, MatrixFormat::kHdf5Csr);
  convert(mat, dense, MatrixFormat::kHdf5Dense);

  for (const std::string& file : {mat, csv, graph, h5, dense}) {
    const auto source = open_matrix_source(file, Metric::kSize);
    EXPECT_EQ(source->size(), 120) << file;
    kernels::Csr rows = read_all_rows(*source);
    EXPECT_EQ(source->append_rows(rows), 0) << file;  // stays at the end
    EXPECT_EQ(
        arrays(CommGraph::from_directed_rows(rows.n, rows.offsets, rows.targets, rows.weights)),
        arrays(read_matrix(file)))
        << file;
  }
}

TEST_F(MatrixWriters, RowCursorHandsRowsOverInOrderAcrossBlocks) {
  // Ring of 9000 (three blocks of at most 4096 rows): row i has the single entry i+1 -> weight i.
  const auto source = dense_producer_source(9000, [](Index row, std::span<double> values) {
    values[static_cast<std::size_t>((row + 1) % 9000)] = row + 1;
  });
  RowCursor cursor(*source);

  for (Index i = 0; i < 9000; ++i) {
    const RowCursor::Row row = cursor.next();
    ASSERT_EQ(row.targets.size(), 1u);
    ASSERT_EQ(row.targets[0], (i + 1) % 9000);
    ASSERT_EQ(row.weights[0], i + 1);
  }
  EXPECT_THROW(cursor.next(), std::out_of_range);
}

TEST_F(MatrixWriters, MetisStreamNamesTheEdgeWithoutItsReverse) {
  const std::string file = write("asym.graph", "3 2 001\n2 1\n1 1 3 1\n2 5\n");
  const auto source = open_matrix_source(file, Metric::kSize);
  kernels::Csr rows;

  try {
    while (source->append_rows(rows) > 0) {
    }
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), (file + ": asymmetric graph: edge 2-3 has weight 1 but edge 3-2 has "
                                   "weight 5")
                               .c_str());
  }
}

TEST_F(MatrixWriters, MetisStreamChecksTheEdgeCount) {
  const std::string file = write("m.graph", "3 3 001\n2 1\n1 1 3 1\n2 1\n");
  const auto source = open_matrix_source(file, Metric::kSize);

  EXPECT_THROW(read_all_rows(*source), InputError);
}

// ---------------------------------------------------------------- bad input, atomic output

TEST_F(MatrixWriters, BadRowFoundHalfWayLeavesNoFileBehind) {
  // The last row is short: the writer has already written rows when the error comes.
  std::string text;
  for (int i = 0; i < 50; ++i) {
    for (int j = 0; j < 50; ++j) text += (j == (i + 1) % 50 ? "1 " : "0 ");
    text += '\n';
  }
  text += "1 2\n";
  const std::string in = write("bad.mat", text);

  for (const MatrixFormat format : {MatrixFormat::kMat, MatrixFormat::kCsv, MatrixFormat::kMetis,
                                    MatrixFormat::kHdf5Csr, MatrixFormat::kHdf5Dense}) {
    const std::string out = path("out");
    try {
      PendingFile pending(out);
      convert(in, pending.temporary(), format);
      pending.commit();
      ADD_FAILURE() << "no InputError for " << matrix_format_name(format);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("not square: more than 50 rows"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(files(), (std::set<std::string>{"bad.mat"})) << matrix_format_name(format);
  }
}

TEST_F(MatrixWriters, PendingFileCommitReplacesAndMissingDirectoryThrows) {
  const std::string out = write("out.mat", "old\n");
  {
    PendingFile pending(out);
    std::ofstream(pending.temporary()) << "new\n";
    pending.commit();
  }
  {
    PendingFile abandoned(out);
    std::ofstream(abandoned.temporary()) << "never\n";
  }

  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "new");
  EXPECT_EQ(files(), (std::set<std::string>{"out.mat"}));
  EXPECT_THROW({ PendingFile missing(path("missing/out.h5")); }, InputError);
}

TEST(MatrixWritersFormat, FromExtensionOrName) {
  EXPECT_EQ(parse_matrix_format("auto", "a/b.MAT"), MatrixFormat::kMat);
  EXPECT_EQ(parse_matrix_format("auto", "b.csv"), MatrixFormat::kCsv);
  EXPECT_EQ(parse_matrix_format("auto", "b.graph"), MatrixFormat::kMetis);
  EXPECT_EQ(parse_matrix_format("auto", "b.metis"), MatrixFormat::kMetis);
  EXPECT_EQ(parse_matrix_format("auto", "b.hdf5"), MatrixFormat::kHdf5Csr);
  EXPECT_EQ(parse_matrix_format("h5-dense", "b.h5"), MatrixFormat::kHdf5Dense);
  EXPECT_THROW(parse_matrix_format("auto", "b.txt"), InputError);
  EXPECT_THROW(parse_matrix_format("xml", "b.h5"), InputError);
  EXPECT_TRUE(extension_matches(MatrixFormat::kMat, "b.txt"));
  EXPECT_FALSE(extension_matches(MatrixFormat::kCsv, "b.txt"));
}

}  // namespace
}  // namespace treematch::io
