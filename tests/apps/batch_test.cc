// End-to-end tests of `treematch batch` without MPI: outputs, summary, failures, --resume.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "src/model/cost.h"
#include "src/report/baselines.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 8 machines x 8 cores = 64 leaves: 64.mat fills it.
const std::string kBatchTopology = "tleaf 2 8 10 8 1";

std::string taskgraph(const std::string& name) {
  return data_dir() + "/pacos/examples/taskgraph/" + name;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

/// A directory "in" holding:
///   16.mat 32.mat 64.mat   copies of the TreeMatch examples
///   broken.mat             a matrix whose second row is too short
class BatchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(in());
    for (const char* name : {"16.mat", "32.mat", "64.mat"})
      fs::copy_file(taskgraph(name), in() / name);
    std::ofstream(in() / "broken.mat") << "0 1 2\n1 0\n2 1 0\n";
  }
  [[nodiscard]] fs::path in() const { return dir.path() / "in"; }
  [[nodiscard]] fs::path out() const { return dir.path() / "out"; }
  [[nodiscard]] json summary() const { return json::parse(read_text(out() / "summary.json")); }
  CommandResult batch(const std::string& extra) const {
    return run_treematch(
        "batch -t " + quote(kBatchTopology) + " --out " + quote(out().string()) + " " + extra, dir);
  }

  TempDir dir;
};

TEST_F(BatchCli, CorruptFileIsRecordedTheOthersAreMappedExitIsNonZero) {
  const CommandResult run = batch(quote(in().string()));

  EXPECT_EQ(run.exit_code, 1) << run.err;
  for (const char* name : {"16.mat", "32.mat", "64.mat"})
    EXPECT_TRUE(fs::exists(out() / (std::string(name) + ".perm"))) << name;
  EXPECT_FALSE(fs::exists(out() / "broken.mat.perm"));

  const json rows = summary()["patterns"];
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::string> names{"16.mat", "32.mat", "64.mat", "broken.mat"};  // by path
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["name"], names[i]);
    EXPECT_EQ(rows[i]["status"], i < 3 ? "ok" : "failed");
  }
  EXPECT_EQ(rows[0]["p"], 16);
  EXPECT_TRUE(rows[3]["treematch_hop_bytes"].is_null());
  const std::string error = rows[3]["error"].get<std::string>();
  EXPECT_NE(error.find((in() / "broken.mat").string()), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);

  // The CSV: a header and one line per pattern, the failure named with its reason.
  const std::string csv = read_text(out() / "summary.csv");
  EXPECT_EQ(count_of(csv, "\n"), 5u) << csv;
  EXPECT_EQ(
      csv.rfind(
          "name,path,p,nnz,treematch_hop_bytes,treematch_weighted,treematch_predicted_seconds,"
          "treematch_congestion,packed_hop_bytes,",
          0),
      0u)
      << csv;
  EXPECT_NE(csv.find("broken.mat,"), std::string::npos);
  EXPECT_NE(csv.find(",failed,"), std::string::npos);

  // One progress line per pattern.
  EXPECT_TRUE(std::regex_search(run.err, std::regex(R"(\[\d/4\] 16\.mat: ok \d+\.\d\d s)")))
      << run.err;
  EXPECT_TRUE(std::regex_search(run.err, std::regex(R"(\[\d/4\] broken\.mat: FAILED: .*broken)")))
      << run.err;
}

