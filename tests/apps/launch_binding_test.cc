// What the launchers really bind: treematch's rankfile, Hydra and Slurm outputs run by Open MPI 4
// (on fake topologies), MPICH Hydra and Slurm, and the `treematch bind` wrapper under each; every
// rank's CPUs are compared with the core the mapping chose, as hwloc itself describes it.
#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

using Cpus = std::vector<int>;

const std::string kPrint = std::string(TM_SOURCE_ROOT) + "/tests/launchers/print_binding.sh";
const std::string kSlurmScript = std::string(TM_SOURCE_ROOT) + "/tests/launchers/slurm_one_node.sh";

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

/// "0-1,4" as Linux prints CPU lists.
std::string cpu_list(const Cpus& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) {
      text += '-';
      text += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return text;
}

/// The CPUs this test process may run on: the only ones a launcher can bind to here.
Cpus usable_here() {
  cpu_set_t set;
  CPU_ZERO(&set);
  Cpus cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

bool within(const Cpus& cpus, const Cpus& allowed) {
  return std::all_of(cpus.begin(), cpus.end(), [&](int cpu) {
    return std::find(allowed.begin(), allowed.end(), cpu) != allowed.end();
  });
}

/// Per logical core (or PU with `threads`) of an hwloc topology (an XML file, or this machine for
/// ""), the OS indexes of its PUs: the independent truth the launchers' bindings are held to.
std::vector<Cpus> hwloc_leaves(const std::string& xml, bool threads) {
  hwloc_topology_t topology = nullptr;
  hwloc_topology_init(&topology);
  const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(topology,
                                                                          hwloc_topology_destroy);
  if (!xml.empty() && hwloc_topology_set_xml(topology, xml.c_str()) != 0) return {};
  if (hwloc_topology_load(topology) != 0) return {};
  const hwloc_obj_type_t type = threads ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  std::vector<Cpus> leaves;
  for (unsigned i = 0; i < static_cast<unsigned>(hwloc_get_nbobjs_by_type(topology, type)); ++i) {
    const hwloc_obj_t object = hwloc_get_obj_by_type(topology, type, i);
    Cpus cpus;
    for (int pu = hwloc_bitmap_first(object->cpuset); pu >= 0;
         pu = hwloc_bitmap_next(object->cpuset, pu)) {
      cpus.push_back(pu);
    }
    leaves.push_back(cpus);
  }
  return leaves;
}

/// "rank 3 cpus 0-1" lines of print_binding.sh: rank -> its Cpus_allowed_list.
std::map<int, std::string> printed_bindings(const std::string& out) {
  std::map<int, std::string> bindings;
  const std::regex form(R"(rank (\d+) cpus (\S+))");
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, form)) bindings[std::stoi(match[1])] = match[2];
  }
  return bindings;
}

/// Open MPI's reports of bindings this machine cannot make, in the order of the ranks.
std::vector<std::string> failed_bindings(const std::string& err) {
  std::vector<std::string> bitmaps;
  const std::regex form(R"re(returned "Error" for bitmap "([0-9,-]+)")re");
  for (auto it = std::sregex_iterator(err.begin(), err.end(), form); it != std::sregex_iterator();
       ++it) {
    bitmaps.push_back((*it)[1]);
  }
  return bitmaps;
}

/// The first header line of `text` that starts with `prefix` and runs "./app", without the
/// prefix and with `program` for "./app".
std::string launch_line(const std::string& text, const std::string& prefix,
                        const std::string& program) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::string command = line.substr(prefix.size());
    const auto app = command.find("./app");
    if (app != std::string::npos) return command.replace(app, 5, program);
  }
  return "";
}

/// A ring over a seeded shuffle of the ranks, so that the identity is a poor mapping.
std::string shuffled_ring(int ranks) {
  std::vector<int> order(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) order[static_cast<std::size_t>(i)] = i;
  std::uint32_t state = 12345;
  for (int i = ranks - 1; i > 0; --i) {
    state = state * 1664525U + 1013904223U;
    std::swap(order[static_cast<std::size_t>(i)], order[state % static_cast<std::uint32_t>(i + 1)]);
  }
  std::vector<std::vector<int>> m(static_cast<std::size_t>(ranks),
                                  std::vector<int>(static_cast<std::size_t>(ranks), 0));
  for (int i = 0; i < ranks; ++i) {
    const int a = order[static_cast<std::size_t>(i)];
    const int b = order[static_cast<std::size_t>((i + 1) % ranks)];
    m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = 100 + i;
    m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = 100 + i;
  }
  std::string text;
  for (const auto& row : m) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) text += ' ';
      text += std::to_string(row[j]);
    }
    text += '\n';
  }
  return text;
}

