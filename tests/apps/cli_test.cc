// End-to-end tests of the treematch command: outputs in every format, costs, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <set>
#include <span>

#include <nlohmann/json.hpp>

#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/model/cost.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

/// The lines of `text`, '#' comment lines left out.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '#') lines.push_back(line);
  }
  return lines;
}

TEST(CliMap, PermIsAPermutationWhoseCostTheCheckerConfirms) {
  TempDir dir;
  const CommandResult run =
      run_treematch("map -m " + quote(clover128()) + " -t " + quote(kClusterOf128), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<Index> leaves = parse_perm(run.out);
  ASSERT_EQ(leaves.size(), 128u);
  EXPECT_EQ(std::set<Index>(leaves.begin(), leaves.end()).size(), 128u);
  EXPECT_TRUE(std::all_of(leaves.begin(), leaves.end(), [](Index l) { return l >= 0 && l < 128; }));

  // Independent check: recompute the cost and compare with the summary and with `eval`.
  const CommGraph graph = io::read_matrix(clover128());
  const Topology topology = io::read_topology(kClusterOf128);
  const MappingCost cost = evaluate_cost(graph, topology, Mapping{leaves});
  std::ofstream(dir.file("ours.perm")) << run.out;
  const CommandResult eval =
      run_treematch("eval --json -m " + quote(clover128()) + " -t " + quote(kClusterOf128) +
                        " --mapping " + dir.file("ours.perm"),
                    dir);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto j = nlohmann::json::parse(eval.out);
  EXPECT_DOUBLE_EQ(j["hop_bytes"].get<double>(), cost.hop_bytes);
  EXPECT_DOUBLE_EQ(j["weighted"].get<double>(), cost.weighted);
}

// Independent check of the link loads `eval` prints: every pair's volume added to the uplink of
// each subtree holding one rank and not the other, per level, by brute force over the matrix.
TEST(CliEval, LinkLoadsMatchABruteForceCountOverThePairs) {
  TempDir dir;
  const CommandResult run = run_treematch(
      "map -m " + quote(clover128()) + " -t " + quote(kClusterOf128) + " --node-size 32", dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ofstream(dir.file("ours.perm")) << run.out;
  const CommandResult eval = run_treematch(
      "eval --json -m " + quote(clover128()) + " -t " + quote(kClusterOf128) +
          " --node-size 32 --link-model fat-tree-full --link-latency 0:0:2us --mapping " +
          dir.file("ours.perm"),
      dir);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto links = nlohmann::json::parse(eval.out)["links"];

  const std::vector<Index> leaf = parse_perm(run.out);
  const CommGraph graph = io::read_matrix(clover128());
  const kernels::CsrView view = graph.view();
  // tleaf 3 4 100 2 10 16 1: 4 machines of 2 x 16 cores; leaves below one vertex per depth.
  const std::vector<Index> below = {32, 16, 1};
  const std::vector<double> bandwidth = {12.5e9, 20e9, 10e9};  // card, package, core
  double busiest = 0.0;
  for (std::size_t d = 0; d < below.size(); ++d) {
    std::vector<double> bytes(128 / static_cast<std::size_t>(below[d]), 0.0);
    for (Index i = 0; i < 128; ++i) {
      for (Offset e = view.row_begin(i); e < view.row_end(i); ++e) {
        const Index j = view.targets[static_cast<std::size_t>(e)];
        const Index vi = leaf[static_cast<std::size_t>(i)] / below[d];
        if (vi != leaf[static_cast<std::size_t>(j)] / below[d])
          bytes[static_cast<std::size_t>(vi)] +=
              graph.cost_scale() * view.weights[static_cast<std::size_t>(e)];
      }
    }
    const double most = *std::max_element(bytes.begin(), bytes.end());
    EXPECT_NEAR(links["levels"][d]["max_bytes"].get<double>(), most, 1e-9 * most) << d;
    EXPECT_EQ(links["levels"][d]["bandwidth"].get<double>(), bandwidth[d]) << d;
    busiest = std::max(busiest, most / bandwidth[d]);
  }
  ASSERT_GT(busiest, 0.0);
  // Some pair talks across machines: the longest path climbs to the root, 2 x 2 us.
  EXPECT_NEAR(links["predicted_seconds"].get<double>(), busiest + 4e-6, 1e-9 * busiest);
  EXPECT_GE(links["congestion_norm"].get<double>(), busiest);
}

// A mapping may use any leaf: eval reads the whole tree, not the first leaves 2 ranks would fill.
TEST(CliEval, AMappingOnFarLeavesOfALargeTreeIsCosted) {
  TempDir dir;
  std::ofstream(dir.file("pair.mat")) << "0 3\n3 0\n";
  std::ofstream(dir.file("far.perm")) << "0\n9\n";
  const CommandResult eval =
      run_treematch("eval --json -m " + dir.file("pair.mat") + " -t 'tleaf 2 4 10 4 1' --mapping " +
                        dir.file("far.perm"),
                    dir);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  // Leaves 0 and 9 meet at the root: 2 x (10 + 1) apart, both directions of 3.
  EXPECT_EQ(nlohmann::json::parse(eval.out)["weighted"].get<double>(), 2 * 3 * 22.0);
}

TEST(CliMap, CompareListsEveryBaselineAndTreeMatchBeatsPacked) {
  TempDir dir;
  const CommandResult run = run_treematch(
      "map --compare --format json -m " + quote(clover128()) + " -t " + quote(kClusterOf128), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name : {"treematch", "packed", "round-robin", "random", "MPIPP.1", "MPIPP.5"}) {
    EXPECT_NE(run.err.find(name), std::string::npos) << name;
  }
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["mapping"].size(), 128u);
  EXPECT_LT(report["costs"]["treematch"]["hop_bytes"].get<double>(),
            report["costs"]["packed"]["hop_bytes"].get<double>());
  EXPECT_LT(report["costs"]["treematch"]["hop_bytes"].get<double>(),
            report["costs"]["random"]["hop_bytes"].get<double>());
}

// The summary's ratio column is of the cost the mapping minimises: the weighted one when link costs
// differ, hop-bytes when they are all equal. Each row's ratio is recomputed from its two costs.
TEST(CliMap, SummaryRanksByTheCostTheMappingMinimises) {
  TempDir dir;
  for (const bool differ : {true, false}) {
    const std::string topology = differ ? "tleaf 3 2 100 8 10 8 1" : "tleaf 3 2 1 8 1 8 1";
    const CommandResult run =
        run_treematch("map --compare -m " + quote(clover128()) + " -t " + quote(topology) + " -o " +
                          quote(dir.file("out.perm")),
                      dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string header = differ ? "weighted / ours" : "hop-bytes / ours";
    ASSERT_NE(run.err.find(header), std::string::npos) << run.err;
    std::smatch ours;
    ASSERT_TRUE(
        std::regex_search(run.err, ours, std::regex(R"(\n  treematch +(\S+) +(\S+) +1\.000 )")))
        << run.err;
    std::smatch random;
    ASSERT_TRUE(
        std::regex_search(run.err, random, std::regex(R"(\n  random +(\S+) +(\S+) +(\S+) )")))
        << run.err;
    const int column = differ ? 2 : 1;
    EXPECT_NEAR(std::stod(random[3]), std::stod(random[column]) / std::stod(ours[column]), 1e-3)
        << run.err;
  }
}

TEST(CliMap, RankfileNamesHostsAndSlotsWithinANode) {
  TempDir dir;
  const std::string out = dir.file("job.rankfile");
  const CommandResult run =
      run_treematch("map --format rankfile --node-size 32 --hosts a,b,c,d -m " +
                        quote(clover128()) + " -t " + quote(kClusterOf128) + " -o " + out,
                    dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty());
  const std::vector<std::string> lines = lines_of(read_text(out));
  ASSERT_EQ(lines.size(), 128u);
  const std::regex line_form(R"(rank (\d+)=([abcd]) slot=(\d+))");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(lines[i], match, line_form)) << lines[i];
    EXPECT_EQ(std::stoul(match[1]), i);
    EXPECT_LT(std::stoi(match[3]), 32);
  }
}