TEST_F(BatchCli, FilesThatAreNoMatrixAreListedAsSkipped) {
  std::ofstream(in() / "README.txt") << "notes\n";
  fs::create_directories(in() / "logs");
  std::ofstream(in() / "logs" / "run.log") << "log\n";

  const CommandResult run = batch(quote(in().string()));

  EXPECT_EQ(run.exit_code, 1) << run.err;  // broken.mat
  EXPECT_EQ(summary()["patterns"].size(), 4u);
  EXPECT_EQ(summary()["skipped_files"], json::array({"README.txt", "logs/run.log"}));
  EXPECT_NE(run.err.find("2 files skipped, not a matrix by extension"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("README.txt, logs/run.log"), std::string::npos) << run.err;
}

TEST_F(BatchCli, ResumeSkipsTheDonePatternsAndKeepsTheirRows) {
  ASSERT_EQ(batch(quote(in().string())).exit_code, 1);
  const json first = summary();
  fs::remove(out() / "32.mat.perm");  // lost: must be mapped again

  const CommandResult run = batch("--resume " + quote(in().string()));

  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(count_of(run.err, "skipped (done)"), 2u) << run.err;
  EXPECT_NE(run.err.find("16.mat: skipped (done)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("64.mat: skipped (done)"), std::string::npos) << run.err;
  EXPECT_TRUE(std::regex_search(run.err, std::regex(R"(32\.mat: ok)"))) << run.err;
  EXPECT_NE(run.err.find("broken.mat: FAILED"), std::string::npos) << run.err;
  const json second = summary();
  ASSERT_EQ(second["patterns"].size(), 4u);
  EXPECT_EQ(second["patterns"][0], first["patterns"][0]) << "kept, timing included";
  EXPECT_EQ(second["patterns"][2], first["patterns"][2]);
  EXPECT_EQ(second["patterns"][1]["treematch_hop_bytes"],
            first["patterns"][1]["treematch_hop_bytes"]);
  EXPECT_TRUE(fs::exists(out() / "32.mat.perm"));
}

TEST_F(BatchCli, ResumeAcceptsASummaryWrittenBeforeSettingsWereAdded) {
  ASSERT_EQ(batch(quote(in().string())).exit_code, 1);
  // As an older treematch wrote it: no network, link costs or allocation hosts in the settings.
  json old = summary();
  for (const char* key : {"network", "link_costs", "allocation_hosts"}) {
    ASSERT_TRUE(old["settings"].contains(key)) << key;
    old["settings"].erase(key);
  }
  std::ofstream(out() / "summary.json") << old.dump();

  const CommandResult run = batch("--resume " + quote(in().string()));

  EXPECT_EQ(run.exit_code, 1) << run.err;  // broken.mat fails again
  EXPECT_EQ(count_of(run.err, "skipped (done)"), 3u) << run.err;

  // A setting the old run did not have, given now with a value, still refuses.
  std::ofstream(out() / "summary.json") << old.dump();
  const CommandResult refused = batch("--resume --link-costs 1:10 " + quote(in().string()));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("link_costs"), std::string::npos) << refused.err;
}

TEST_F(BatchCli, ResumeWithAnotherTopologyIsRefused) {
  ASSERT_EQ(batch(quote(in().string())).exit_code, 1);
  const CommandResult run = run_treematch("batch --resume -t 'tleaf 2 16 10 8 1' --out " +
                                              quote(out().string()) + " " + quote(in().string()),
                                          dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--resume"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("topology"), std::string::npos) << run.err;
}

TEST_F(BatchCli, OutputsAreThoseOfMap) {
  for (const std::string format : {"perm", "rankfile"}) {
    const CommandResult run = batch("--format " + format + " " + quote(in().string()));
    ASSERT_EQ(run.exit_code, 1) << run.err;
    for (const std::string name : {"16.mat", "32.mat", "64.mat"}) {
      const CommandResult map =
          run_treematch("map --format " + format + " -m " + quote((in() / name).string()) + " -t " +
                            quote(kBatchTopology),
                        dir);
      ASSERT_EQ(map.exit_code, 0) << map.err;
      EXPECT_EQ(read_text(out() / (name + "." + format)), map.out) << name << " " << format;
    }
  }
}

TEST_F(BatchCli, SummaryCostsAreThoseOfTheMappingsAndBaselines) {
  ASSERT_EQ(batch(quote(in().string())).exit_code, 1);
  const json rows = summary()["patterns"];
  const Topology topology = io::read_topology(kBatchTopology);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string name = rows[i]["name"];
    const CommGraph graph = io::read_matrix((in() / name).string());
    const Mapping ours{parse_perm(read_text(out() / (name + ".perm")))};
    const MappingCost cost = evaluate_cost(graph, topology, ours);
    EXPECT_DOUBLE_EQ(rows[i]["treematch_hop_bytes"].get<double>(), cost.hop_bytes) << name;
    EXPECT_DOUBLE_EQ(rows[i]["treematch_weighted"].get<double>(), cost.weighted) << name;
    const std::vector<Index> slots = usable_slots(topology, {}, 1);
    const MappingCost packed = evaluate_cost(graph, topology, packed_mapping(graph.size(), slots));
    const MappingCost random =
        evaluate_cost(graph, topology, random_mapping(graph.size(), slots, /*seed=*/1));
    EXPECT_DOUBLE_EQ(rows[i]["packed_hop_bytes"].get<double>(), packed.hop_bytes) << name;
    EXPECT_DOUBLE_EQ(rows[i]["random_weighted"].get<double>(), random.weighted) << name;
    EXPECT_EQ(rows[i]["nnz"].get<long long>(), static_cast<long long>(graph.nnz())) << name;
  }
}

TEST_F(BatchCli, ListFileHdf5ObjectsAndUniqueNames) {
  // list.txt (relative to its folder): 16.mat twice, then a missing file.
  std::ofstream(in() / "list.txt") << "# patterns\n16.mat\n\n./16.mat\nmissing.mat\n";
  const CommGraph m32 = io::read_matrix(taskgraph("32.mat"));
  const std::string h5 = (dir.path() / "set.h5").string();
  io::write_matrix_hdf5_csr(h5, m32.view(), "/runs/a");
  io::write_matrix_hdf5_csr(h5, m32.view(), "/runs/b", io::Hdf5WriteMode::kAppend);

  std::string list = "@";
  list += (in() / "list.txt").string();
  std::string object = h5;
  object += ":/runs/b";
  const CommandResult run = batch(quote(list) + " " + quote(h5) + " " + quote(object));

  EXPECT_EQ(run.exit_code, 1) << run.err;
  const json rows = summary()["patterns"];
  std::vector<std::string> names;
  for (const json& row : rows) names.push_back(row["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"16.mat", "16.mat-2", "missing.mat", "set.h5_runs_a",
                                             "set.h5_runs_b", "set.h5_runs_b-2"}));
  EXPECT_EQ(rows[2]["status"], "failed");
  EXPECT_NE(rows[2]["error"].get<std::string>().find("missing.mat"), std::string::npos);
  EXPECT_EQ(rows[3]["path"], h5 + ":/runs/a");
  EXPECT_EQ(rows[3]["status"], "ok") << rows[3].dump();
  EXPECT_EQ(read_text(out() / "16.mat.perm"), read_text(out() / "16.mat-2.perm"));
  // An HDF5 object maps like the same matrix read from text.
  ASSERT_EQ(batch("--resume " + quote(taskgraph("32.mat"))).exit_code, 0);
  EXPECT_EQ(read_text(out() / "set.h5_runs_a.perm"), read_text(out() / "32.mat.perm"));
}

TEST_F(BatchCli, TooManyProcessesFailsThatPatternOnly) {
  const CommandResult run =
      run_treematch("batch -t 'tleaf 2 4 10 8 1' --out " + quote(out().string()) + " " +
                        quote((in() / "16.mat").string()) + " " + quote((in() / "64.mat").string()),
                    dir);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const json rows = summary()["patterns"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_EQ(rows[1]["status"], "failed");
  EXPECT_NE(rows[1]["error"].get<std::string>().find("--oversubscribe"), std::string::npos);
}

TEST_F(BatchCli, BadTopologyFailsTheWholeBatchWithOneLine) {
  const CommandResult run = run_treematch(
      "batch -t 'pack:two core:2' --out " + quote(out().string()) + " " + quote(in().string()),
      dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(count_of(run.err, "\n"), 1u) << run.err;
  EXPECT_NE(run.err.find("--topology"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(out() / "summary.json"));
}

TEST_F(BatchCli, AllocationWithoutMpirunIsThisMachineAndOutputsNameThisHost) {
  // Without mpirun the allocation is this machine, one node: 64 ranks on its few cores.
  const std::string options = " -t allocation --oversubscribe 64 --format rankfile ";
  const CommandResult run = run_treematch(
      "batch" + options + "--out " + quote(out().string()) + " " + quote(in().string()), dir);

  EXPECT_EQ(run.exit_code, 1) << run.err;  // broken.mat
  const json rows = summary()["patterns"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3]["status"], "failed");
  EXPECT_EQ(summary()["settings"]["allocation_hosts"], json::array({this_host()}));
  std::string host_slot = "=";  // built in steps: GCC 12 warns (-Wrestrict) on "=" + host + ...
  host_slot += this_host();
  host_slot += " slot=";
  for (const std::string name : {"16.mat", "32.mat", "64.mat"}) {
    const std::string rankfile = read_text(out() / (name + ".rankfile"));
    EXPECT_EQ(count_of(rankfile, host_slot), count_of(rankfile, "\nrank ")) << name;
    EXPECT_EQ(count_of(rankfile, "\nrank "), static_cast<std::size_t>(std::stoi(name))) << name;
    const CommandResult map =
        run_treematch("map" + options + "-m " + quote((in() / name).string()), dir);
    ASSERT_EQ(map.exit_code, 0) << map.err;
    EXPECT_EQ(rankfile, map.out) << name;
  }
}

TEST_F(BatchCli, NetworkWithAnotherTopologyFailsTheWholeBatchWithOneLine) {
  const CommandResult run = batch("--network 2:2 " + quote(in().string()));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(count_of(run.err, "\n"), 1u) << run.err;
  EXPECT_NE(run.err.find("--network: applies to --topology allocation only"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(out() / "summary.json"));
}

TEST_F(BatchCli, ResumeWithAnotherNetworkIsRefused) {
  const std::string base = "batch -t allocation --oversubscribe 64 --out " + quote(out().string());
  ASSERT_EQ(run_treematch(base + " " + quote((in() / "16.mat").string()), dir).exit_code, 0);
  const CommandResult run =
      run_treematch(base + " --resume --network 2:2 " + quote((in() / "16.mat").string()), dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--resume"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("network"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace treematch::testing

namespace treematch::testing {
namespace {

TEST(BatchInterrupted, ResumeSkipsWhatFinishedBeforeTheKill) {
  // 16 copies of a 1024-rank pattern mapped one after the other; the batch is killed (SIGKILL:
  // no cleanup at all) once its journal holds two finished patterns.
  TempDir dir;
  const fs::path in = dir.path() / "in";
  const fs::path out = dir.path() / "out";
  fs::create_directories(in);
  for (int i = 0; i < 16; ++i) {
    fs::copy_file(taskgraph("CloverLeaf1024.APHiD"),
                  in / ("clover" + std::to_string(100 + i) + ".APHiD"));
  }
  const std::string command = std::string(TM_BINARY) +
                              " batch --threads 1 -t 'tleaf 3 32 100 2 10 16 1' --out " +
                              quote(out.string()) + " ";
  const std::string journal = (out / "progress.jsonl").string();
  const CommandResult killed = run_shell(
      command + quote(in.string()) + " >/dev/null 2>&1 & pid=$!; for i in $(seq 1200); do " +
          "n=$(wc -l < " + quote(journal) + " 2>/dev/null || echo 0); " +
          "[ \"$n\" -ge 3 ] && break; sleep 0.05; done; kill -KILL $pid; wait $pid",
      dir.file("killed.out"), dir.file("killed.err"));
  ASSERT_FALSE(fs::exists(out / "summary.json")) << "the batch ended before the kill";
  const std::size_t recorded = count_of(read_text(journal), "\n") - 1;  // the settings line
  ASSERT_GE(recorded, 2u);
  ASSERT_LT(recorded, 16u);

  const CommandResult resumed = run_shell(command + "--resume " + quote(in.string()),
                                          dir.file("resumed.out"), dir.file("resumed.err"));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  // Every pattern the journal held was skipped; the others were mapped.
  EXPECT_GE(count_of(resumed.err, "skipped (done)"), recorded) << resumed.err;
  const json rows = json::parse(read_text(out / "summary.json"))["patterns"];
  ASSERT_EQ(rows.size(), 16u);
  for (const json& row : rows) EXPECT_EQ(row["status"], "ok") << row.dump();
  EXPECT_FALSE(fs::exists(journal)) << "the summary replaces the journal";
}

}  // namespace
}  // namespace treematch::testing
