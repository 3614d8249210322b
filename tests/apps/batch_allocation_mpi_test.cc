// `treematch batch --topology allocation` launched by mpiexec at 2 and 3 ranks: the job's node is
// gathered once, and every pattern's rankfile names this host and equals `treematch map`'s.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// This machine as the allocation, with just enough processes per core for 64.mat to fill it (so
/// that its mapping spreads over the cores instead of stacking every rank on one).
std::string allocation_placement() {
  const Index cores = io::read_topology("").leaf_count();
  return "--topology allocation --oversubscribe " + std::to_string((64 + cores - 1) / cores);
}

std::string taskgraph(const std::string& name) {
  return data_dir() + "/pacos/examples/taskgraph/" + name;
}

/// Runs `mpiexec -n ranks treematch <arguments>` (arguments quoted by the caller).
CommandResult run_mpi(int ranks, const std::string& arguments, const TempDir& scratch) {
  return run_shell(std::string(TM_MPIEXEC) + " -n " + std::to_string(ranks) + " " +
                       quote(TM_BINARY) + " " + arguments,
                   scratch.file("mpi-stdout.txt"), scratch.file("mpi-stderr.txt"));
}

/// True when every line of `rankfile` but its '#' header is "rank <i>=<host> slot=<core>", i = 0,
/// 1, ... in order, and there are `ranks` such lines.
bool names_only(const std::string& rankfile, const std::string& host, std::size_t ranks) {
  std::istringstream lines(rankfile);
  std::string line;
  std::size_t rank = 0;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.front() == '#') continue;
    const std::regex expected("rank " + std::to_string(rank) + "=" + host + " slot=[0-9]+");
    if (!std::regex_match(line, expected)) return false;
    ++rank;
  }
  return rank == ranks;
}

/// Inputs in "in": 16.mat, 64.mat (TreeMatch examples), many.h5 holding 32.mat as the CSR group
/// /runs/m32, and corrupt.mat (its second row is too short).
class BatchAllocationMpi : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    fs::create_directories(in());
    for (const char* name : {"16.mat", "64.mat"}) fs::copy_file(taskgraph(name), in() / name);
    const CommGraph m32 = io::read_matrix(taskgraph("32.mat"));
    io::write_matrix_hdf5_csr((in() / "many.h5").string(), m32.view(), "/runs/m32");
    std::ofstream(in() / "corrupt.mat") << "0 1 2\n1 0\n2 1 0\n";
  }
  [[nodiscard]] fs::path in() const { return dir.path() / "in"; }
  [[nodiscard]] fs::path out() const { return dir.path() / "out"; }
  [[nodiscard]] json summary() const { return json::parse(read_text(out() / "summary.json")); }
  /// `treematch map <options> -m matrix` without mpirun: the allocation is this machine.
  [[nodiscard]] CommandResult map(const std::string& options, const std::string& matrix) const {
    return run_treematch("map " + options + " -m " + quote(matrix), dir);
  }

  TempDir dir;
};

TEST_P(BatchAllocationMpi, EveryRankfileNamesThisHostAndIsWhatMapWrites) {
  const std::string options = allocation_placement() + " --format rankfile";
  const CommandResult run = run_mpi(
      GetParam(),
      "batch " + options + " --out " + quote(out().string()) + " " +
          quote((in() / "16.mat").string()) + " " + quote((in() / "corrupt.mat").string()) + " " +
          quote((in() / "many.h5").string()) + " " + quote((in() / "64.mat").string()),
      dir);

  EXPECT_EQ(run.exit_code, 1) << run.err;  // the corrupt pattern, and only it, fails
  const json rows = summary()["patterns"];
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::string> names{"16.mat", "corrupt.mat", "many.h5_runs_m32", "64.mat"};
  const std::vector<std::string> sources{
      (in() / "16.mat").string(), (in() / "corrupt.mat").string(),
      (in() / "many.h5").string() + ":/runs/m32", (in() / "64.mat").string()};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(rows[i]["name"], names[i]);
    EXPECT_EQ(rows[i]["status"], i == 1 ? "failed" : "ok") << rows[i].dump();
    if (i == 1) continue;
    const std::string rankfile = read_text(out() / (names[i] + ".rankfile"));
    EXPECT_TRUE(names_only(rankfile, this_host(), rows[i]["p"].get<std::size_t>()))
        << names[i] << ":\n"
        << rankfile;
    const CommandResult reference = map(options, sources[i]);
    ASSERT_EQ(reference.exit_code, 0) << reference.err;
    EXPECT_EQ(rankfile, reference.out) << names[i];
  }
  const std::string error = rows[1]["error"].get<std::string>();
  EXPECT_NE(error.find(sources[1]), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(out() / "corrupt.mat.rankfile"));
  EXPECT_EQ(summary()["settings"]["allocation_hosts"], json::array({this_host()}));
}

TEST_P(BatchAllocationMpi, NetworkSlotsBeyondTheNodeGetNoRank) {
  // --network 2:2: four node slots, this machine in the first; the outputs name it alone.
  const std::string options = allocation_placement() + " --network 2:2";
  for (const std::string format : {"rankfile", "hydra"}) {
    const CommandResult run = run_mpi(
        GetParam(),
        "batch " + options + " --format " + format + " --out " + quote(out().string()) + " " +
            quote((in() / "16.mat").string()) + " " + quote((in() / "64.mat").string()),
        dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(summary()["settings"]["network"], "2:2");
    for (const std::string name : {"16.mat", "64.mat"}) {
      const std::string text = read_text(out() / (name + "." + format));
      if (format == "rankfile") {
        const std::size_t p = name == "16.mat" ? 16 : 64;
        EXPECT_TRUE(names_only(text, this_host(), p)) << name << ":\n" << text;
      } else {
        std::string line_start = "\n";  // built in steps: GCC 12 warns (-Wrestrict) otherwise
        line_start += this_host();
        line_start += ':';
        EXPECT_NE(text.find(line_start), std::string::npos) << text;
        EXPECT_EQ(text.find("unused"), std::string::npos) << text;
      }
      const CommandResult reference = map(options + " --format " + format, (in() / name).string());
      ASSERT_EQ(reference.exit_code, 0) << reference.err;
      EXPECT_EQ(text, reference.out) << name << " " << format;
    }
  }
}

TEST_P(BatchAllocationMpi, NetworkWithAnotherTopologyEndsEveryRankWithTheError) {
  const CommandResult run =
      run_mpi(GetParam(),
              "batch --topology 'tleaf 2 8 10 8 1' --network 2:2 --out " + quote(out().string()) +
                  " " + quote((in() / "16.mat").string()),
              dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("treematch: error: --network: applies to --topology allocation only"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(out() / "summary.json"));
}

INSTANTIATE_TEST_SUITE_P(Ranks, BatchAllocationMpi, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& ranks) {
                           return "np" + std::to_string(ranks.param);
                         });

}  // namespace
}  // namespace treematch::testing
