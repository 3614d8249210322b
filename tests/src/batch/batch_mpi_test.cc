// `treematch batch` under mpiexec: any rank count writes what one process alone writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/batch_command.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/batch/batch_scheduler.h"
#include "src/model/cost.h"
#include "src/mpi/mpi_environment.h"

namespace treematch::apps {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 8 machines x 4 sockets x 16 cores = 512 leaves: 512.mat fills it exactly.
const std::string kTopology = "tleaf 3 8 100 4 10 16 1";

std::string shared_data() {
  const char* root = std::getenv("TM_SOURCE_DIR");
  return std::string(root != nullptr ? root : ".") + "/../shared/data";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every file of `dir` (not recursive) by name.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] = read_text(entry.path());
  }
  return files;
}

/// summary.json without the timings.
json without_seconds(json summary) {
  for (json& row : summary["patterns"]) row.erase("seconds");
  return summary;
}

/// summary.csv without its "seconds" column (no field of these inputs holds a comma).
std::string csv_without_seconds(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  std::size_t column = std::string::npos;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(cell);
    if (line.back() == ',') fields.emplace_back();
    if (column == std::string::npos) {
      for (std::size_t c = 0; c < fields.size(); ++c) {
        if (fields[c] == "seconds") column = c;
      }
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (c != column) out += fields[c] + ";";
    }
    out += "\n";
  }
  return out;
}

/// A scratch directory made by rank 0 and named to every rank; removed at the end.
class SharedScratch {
 public:
  SharedScratch() {
    std::string path;
    if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
      std::string pattern = (fs::temp_directory_path() / "tm-batch-mpi-XXXXXX").string();
      path = mkdtemp(pattern.data());
    }
    distributed::broadcast_string(MPI_COMM_WORLD, path);
    path_ = path;
  }
  ~SharedScratch() {
    MPI_Barrier(MPI_COMM_WORLD);  // nobody still reads it
    if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
    }
  }
  SharedScratch(const SharedScratch&) = delete;
  SharedScratch& operator=(const SharedScratch&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// The inputs, written by rank 0:
///   the five TreeMatch examples (16 ... 512 processes) through a list file,
///   the MapLib directory (four CSV pairs: four patterns),
///   an HDF5 file with two matrices (/csr/m64 as CSR, /dense/m16 as a dense dataset),
///   a corrupt matrix (a row too short).
std::vector<std::string> make_inputs(const fs::path& scratch) {
  const std::string taskgraph = shared_data() + "/pacos/examples/taskgraph/";
  if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
    std::ofstream list(scratch / "examples.txt");
    for (const char* name : {"512.mat", "16.mat", "128.mat", "32.mat", "64.mat"})
      list << taskgraph << name << "\n";
    list.close();
    std::ofstream(scratch / "corrupt.mat") << "0 1 2\n1 0\n2 1 0\n";
    const CommGraph m64 = io::read_matrix(taskgraph + "64.mat");
    io::write_matrix_hdf5_csr((scratch / "many.h5").string(), m64.view(), "/csr/m64");
    std::vector<double> dense(16 * 16, 0.0);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) dense[static_cast<std::size_t>(i * 16 + j)] = i == j ? 0 : i + j;
    }
    io::write_matrix_hdf5_dense((scratch / "many.h5").string(), 16, dense, "/dense/m16",
                                io::Hdf5WriteMode::kAppend);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return {"@" + (scratch / "examples.txt").string(), shared_data() + "/maplib",
          (scratch / "many.h5").string(), (scratch / "corrupt.mat").string()};
}

BatchOptions batch_options(const std::vector<std::string>& inputs, const fs::path& out) {
  BatchOptions options;
  options.inputs = inputs;
  options.out = out.string();
  options.map.input.topology = kTopology;
  options.map.input.threads = 1;
  options.progress = false;
  return options;
}