/// Maps `ranks` ranks of a shuffled ring onto `topology` (a file, or "" for this machine) and
/// returns, per rank, the PUs of the core the mapping chose (hwloc's description of `topology`).
std::vector<Cpus> expected_cpus(const TempDir& dir, const std::string& matrix,
                                const std::string& topology, bool threads) {
  const CommandResult perm =
      run_treematch("map -m " + quote(matrix) + (topology.empty() ? "" : " -t " + quote(topology)) +
                        (threads ? " --hwthreads" : "") + " --format perm",
                    dir);
  EXPECT_EQ(perm.exit_code, 0) << perm.err;
  const std::vector<Cpus> leaves = hwloc_leaves(topology, threads);
  std::vector<Cpus> cpus;
  for (const kernels::Index leaf : parse_perm(perm.out)) {
    if (leaf < 0 || static_cast<std::size_t>(leaf) >= leaves.size()) {
      ADD_FAILURE() << "leaf " << leaf << " of " << leaves.size();
      return {};
    }
    cpus.push_back(leaves[static_cast<std::size_t>(leaf)]);
  }
  return cpus;
}

/// Every rank printed exactly the CPUs `expected` gives it (bindings this machine can make).
void expect_each_rank_bound(const CommandResult& run, const std::vector<Cpus>& expected) {
  const std::map<int, std::string> printed = printed_bindings(run.out);
  ASSERT_EQ(printed.size(), expected.size()) << run.out << run.err;
  for (std::size_t rank = 0; rank < expected.size(); ++rank)
    EXPECT_EQ(printed.at(static_cast<int>(rank)), cpu_list(expected[rank])) << "rank " << rank;
}

/// Each rank's printed CPUs equal `expected` where this machine can bind them; the ones it cannot
/// were reported by Open MPI with exactly the expected bitmap, in rank order.
void expect_open_mpi_bound(const CommandResult& run, const std::vector<Cpus>& expected) {
  const Cpus here = usable_here();
  const std::map<int, std::string> printed = printed_bindings(run.out);
  ASSERT_EQ(printed.size(), expected.size()) << run.out << run.err;
  std::vector<std::string> unmakeable;
  for (std::size_t rank = 0; rank < expected.size(); ++rank) {
    const Cpus& cpus = expected[rank];
    if (within(cpus, here)) {
      EXPECT_EQ(printed.at(static_cast<int>(rank)), cpu_list(cpus)) << "rank " << rank;
    } else {
      unmakeable.push_back(cpu_list(cpus));
    }
  }
  EXPECT_EQ(failed_bindings(run.err), unmakeable) << run.err;
}

// ---- Open MPI 4.1: mpirun --rankfile on fake topologies --------------------------------------

struct RankfileCase {
  std::string name;
  std::string synthetic;  ///< lstopo -i description of the fake node
  std::string restrict;   ///< lstopo --restrict cpuset, "" = the whole node
  int ranks = 0;
  bool threads = false;  ///< --hwthreads
  std::string numbering;
};

void PrintTo(const RankfileCase& c, std::ostream* out) {
  *out << c.name;
}

class OpenMpiRankfile : public ::testing::TestWithParam<RankfileCase> {};