TEST(CliMap, SlurmAndHydraBindEveryRankOnce) {
  TempDir dir;
  for (const std::string format : {"slurm", "hydra"}) {
    const CommandResult run = run_treematch("map --node-size 32 --format " + format + " -m " +
                                                quote(clover128()) + " -t " + quote(kClusterOf128),
                                            dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::size_t bound = 0;
    // Slurm: the per-node comment lines; Hydra: the machine file lines.
    const std::regex list(format == "slurm" ? R"(^# node\d+: --cpu-bind=map_cpu:([0-9,]+))"
                                            : R"(binding=user:([0-9,]+))");
    std::istringstream text(run.out);
    for (std::string line; std::getline(text, line);) {
      std::smatch match;
      if (std::regex_search(line, match, list)) {
        bound += static_cast<std::size_t>(std::count(match[1].first, match[1].second, ',') + 1);
      }
    }
    EXPECT_EQ(bound, 128u) << format << "\n" << run.out;
  }
}

TEST(CliMap, PhysicalNumberingPrintsOsIndexes) {
  TempDir dir;
  const std::string topology = "pack:2 core:4 pu:1(indexes=0,2,4,6,1,3,5,7)";
  const CommandResult logical =
      run_treematch("map -m " + quote(data_dir() + "/pacos/examples/taskgraph/16.mat") +
                        " --oversubscribe 2 -t " + quote(topology),
                    dir);
  const CommandResult physical = run_treematch(
      "map --numbering physical -m " + quote(data_dir() + "/pacos/examples/taskgraph/16.mat") +
          " --oversubscribe 2 -t " + quote(topology),
      dir);
  ASSERT_EQ(logical.exit_code, 0) << logical.err;
  ASSERT_EQ(physical.exit_code, 0) << physical.err;
  const std::vector<Index> os_of_logical{0, 2, 4, 6, 1, 3, 5, 7};
  const std::vector<Index> l = parse_perm(logical.out);
  const std::vector<Index> p = parse_perm(physical.out);
  ASSERT_EQ(l.size(), 16u);
  ASSERT_EQ(p.size(), 16u);
  for (std::size_t i = 0; i < l.size(); ++i)
    EXPECT_EQ(p[i], os_of_logical[static_cast<std::size_t>(l[i])]);
}

TEST(CliMap, SameMappingWithAnyThreadCount) {
  TempDir dir;
  // 960 ranks on 40 nodes: neighbourhood candidates (no exhaustive level), parallel kernels.
  const std::string args = "map -m " +
                           quote(data_dir() + "/pacos/examples/taskgraph/CloverLeaf960.APHiD") +
                           " -t 'tleaf 3 40 100 2 10 12 1'";
  std::vector<std::string> outputs;
  for (const char* threads : {"1", "2", "4", "8"}) {
    const CommandResult run = run_treematch(args + " --threads " + threads, dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    outputs.push_back(run.out);
  }
  EXPECT_EQ(parse_perm(outputs[0]).size(), 960u);
  for (const std::string& out : outputs) EXPECT_EQ(out, outputs.front());
}

TEST(CliMap, TruncatedHdf5IsAOneLineErrorWithoutOutput) {
  TempDir dir;
  const CommGraph graph = io::read_matrix(data_dir() + "/pacos/examples/taskgraph/64.mat");
  const std::string path = dir.file("m.h5");
  io::write_matrix_hdf5_csr(path, graph.view());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const std::string out = dir.file("out.perm");
  const CommandResult run =
      run_treematch("map -m " + path + " -t 'tleaf 2 8 10 8 1' -o " + out, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(path + ": "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("HDF5"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Found by the HDF5 fuzzer: a damaged object header made HDF5's shutdown at exit print two more
// lines ("HDF5: infinite loop closing library") after treematch's one.
TEST(CliMap, ADamagedHdf5ObjectHeaderIsOneLine) {
  TempDir dir;
  const std::string matrix =
      std::string(TM_SOURCE_ROOT) + "/tests/fuzz/corpus/hdf5_dense_fuzzer/corrupt_object_header.h5";
  const std::string out = dir.file("out.perm");
  const CommandResult run = run_treematch("map -m " + matrix + " -t 'tleaf 1 64 1' -o " + out, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(matrix + ": H5Oopen failed on /matrix"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Found by the fuzzers: HDF5 crashing on a damaged symbol table (SIGSEGV under H5Lexists), hwloc
// asserting on a synthetic string it first accepts, and hwloc's own XML parser (without the
// libxml2 plugin) dereferencing null on a damaged export; all are now tried in a child process
// and refused in one line. One where HDF5 reads a global heap forever is refused once the probe's
// time (TREEMATCH_PROBE_SECONDS, else 20 s) is over.
TEST(CliMap, InputsThatCrashTheLibrariesAreOneLine) {
  TempDir dir;
  const std::string corpus = std::string(TM_SOURCE_ROOT) + "/tests/fuzz/corpus/";
  const std::string h5 = corpus + "hdf5_dense_fuzzer/segfault_in_symbol_table.h5";
  const std::string synthetic = read_text(corpus + "synthetic_fuzzer/hwloc_assertion");
  const std::string xml = corpus + "hwloc_xml_fuzzer/minimal_parser_null_deref.xml";
  const std::string endless = corpus + "hdf5_csr_fuzzer/endless_global_heap.h5";
  const std::string ring = dir.write("ring.mat", "0 1\n1 0\n");
  struct Case {
    std::string environment;
    std::string arguments;
    std::string message;
  };
  for (const Case& c :
       {Case{"", "-m " + h5 + " -t 'tleaf 1 64 1'",
             h5 + ": HDF5 crashed with signal 11 (Segmentation fault) reading the metadata of "
                  "/size, /msg, /matrix"},
        Case{"", "-m " + ring + " -t '" + synthetic + "'",
             "hwloc: hwloc crashed with signal 6 (Aborted) building"},
        Case{"HWLOC_LIBXML_IMPORT=0 ", "-m " + ring + " -t " + xml,
             xml + ": damaged hwloc XML: hwloc crashed with signal 11 (Segmentation fault)"},
        Case{"TREEMATCH_PROBE_SECONDS=1 ", "-m " + endless + " -t 'tleaf 1 8 1'",
             endless + ": HDF5 did not finish within 1 s reading the metadata of /size"}}) {
    const std::string out = dir.file("out.perm");
    const CommandResult run =
        run_shell(c.environment + TM_BINARY + " map " + c.arguments + " -o " + out,
                  dir.file("stdout.txt"), dir.file("stderr.txt"));
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(CliMap, EmptyHdf5MatricesAreRefusedByMapAndConvert) {
  TempDir dir;
  const std::string dense = dir.file("dense.h5");
  const std::string csr = dir.file("csr.h5");
  io::write_matrix_hdf5_dense(dense, 0, std::vector<double>{});
  io::write_matrix_hdf5_csr(csr, kernels::CsrView{0, std::vector<Offset>{0}, {}, {}});
  for (const std::string& matrix : {dense, csr}) {
    const std::string out = dir.file("out");
    for (const std::string& command : {"map -m " + matrix + " -t 'tleaf 1 8 1' -o " + out,
                                       "convert " + matrix + " " + out + ".mat"}) {
      const CommandResult run = run_treematch(command, dir);
      EXPECT_EQ(run.exit_code, 2) << command;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
      EXPECT_NE(run.err.find(matrix + ": "), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("the matrix has no ranks"), std::string::npos) << run.err;
    }
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_FALSE(std::filesystem::exists(out + ".mat"));
  }
}

TEST(CliMap, TooManyProcessesInAnHdf5MatrixAreRefusedBeforeItsRowsAreRead) {
  // 300 ranks, the last row holds a NaN: on 8 cores the shape alone refuses it.
  TempDir dir;
  const std::string matrix = dir.file("m.h5");
  io::write_matrix_hdf5_dense(matrix, 300, [](Index row, std::span<double> values) {
    values[static_cast<std::size_t>((row + 1) % 300)] = row == 299 ? std::nan("") : 1.0;
  });
  const std::string out = dir.file("out.perm");
  const CommandResult run = run_treematch("map -m " + matrix + " -t 'tleaf 1 8 1' -o " + out, dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(matrix + ": 300 processes but tleaf 1 8 1 offers 8 slots"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliMap, AMappingWithinTheMemoryAllowedRuns) {
  // The same matrix refused under --max-memory 1M (CliBadInput) maps with room, or no check.
  TempDir dir;
  const std::string graph = dir.write("m.graph", "3 2\n2\n1 3\n2\n");
  for (const char* limit : {"64M", "none", "auto"}) {
    const CommandResult run =
        run_treematch("map -m " + graph + " -t 'tleaf 1 4 1' --max-memory " + limit, dir);
    EXPECT_EQ(run.exit_code, 0) << limit << run.err;
    EXPECT_EQ(parse_perm(run.out).size(), 3u) << limit;
  }
}

TEST(CliMap, MetisWithUtf8BomMaps) {
  TempDir dir;
  const std::string graph = dir.write("m.graph",
                                      "\xEF\xBB\xBF"
                                      "3 2\n2\n1 3\n2\n");
  const CommandResult run = run_treematch("map -m " + graph + " -t 'tleaf 1 4 1'", dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(parse_perm(run.out).size(), 3u);
}

// A tleaf or synthetic description far larger than the job is read as the part the job uses
// (whole machines of --node-size), not built whole: 60 million leaves for 8 processes took 66 s
// and 4.8 GB before.
TEST(CliMap, AHugeDescribedTreeIsReadAsThePartTheJobUses) {
  TempDir dir;
  const std::string ring = dir.write("ring.mat", "0 1 0 1\n1 0 1 0\n0 1 0 1\n1 0 1 0\n");
  struct Case {
    std::string arguments;
    std::string topology_line;
  };
  for (const Case& c :
       {Case{"-t 'tleaf 1 60000000 1'", "topology 4 = 4 leaves"},
        Case{"-t 'tleaf 2 1000000 10 60 1' --node-size 60", "topology 60 = 60 leaves"},
        Case{"-t 'tleaf 2 1000000 10 60 1' --oversubscribe 2", "topology 2 = 2 leaves"},
        Case{"-t 'node:100000 core:600 pu:1'", "topology 4 = 4 leaves"},
        Case{"-t 'tleaf 1 60000000 1' --cores 100-103", "topology 104 = 104 leaves"}}) {
    const CommandResult run =
        run_treematch("map -m " + ring + " " + c.arguments + " -o " + dir.file("r.perm"), dir);
    ASSERT_EQ(run.exit_code, 0) << c.arguments << '\n' << run.err;
    EXPECT_NE(run.err.find(c.topology_line), std::string::npos) << c.arguments << '\n' << run.err;
  }
}

// --verbose prints the effective settings: the preset's, with what --set changed.
TEST(CliPreset, VerbosePrintsThePresetsSettingsWithTheOverrides) {
  TempDir dir;
  const std::string matrix = dir.write("ring.mat", "0 1 0 1\n1 0 1 0\n0 1 0 1\n1 0 1 0\n");
  const CommandResult fast = run_treematch(
      "map -m " + matrix + " -t 'tleaf 2 2 10 2 1' --preset fast --verbose -o " + dir.file("a"),
      dir);
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  for (const char* line : {"preset = fast\n", "driver.first_that_applies = 1\n",
                           "partition.attempts = 1\n", "refinement.max_entries = 131072\n"}) {
    EXPECT_NE(fast.err.find(line), std::string::npos) << line << fast.err;
  }
  const CommandResult changed =
      run_treematch("map -m " + matrix +
                        " -t 'tleaf 2 2 10 2 1' --preset fast --set partition.attempts=3 --set "
                        "driver.first_that_applies=0 --verbose -o " +
                        dir.file("b"),
                    dir);
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  for (const char* line :
       {"preset = fast\n", "driver.first_that_applies = 0\n", "partition.attempts = 3\n"}) {
    EXPECT_NE(changed.err.find(line), std::string::npos) << line << changed.err;
  }
}

struct BadInput {
  std::string name;
  std::string file;        ///< fixture file name ("" = none)
  std::string content;     ///< fixture content
  std::string arguments;   ///< {file} is replaced by the fixture path
  std::string keyword;     ///< must appear in the message
  bool names_file = true;  ///< the message names the fixture (else an option, named by keyword)
};

/// Its name in test listings (CTest's test names), not gtest's byte dump.
void PrintTo(const BadInput& c, std::ostream* out) {
  *out << c.name;
}

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineErrorNamingTheProblemNonZeroExitNoOutput) {
  TempDir dir;
  const BadInput& bad = GetParam();
  std::string arguments = bad.arguments;
  if (!bad.file.empty()) {
    std::ofstream(dir.file(bad.file)) << bad.content;
    arguments = std::regex_replace(arguments, std::regex(R"(\{file\})"), dir.file(bad.file));
  }
  arguments = std::regex_replace(arguments, std::regex(R"(\{data\})"), data_dir());
  const std::string out = dir.file("mapping.out");
  const CommandResult run = run_treematch(arguments + " -o " + out, dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(bad.keyword), std::string::npos) << run.err;
  if (!bad.file.empty() && bad.names_file) {
    EXPECT_NE(run.err.find(dir.file(bad.file)), std::string::npos) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

/// An hwloc XML machine whose second package has a core of 3 PUs beside one of 2.
const char* const kUnevenXml = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
<object type="Machine" os_index="0" cpuset="0x000001ff" complete_cpuset="0x000001ff" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="1" allowed_cpuset="0x000001ff" allowed_nodeset="0x00000001">
<object type="NUMANode" os_index="0" cpuset="0x000001ff" complete_cpuset="0x000001ff" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="1000" local_memory="1073741824"/>
<object type="Package" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000000f" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
<object type="Core" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3">
<object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"/>
<object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5"/>
</object>
<object type="Core" os_index="0" cpuset="0x0000000c" complete_cpuset="0x0000000c" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6">
<object type="PU" os_index="2" cpuset="0x00000004" complete_cpuset="0x00000004" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="7"/>
<object type="PU" os_index="3" cpuset="0x00000008" complete_cpuset="0x00000008" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="8"/>
</object>
</object>
<object type="Package" os_index="0" cpuset="0x000001f0" complete_cpuset="0x000001f0" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="9">
<object type="Core" os_index="0" cpuset="0x00000030" complete_cpuset="0x00000030" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="10">
<object type="PU" os_index="4" cpuset="0x00000010" complete_cpuset="0x00000010" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="11"/>
<object type="PU" os_index="5" cpuset="0x00000020" complete_cpuset="0x00000020" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="12"/>
</object>
<object type="Core" os_index="0" cpuset="0x000001c0" complete_cpuset="0x000001c0" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="13">
<object type="PU" os_index="6" cpuset="0x00000040" complete_cpuset="0x00000040" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="14"/>
<object type="PU" os_index="7" cpuset="0x00000080" complete_cpuset="0x00000080" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="15"/>
<object type="PU" os_index="8" cpuset="0x00000100" complete_cpuset="0x00000100" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="16"/>
</object>
</object>
</object>
</topology>
)";

INSTANTIATE_TEST_SUITE_P(
    Inputs, CliBadInput,
    ::testing::Values(
        BadInput{"non_square", "m.mat", "0 1 2\n1 0 3\n", "map -m {file} -t 'tleaf 1 8 1'",
                 "square"},
        BadInput{"ragged", "m.mat", "0 1 2\n1 0\n2 1 0\n", "map -m {file} -t 'tleaf 1 8 1'",
                 "ragged"},
        BadInput{"negative", "m.mat", "0 -1\n-1 0\n", "map -m {file} -t 'tleaf 1 8 1'", "negative"},
        BadInput{"nan", "m.mat", "0 nan\nnan 0\n", "map -m {file} -t 'tleaf 1 8 1'", "NaN"},
        BadInput{"not_hdf5", "m.h5", "hello\n", "map -m {file} -t 'tleaf 1 8 1'", "HDF5"},
        BadInput{"metis_edge_count_lies", "m.graph", "3 3 001\n2 1\n1 1 3 1\n2 1\n",
                 "map -m {file} -t 'tleaf 1 8 1'", "edge"},
        BadInput{"metis_asymmetric", "m.graph", "3 2 001\n2 1\n1 1 3 1\n2 5\n",
                 "map -m {file} -t 'tleaf 1 8 1'", "symmetric"},
        BadInput{"fewer_leaves_than_processes", "m.mat", "0 1 1\n1 0 1\n1 1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1'", "--oversubscribe"},
        BadInput{"cores_names_missing_leaf", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --cores 0,9", "--cores: names leaf 9", false},
        // 16 processes on the 4 cores of an uneven machine: both remedies named.
        BadInput{"more_processes_than_cores", "machine.xml", kUnevenXml,
                 "map -m {data}/pacos/examples/taskgraph/16.mat -t {file}",
                 "offers 4 slots (4 cores x 1); use --oversubscribe N to allow N processes per "
                 "core or --hwthreads"},
        BadInput{"cores_names_nothing_usable", "machine.xml", kUnevenXml,
                 "map -m {data}/pacos/examples/taskgraph/16.mat -t {file} --hwthreads "
                 "--numbering physical --cores 12-15",
                 "no core or PU with that index"},
        BadInput{"hosts_fewer_than_machines", "m.mat", "0 1 1 1\n1 0 1 1\n1 1 0 1\n1 1 1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --node-size 2 --format rankfile --hosts a",
                 "--hosts: 1 host name for 2 machines", false},
        BadInput{"missing_matrix", "", "", "map -m /nonexistent/m.mat -t 'tleaf 1 2 1'",
                 "/nonexistent/m.mat"},
        BadInput{"bad_topology_string", "m.mat", "0 1\n1 0\n", "map -m {file} -t 'pack:two core:2'",
                 "--topology: cannot parse 'pack:two", false},
        BadInput{"report_path_under_a_file", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1' --report {file}/report", "--report: the folder",
                 false},
        BadInput{"threads_not_a_number", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1' --threads x",
                 "--threads: must be a number >= 0, not 'x'", false},
        BadInput{"oversubscribe_zero", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1' --oversubscribe 0",
                 "--oversubscribe: must be a number >= 1, not '0'", false},
        BadInput{"unknown_option", "m.mat", "0 1\n1 0\n", "map -m {file} -t 'tleaf 1 2 1' --bogus",
                 "--bogus", false},
        BadInput{"metis_no_vertices", "m.graph", "0 0\n", "map -m {file} -t 'tleaf 1 2 1'",
                 "header says 0 vertices: the graph has no ranks"},
        BadInput{"metis_edges_beyond_the_file", "m.graph", "4 9223372036854775807\n2\n1\n4\n3\n",
                 "map -m {file} -t 'tleaf 1 8 1'", "can hold at most 7"},
        BadInput{"metis_raw_bytes_are_not_echoed", "m.graph",
                 "3 2 001\n2 1 3 \x01\x02\xff\xfe" + std::string(300, 'A') + "\n1 1\n1 1\n",
                 "map -m {file} -t 'tleaf 1 8 1'",
                 "edge weight '????AAAAAAAAAAAAAAAAAAAAAAAAAAAA...'"},
        // The processes are counted from the first row (text), the header (METIS): a matrix too
        // large for the slots is refused before its bad last row is read.
        BadInput{"too_many_processes_before_the_rows_of_a_mat", "m.mat",
                 "0 1 1 1 1 1 1 1 1 1\n1 0 1 1 1 1 1 1 1 nan\n", "map -m {file} -t 'tleaf 1 8 1'",
                 "10 processes but tleaf 1 8 1 offers 8 slots"},
        BadInput{"too_many_processes_before_the_rows_of_a_graph", "m.graph",
                 "100 0\nx\n" + std::string(120, '\n'), "map -m {file} -t 'tleaf 1 8 1'",
                 "100 processes but tleaf 1 8 1 offers 8 slots"},
        // Costs that would be inf or NaN are refused, naming where the values are.
        BadInput{"volume_overflows", "m.mat", "0 1e308\n1e308 0\n",
                 "map -m {file} -t 'pack:2 core:4 pu:1'", "add up to more than the largest double"},
        BadInput{"volume_times_distance_overflows", "m.mat", "0 1e306\n1e306 0\n",
                 "map -m {file} -t 'pack:2 core:4 pu:1' --link-costs 1e4:1e4",
                 "times the largest distance of the topology"},
        BadInput{"tleaf_link_costs_overflow", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1e308 2 1'", "is 1e308; costs must be <= 1e300",
                 false},
        // Presets and their options: a name not among the three, an option that does not exist
        // (the message lists them), a value of the wrong kind.
        BadInput{"unknown_preset", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 8 1' --preset quick",
                 "--preset: unknown preset 'quick'; use fast, default or strong", false},
        BadInput{"unknown_set_option", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 8 1' --preset fast --set partition.speed=9",
                 "the options are driver.strategies, ", false},
        BadInput{"set_option_of_the_wrong_kind", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 8 1' --set driver.first_that_applies=maybe",
                 "0, 1, true or false", false},
        // Memory: a mapping that needs more than --max-memory is refused, from the header where
        // it gives the entries (METIS: before the bad row), else once the matrix is read.
        BadInput{"needs_more_memory_than_allowed_by_the_header", "m.graph",
                 "8 4\nx\n" + std::string(40, ' ') + std::string(8, '\n'),
                 "map -m {file} -t 'tleaf 1 8 1' --max-memory 1M",
                 "mapping 8 processes (8 entries) with --preset default needs about "},
        // ... and names the mpirun -n R, one rank per machine, whose ranks would each fit
        // (4.4M entries: 166 MiB read whole; a rank over 3 and 4 ranks: 152 and 139 MiB). The
        // file is just long enough to hold the edges its header states.
        BadInput{"needs_more_memory_than_allowed_but_four_ranks_fit", "m.graph",
                 "1000 2200000\nx\n" + std::string(8800000, ' ') + std::string(1000, '\n'),
                 "map -m {file} -t 'tleaf 1 1000 1' --max-memory 150M",
                 "under mpirun -n 4 with one rank per machine (about 138.8 MiB a rank)"},
        BadInput{"needs_more_memory_than_allowed_once_read", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 8 1' --max-memory 1K",
                 "more than the 0.0 MiB available (--max-memory)"},
        BadInput{"max_memory_not_a_size", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 8 1' --max-memory 2Q",
                 "--max-memory: '2Q' is not auto, none or a size such as 512M or 8G", false},
        // The link model: an unknown preset that is no file, a bad or missing value, a file line.
        BadInput{"link_model_neither_preset_nor_file", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 1 2 1' --link-model torus",
                 "--link-model: 'torus' is neither a preset (fat-tree, ", false},
        BadInput{"link_bandwidth_not_a_number", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --link-bandwidth 10G:fast",
                 "--link-bandwidth: 'fast' in '10G:fast' is not a bandwidth > 0", false},
        BadInput{"link_bandwidth_zero", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --link-bandwidth 10G:0",
                 "--link-bandwidth: bandwidths must be > 0", false},
        BadInput{"link_latencies_fewer_than_levels", "m.mat", "0 1\n1 0\n",
                 "map -m {file} -t 'tleaf 2 2 1 2 1' --link-latency 1us",
                 "--link-latency: topology 2x2: 1 link latencies given for 2 levels", false},
        BadInput{"link_model_file_bad_line", "links.txt", "preset fat-tree\nspeed 10G\n",
                 "map -m {data}/pacos/examples/taskgraph/16.mat -t 'tleaf 1 16 1' --link-model "
                 "{file}",
                 "line 2: expected 'preset NAME', 'bandwidth LIST' or 'latency LIST'"}),
    [](const ::testing::TestParamInfo<BadInput>& param) { return param.param.name; });

}  // namespace
}  // namespace treematch::testing