TEST(BatchMpi, AnyRankCountWritesWhatOneProcessWrites) {
  if (!distributed::launched_by_mpi()) GTEST_SKIP() << "needs mpiexec (see tm_add_mpi_test)";
  const SharedScratch scratch;
  const std::vector<std::string> inputs = make_inputs(scratch.path());

  // Act: every rank together, then rank 0 alone (the others wait).
  const int code = run_batch(batch_options(inputs, scratch.path() / "together"), MPI_COMM_WORLD);
  int sequential_code = -1;
  if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
    sequential_code = run_batch(batch_options(inputs, scratch.path() / "alone"), MPI_COMM_SELF);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(code, 1) << "the corrupt matrix fails, so the batch does";

  int ok = 1;
  if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
    EXPECT_EQ(sequential_code, 1);
    const json together = json::parse(read_text(scratch.path() / "together" / "summary.json"));
    const json alone = json::parse(read_text(scratch.path() / "alone" / "summary.json"));
    EXPECT_EQ(without_seconds(together), without_seconds(alone));
    EXPECT_EQ(csv_without_seconds(read_text(scratch.path() / "together" / "summary.csv")),
              csv_without_seconds(read_text(scratch.path() / "alone" / "summary.csv")));
    std::map<std::string, std::string> outputs = files_of(scratch.path() / "together");
    std::map<std::string, std::string> reference = files_of(scratch.path() / "alone");
    for (auto* files : {&outputs, &reference}) {
      files->erase("summary.json");
      files->erase("summary.csv");
    }
    EXPECT_EQ(outputs, reference);

    // Input order, whatever finished first: list (5), MapLib (4), HDF5 (2), corrupt (1).
    const std::vector<std::string> names{"512.mat",
                                         "16.mat",
                                         "128.mat",
                                         "32.mat",
                                         "64.mat",
                                         "amg_comm_matrix.p2p.size.csv",
                                         "btmz_comm_matrix.p2p.size.csv",
                                         "cg_comm_matrix.p2p.size.csv",
                                         "lulesh_comm_matrix.p2p.size.csv",
                                         "many.h5_csr_m64",
                                         "many.h5_dense_m16",
                                         "corrupt.mat"};
    // No ASSERT on one rank: the others would wait in the broadcast below forever.
    EXPECT_EQ(together["patterns"].size(), names.size());
    for (std::size_t i = 0; i < std::min(names.size(), together["patterns"].size()); ++i) {
      const json& row = together["patterns"][i];
      EXPECT_EQ(row["name"], names[i]);
      EXPECT_EQ(row["status"], i + 1 < names.size() ? "ok" : "failed") << row.dump();
      if (row["status"] == "ok") {
        EXPECT_EQ(outputs.count(names[i] + ".perm"), 1u) << names[i];
      }
    }
    EXPECT_EQ(outputs.size(), names.size() - 1);

    // Independent check: the cost of the written mapping of 512.mat is the summary's.
    const CommGraph graph = io::read_matrix(shared_data() + "/pacos/examples/taskgraph/512.mat");
    std::istringstream perm(outputs["512.mat.perm"]);
    Mapping mapping;
    for (Index leaf = 0; perm >> leaf;) mapping.leaf_of_rank.push_back(leaf);
    const MappingCost cost = evaluate_cost(graph, io::read_topology(kTopology), mapping);
    EXPECT_DOUBLE_EQ(cost.hop_bytes, together["patterns"][0]["treematch_hop_bytes"].get<double>());
    EXPECT_DOUBLE_EQ(cost.weighted, together["patterns"][0]["treematch_weighted"].get<double>());
    ok = ::testing::Test::HasFailure() ? 0 : 1;
  }
  EXPECT_EQ(distributed::broadcast_int(MPI_COMM_WORLD, ok), 1) << "rank 0 found a difference";
}

TEST(BatchMpi, ResumeKeepsTheDoneRowsAndRetriesTheFailedOne) {
  if (!distributed::launched_by_mpi()) GTEST_SKIP() << "needs mpiexec (see tm_add_mpi_test)";
  const SharedScratch scratch;
  const std::vector<std::string> inputs = make_inputs(scratch.path());
  BatchOptions options = batch_options(inputs, scratch.path() / "out");
  EXPECT_EQ(run_batch(options, MPI_COMM_WORLD), 1);
  json first;
  if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
    first = json::parse(read_text(scratch.path() / "out" / "summary.json"));
    fs::remove(scratch.path() / "out" / "32.mat.perm");  // must be mapped again
  }
  MPI_Barrier(MPI_COMM_WORLD);

  options.resume = true;
  EXPECT_EQ(run_batch(options, MPI_COMM_WORLD), 1);

  int ok = 1;
  if (distributed::rank_of(MPI_COMM_WORLD) == 0) {
    const json second = json::parse(read_text(scratch.path() / "out" / "summary.json"));
    EXPECT_EQ(second["patterns"].size(), first["patterns"].size());
    for (std::size_t i = 0; i < std::min(first["patterns"].size(), second["patterns"].size());
         ++i) {
      const json& before = first["patterns"][i];
      const json& after = second["patterns"][i];
      if (before["status"] == "ok" && before["name"] != "32.mat") {
        EXPECT_EQ(after, before) << "kept as it was, timings included";
      } else {
        json a = after;
        json b = before;
        a.erase("seconds");
        b.erase("seconds");
        EXPECT_EQ(a, b) << "mapped again, same result";
      }
    }
    EXPECT_TRUE(fs::exists(scratch.path() / "out" / "32.mat.perm"));
    ok = ::testing::Test::HasFailure() ? 0 : 1;
  }
  EXPECT_EQ(distributed::broadcast_int(MPI_COMM_WORLD, ok), 1) << "rank 0 found a difference";
}

}  // namespace
}  // namespace treematch::apps