TEST_P(OpenMpiRankfile, EveryRankIsBoundToTheCoreTheMappingChose) {
  const RankfileCase& c = GetParam();
  TempDir dir;
  const std::string xml = dir.file("node.xml");
  ASSERT_EQ(std::system(("lstopo-no-graphics -i " + quote(c.synthetic) +
                         (c.restrict.empty() ? "" : " --restrict " + c.restrict) + " " +
                         quote(xml) + " 2>/dev/null")
                            .c_str()),
            0);
  const std::string matrix = dir.write("ring.mat", shuffled_ring(c.ranks));
  const std::vector<Cpus> expected = expected_cpus(dir, matrix, xml, c.threads);
  ASSERT_EQ(expected.size(), static_cast<std::size_t>(c.ranks));

  const std::string rankfile = dir.file("job.rankfile");
  const CommandResult map =
      run_treematch("map -m " + quote(matrix) + " -t " + quote(xml) +
                        (c.threads ? " --hwthreads" : "") + " --numbering " + c.numbering +
                        " --hosts " + host_name() + " --format rankfile -o " + quote(rankfile),
                    dir);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  // The command the rankfile's header gives, on the fake node.
  const std::string command = launch_line(read_text(rankfile), "# Open MPI 4.x: mpirun", kPrint);
  ASSERT_FALSE(command.empty()) << read_text(rankfile);
  const CommandResult run =
      run_shell(std::string(TM_MPIEXEC) + " --allow-run-as-root --mca hwloc_base_topo_file " +
                    quote(xml) + " --mca orte_base_help_aggregate 0" + command,
                dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_open_mpi_bound(run, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Nodes, OpenMpiRankfile,
    ::testing::Values(
        // 2 packages x 4 cores x 2 hardware threads: ranks on cores (both threads) by default.
        RankfileCase{"smt_logical", "pack:2 core:4 pu:2", "", 8, false, "logical"},
        RankfileCase{"smt_physical", "pack:2 core:4 pu:2", "", 8, false, "physical"},
        RankfileCase{"smt_hwthreads", "pack:2 core:4 pu:2", "", 16, true, "logical"},
        RankfileCase{"smt_hwthreads_physical", "pack:2 core:4 pu:2", "", 16, true, "physical"},
        // A 2-socket node numbering its cores alternately between the sockets.
        RankfileCase{"two_sockets_logical", "pack:2 core:4 pu:1(indexes=0,2,4,6,1,3,5,7)", "", 8,
                     false, "logical"},
        RankfileCase{"two_sockets_physical", "pack:2 core:4 pu:1(indexes=0,2,4,6,1,3,5,7)", "", 8,
                     false, "physical"},
        // Restricted nodes (a partial node of a batch job): 3 + 1 cores, and an SMT one.
        RankfileCase{"restricted_logical", "pack:2 core:4 pu:1", "0x1b", 4, false, "logical"},
        RankfileCase{"restricted_physical", "pack:2 core:4 pu:1", "0x1b", 4, false, "physical"},
        RankfileCase{"restricted_smt", "pack:2 core:4 pu:2", "0x3cf0", 4, false, "logical"}),
    [](const ::testing::TestParamInfo<RankfileCase>& param) { return param.param.name; });

// ---- MPICH Hydra ------------------------------------------------------------------------------

/// mpiexec.hydra (Debian's mpich), or "" when it is not installed.
std::string hydra() {
  for (const char* path : {"/usr/bin/mpiexec.hydra", "/usr/local/bin/mpiexec.hydra"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

TEST(HydraMachineFile, BindsEveryRankOfAFakeSmtNodeAsMapped) {
  if (hydra().empty()) GTEST_SKIP() << "mpiexec.hydra (Debian package mpich) is not installed";
  TempDir dir;
  const std::string xml = dir.file("smt.xml");
  ASSERT_EQ(
      std::system(
          ("lstopo-no-graphics -i 'pack:2 core:4 pu:2' " + quote(xml) + " 2>/dev/null").c_str()),
      0);
  const std::string matrix = dir.write("ring.mat", shuffled_ring(8));
  const std::vector<Cpus> expected = expected_cpus(dir, matrix, xml, false);
  const std::string file = dir.file("job.hydra");
  const CommandResult map =
      run_treematch("map -m " + quote(matrix) + " -t " + quote(xml) + " --hosts " + host_name() +
                        " --format hydra -o " + quote(file),
                    dir);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  const std::string command = launch_line(read_text(file), "# mpiexec.hydra", kPrint);
  ASSERT_FALSE(command.empty()) << read_text(file);
  // Hydra takes the fake node from hwloc's environment and prints each process's bitmap (PU i =
  // character i); a PU this machine lacks leaves the process unbound, silently.
  const CommandResult run = run_shell(
      "HWLOC_XMLFILE=" + quote(xml) + " HWLOC_THISSYSTEM=1 HYDRA_TOPO_DEBUG=1 " + hydra() + command,
      dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::regex form(R"(process (\d+) binding: ([01]+))");
  std::map<int, Cpus> bound;
  const std::string all = run.out + run.err;
  for (auto it = std::sregex_iterator(all.begin(), all.end(), form); it != std::sregex_iterator();
       ++it) {
    Cpus cpus;
    const std::string bits = (*it)[2];
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if (bits[i] == '1') cpus.push_back(static_cast<int>(i));
    }
    bound[std::stoi((*it)[1])] = cpus;
  }
  ASSERT_EQ(bound.size(), expected.size()) << all;
  for (std::size_t rank = 0; rank < expected.size(); ++rank)
    EXPECT_EQ(bound[static_cast<int>(rank)], expected[rank]) << "rank " << rank;
}

/// A shuffled ring of one rank per core of this machine, mapped onto it in `format`: the command
/// the output's header gives (from `prefix` on, with the binding printer as the program) and the
/// PUs each rank should get.
struct MappedHere {
  std::string command;
  std::vector<Cpus> expected;
};

MappedHere map_here(const TempDir& dir, const std::string& format, const std::string& prefix) {
  const int cores = static_cast<int>(hwloc_leaves("", false).size());
  const std::string matrix = dir.write("ring.mat", shuffled_ring(cores));
  MappedHere mapped{"", expected_cpus(dir, matrix, "", false)};
  const std::string file = dir.file("job." + format);
  const CommandResult map =
      run_treematch("map -m " + quote(matrix) + " --format " + format + " -o " + quote(file), dir);
  EXPECT_EQ(map.exit_code, 0) << map.err;
  mapped.command = launch_line(read_text(file), prefix, kPrint);
  EXPECT_FALSE(mapped.command.empty()) << read_text(file);
  return mapped;
}

TEST(HydraMachineFile, BindsEveryRankOfThisMachineAsMapped) {
  if (hydra().empty()) GTEST_SKIP() << "mpiexec.hydra (Debian package mpich) is not installed";
  TempDir dir;
  const MappedHere mapped = map_here(dir, "hydra", "# mpiexec.hydra");
  const CommandResult run =
      run_shell(hydra() + mapped.command, dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, mapped.expected);
}

// ---- Slurm: srun --cpu-bind on a one-node cluster started here -------------------------------

class SlurmCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = std::filesystem::temp_directory_path() / ("tm-slurm-" + std::to_string(getpid()));
    const CommandResult start =
        run_shell(quote(kSlurmScript) + " start " + quote(directory_.string()),
                  (directory_.string() + ".out"), (directory_.string() + ".err"));
    started_ = start.exit_code == 0;
    why_ = start.out + start.err;
  }
  static void TearDownTestSuite() {
    const std::string quiet = " >/dev/null 2>&1";
    if (started_) {
      (void)std::system(
          (quote(kSlurmScript) + " stop " + quote(directory_.string()) + quiet).c_str());
    }
    std::filesystem::remove_all(directory_);
    std::filesystem::remove(directory_.string() + ".out");
    std::filesystem::remove(directory_.string() + ".err");
  }
  void SetUp() override {
    if (!started_) GTEST_SKIP() << "no one-node Slurm cluster here: " << why_;
  }
  static std::string srun_environment() {
    return "SLURM_CONF=" + quote((directory_ / "slurm.conf").string()) + " ";
  }

  static inline std::filesystem::path directory_;
  static inline bool started_ = false;
  static inline std::string why_;
};

TEST_F(SlurmCluster, SrunBindsEveryRankAsMapped) {
  TempDir dir;
  const MappedHere mapped = map_here(dir, "slurm", "# ");
  ASSERT_NE(mapped.command.find("srun"), std::string::npos) << mapped.command;
  const CommandResult run = run_shell("timeout 60 env " + srun_environment() + mapped.command,
                                      dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, mapped.expected);
}

TEST_F(SlurmCluster, TheBindingWrapperBindsEveryRankUnderSrun) {
  TempDir dir;
  const int cores = static_cast<int>(hwloc_leaves("", false).size());
  const std::string matrix = dir.write("ring.mat", shuffled_ring(cores));
  const std::vector<Cpus> expected = expected_cpus(dir, matrix, "", false);
  const std::string json = dir.file("job.json");
  ASSERT_EQ(
      run_treematch("map -m " + quote(matrix) + " --format json -o " + quote(json), dir).exit_code,
      0);
  const CommandResult run =
      run_shell("timeout 60 env " + srun_environment() + "srun -n " + std::to_string(cores) +
                    " --cpu-bind=none " + TM_BINARY + " bind " + quote(json) + " -- " + kPrint,
                dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, expected);
}

// ---- treematch bind under Open MPI and Hydra ----------------------------------------------------

/// A JSON mapping of this machine that puts rank r on the core of index (r + 1) mod cores: a
/// binding no launcher would make by default.
std::string rotated_mapping(const TempDir& dir, std::vector<Cpus>& expected) {
  const std::vector<Cpus> cores = hwloc_leaves("", false);
  std::string placement;
  for (std::size_t r = 0; r < cores.size(); ++r) {
    const Cpus& cpus = cores[(r + 1) % cores.size()];
    expected.push_back(cpus);
    std::string list;
    for (const int cpu : cpus) {
      if (!list.empty()) list += ',';
      list += std::to_string(cpu);
    }
    placement +=
        std::string(r ? "," : "") + R"({"host":")" + host_name() + R"(","cpus":[)" + list + "]}";
  }
  return dir.write("rotated.json", R"({"mapping":[],"placement":[)" + placement + "]}");
}

/// `treematch bind MAPPING -- print_binding.sh` under Open MPI's mpirun, one rank per entry of
/// `expected`, mpirun itself binding nothing.
CommandResult bind_under_mpirun(const TempDir& dir, const std::string& mapping,
                                const std::vector<Cpus>& expected) {
  return run_shell(std::string(TM_MPIEXEC) + " --allow-run-as-root -n " +
                       std::to_string(expected.size()) + " --bind-to none " + TM_BINARY + " bind " +
                       quote(mapping) + " -- " + kPrint,
                   dir.file("out.txt"), dir.file("err.txt"));
}

TEST(BindWrapper, BindsEveryRankUnderMpirun) {
  TempDir dir;
  std::vector<Cpus> expected;
  const std::string json = rotated_mapping(dir, expected);
  const CommandResult run = bind_under_mpirun(dir, json, expected);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, expected);
}

TEST(BindWrapper, BindsEveryRankUnderHydra) {
  if (hydra().empty()) GTEST_SKIP() << "mpiexec.hydra (Debian package mpich) is not installed";
  TempDir dir;
  std::vector<Cpus> expected;
  const std::string json = rotated_mapping(dir, expected);
  const CommandResult run = run_shell(hydra() + " -n " + std::to_string(expected.size()) + " " +
                                          TM_BINARY + " bind " + quote(json) + " -- " + kPrint,
                                      dir.file("out.txt"), dir.file("err.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, expected);
}

TEST(BindWrapper, ReadsARankfileAsOpenMpiDoes) {
  TempDir dir;
  const std::vector<Cpus> cores = hwloc_leaves("", false);
  std::string rankfile =
      "# Open MPI rankfile written by treematch (numbering=logical, leaves=cores)\n";
  std::vector<Cpus> expected;
  for (std::size_t r = 0; r < cores.size(); ++r) {
    const std::size_t core = cores.size() - 1 - r;  // reversed
    rankfile +=
        "rank " + std::to_string(r) + "=" + host_name() + " slot=" + std::to_string(core) + "\n";
    expected.push_back(cores[core]);
  }
  const std::string path = dir.write("job.rankfile", rankfile);
  const CommandResult run = bind_under_mpirun(dir, path, expected);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_each_rank_bound(run, expected);
}

TEST(BindWrapper, OutsideALauncherIsAOneLineError) {
  TempDir dir;
  std::vector<Cpus> expected;
  const std::string json = rotated_mapping(dir, expected);
  const CommandResult run =
      run_shell("env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID " +
                    std::string(TM_BINARY) + " bind " + quote(json) + " -- " + kPrint,
                dir.file("out.txt"), dir.file("err.txt"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("not started by a launcher"), std::string::npos) << run.err;
}

TEST(BindWrapper, ARankVariableThatHoldsNoRankIsAOneLineError) {
  TempDir dir;
  std::vector<Cpus> expected;
  const std::string json = rotated_mapping(dir, expected);
  const CommandResult run = run_shell("OMPI_COMM_WORLD_RANK=x7 " + std::string(TM_BINARY) +
                                          " bind " + quote(json) + " -- " + kPrint,
                                      dir.file("out.txt"), dir.file("err.txt"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("OMPI_COMM_WORLD_RANK='x7' is not a non-negative integer"),
            std::string::npos)
      << run.err;
}

TEST(BindWrapper, ARankOnAnotherHostIsAOneLineError) {
  TempDir dir;
  const std::string json =
      dir.write("other.json", R"({"placement":[{"host":"elsewhere","cpus":[0]}]})");
  const CommandResult run = run_shell(
      "OMPI_COMM_WORLD_RANK=0 " + std::string(TM_BINARY) + " bind " + quote(json) + " -- " + kPrint,
      dir.file("out.txt"), dir.file("err.txt"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("mapped to host 'elsewhere'"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace treematch::testing
