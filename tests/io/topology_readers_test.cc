// Tests of the --topology readers: tleaf and Scotch sub files, hwloc synthetic strings, XML files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/hwloc_topology.h"
#include "io/hwloc_xml_check.h"
#include "io/input_error.h"
#include "io/synthetic_parser.h"
#include "io/tleaf_parser.h"
#include "io/topology_reader.h"
#include "tests/io/input_error_expectation.h"
#include "tests/test_support.h"

namespace treematch::io {
namespace {

using testing::input_error_of;

using testing::data_dir;

namespace fs = std::filesystem;

std::vector<double> costs_of(const Topology& topology) {
  std::vector<double> costs;
  for (const TreeLevel& level : topology.levels()) costs.push_back(level.link_cost);
  return costs;
}

std::vector<Index> range(Index count) {
  std::vector<Index> ids;
  for (Index i = 0; i < count; ++i) ids.push_back(i);
  return ids;
}

// A directory of its own for each test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tm_topology_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string write(const std::string& name, const std::string& content) const {
    const fs::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// ---- tleaf and Scotch sub ----------------------------------------------------------------

TEST(TopologyReadersTest, InlineTleaf) {
  const Topology topology = read_topology("tleaf 4 128 100 16 10 2 2 4 1");

  EXPECT_EQ(topology.shape(), "128x16x2x4");
  EXPECT_EQ(topology.leaf_count(), 16384);
  EXPECT_EQ(costs_of(topology), (std::vector<double>{100, 10, 2, 1}));
  EXPECT_EQ(topology.levels()[0].name, "level 0");
  EXPECT_EQ(topology.levels()[3].name, "level 3");
  EXPECT_EQ(topology.machine_level(), 0);
  EXPECT_EQ(topology.os_index(16383), 16383);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 8), 2.0 * (1 + 2 + 10));
  EXPECT_EQ(topology.to_tleaf(), "tleaf 4 128 100 16 10 2 2 4 1");
}

TEST(TopologyReadersTest, TleafRoundTripsThroughToTleaf) {
  for (const std::string text : {"tleaf 0", "tleaf 1 8 1", "tleaf 3 2 0.5 3 0.25 5 1e-06",
                                 "tleaf 5 4 180 24 90 2 9 2 3 6 1"}) {
    EXPECT_EQ(parse_tleaf(text, "test").to_tleaf(), text);
  }
}

TEST(TopologyReadersTest, TleafArityOneLevelsKeepTheirCostOnPaths) {
  // root -10- A -5- (single child) -1- leaves: two leaves under different A are 2 x 16 apart.
  const Topology topology = read_topology("tleaf 3 2 10 1 5 2 1");

  EXPECT_EQ(topology.to_tleaf(), "tleaf 2 2 15 2 1");
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(topology.weighted_distance(0, 2), 32.0);
  // Above the first branching level a link lies on no path: its cost is irrelevant.
  EXPECT_EQ(read_topology("tleaf 3 1 200 1 200 4 10").to_tleaf(), "tleaf 1 4 10");
}

TEST(TopologyReadersTest, PacosTgtFiles) {
  const std::string dir = data_dir() + "/pacos/examples/netgraph/";

  // 128.tgt holds a second tleaf and a "numbering" line: only the first definition counts.
  const Topology t128 = read_topology(dir + "128.tgt");
  EXPECT_EQ(t128.shape(), "16x2x2x2");
  EXPECT_EQ(t128.leaf_count(), 128);
  EXPECT_EQ(costs_of(t128), (std::vector<double>{500, 100, 50, 10}));

  const Topology t3375 = read_topology(dir + "3375.tgt");
  EXPECT_EQ(t3375.shape(), "5x3x5x3x5x3");
  EXPECT_EQ(t3375.leaf_count(), 3375);
  EXPECT_EQ(costs_of(t3375), (std::vector<double>{1000, 500, 100, 50, 10, 1}));

  const Topology t900 = read_topology(dir + "900.tgt");
  EXPECT_EQ(t900.shape(), "15x10x6");
  EXPECT_EQ(costs_of(t900), (std::vector<double>{500, 10, 100}));

  // Every example is named after its leaf count.
  int files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".tgt") continue;
    ++files;
    EXPECT_EQ(read_topology(entry.path().string()).leaf_count(), std::stoi(entry.path().stem()))
        << entry.path();
  }
  EXPECT_EQ(files, 7);
}

TEST(TopologyReadersTest, ScotchArchitectureAndSubArchitecture) {
  const std::string dir = data_dir() + "/hwloc_netloc_tests/";

  // "tleaf\n5 4 180 ...": the tokens span two lines.
  const ConstrainedTopology arch = read_topology_with_constraints(dir + "arch.scotch");
  const ConstrainedTopology sub = read_topology_with_constraints(dir + "subarch.scotch");

  EXPECT_EQ(arch.topology.shape(), "4x24x2x2x6");
  EXPECT_EQ(arch.topology.leaf_count(), 2304);
  EXPECT_EQ(costs_of(arch.topology), (std::vector<double>{180, 90, 9, 3, 1}));
  EXPECT_TRUE(arch.allowed.empty());
  EXPECT_EQ(sub.topology.to_tleaf(), arch.topology.to_tleaf());
  ASSERT_EQ(sub.allowed.size(), 64U);
  EXPECT_EQ(sub.allowed.front(), 144);
  EXPECT_EQ(sub.allowed[8], 156);
  EXPECT_EQ(sub.allowed.back(), 479);
  EXPECT_TRUE(std::is_sorted(sub.allowed.begin(), sub.allowed.end()));
  EXPECT_EQ(read_topology(dir + "subarch.scotch").to_tleaf(), arch.topology.to_tleaf());
}

TEST(TopologyReadersTest, InlineSubArchitectureSortsItsLeaves) {
  const ConstrainedTopology sub = read_topology_with_constraints("sub 3 5 1 3 tleaf 1 8 1");

  EXPECT_EQ(sub.topology.leaf_count(), 8);
  EXPECT_EQ(sub.allowed, (std::vector<Index>{1, 3, 5}));
}

TEST(TopologyReadersTest, BadTleafSaysWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"tleaf", "missing the level count"},
      {"tleaf -1", "level count n is '-1'"},
      {"tleaf 2 4 10", "the arity of level 1 is missing"},
      {"tleaf 2 4 10 2", "the link cost of level 1 is missing"},
      {"tleaf 2 4 x 2 1", "the link cost of level 0 is 'x', expected a number"},
      {"tleaf 2 four 10 2 1", "the arity of level 0 is 'four'"},
      {"tleaf 2 4 10 2.5 1", "the arity of level 1 is '2.5'"},
      {"tleaf 2 0 10 2 1", "arities must be >= 1"},
      {"tleaf 2 4 -10 2 1", "costs must be >= 0"},
      {"tleaf 2 4 10 2 1 8 1", "n does not match"},
      {"sub 3 5 1 tleaf 1 8 1", "announces 3 leaves but lists 2 before 'tleaf'"},
      {"sub 2 5 9 tleaf 1 8 1", "leaf 9 is outside the tleaf (8 leaves)"},
      {"sub 2 5 5 tleaf 1 8 1", "leaf 5 is listed twice"},
      {"sub 1 5 2 tleaf 1 8 1", "expected 'tleaf' after the 1 leaf ids, found '2'"},
  };
  for (const auto& [spec, expected] : cases) {
    const std::string message = input_error_of([&] { (void)read_topology_with_constraints(spec); });
    EXPECT_EQ(message.rfind("--topology: ", 0), 0U) << spec << " -> " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << spec << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(TopologyReadersTest, TleafFilesIgnoreLaterLinesButNotExtraNumbers) {
  const TempDir dir;
  const std::string good = dir.write("good.tgt", "tleaf 2\n 4 10\n 2 1\nnumbering 0 1 2\n");
  const std::string extra = dir.write("extra.scotch", "tleaf 2 4 10 2 1 7\n");
  const std::string nameless = dir.write("arch", "tleaf 1 3 5\n");
  const std::string junk = dir.write("junk.tgt", "hello 1 2\n");

  EXPECT_EQ(read_topology(good).to_tleaf(), "tleaf 2 4 10 2 1");
  EXPECT_EQ(read_topology(nameless).shape(), "3");
  const std::string message = input_error_of([&] { (void)read_topology(extra); });
  EXPECT_EQ(message.rfind(extra + ": ", 0), 0U) << message;
  EXPECT_NE(message.find("n does not match"), std::string::npos) << message;
  EXPECT_NE(input_error_of([&] { (void)read_topology(junk); }).find("found 'hello'"),
            std::string::npos);
}

// ---- hwloc synthetic ---------------------------------------------------------------------

TEST(TopologyReadersTest, SyntheticWithExplicitLeafOsIndexes) {
  const std::string description = "pack:2 core:3 pu:2(indexes=0,2,4,6,8,10,1,3,5,7,9,11)";
  // By default the cores are the leaves, each standing for its two PUs.
  const Topology cores = read_topology(description);
  EXPECT_EQ(cores.shape(), "2x3");
  EXPECT_EQ(cores.leaf_os_indexes(), (std::vector<Index>{0, 4, 8, 1, 5, 9}));
  const std::span<const Index> first = cores.cpus(0);
  EXPECT_EQ(std::vector<Index>(first.begin(), first.end()), (std::vector<Index>{0, 2}));
  EXPECT_EQ(cores.levels()[1].name, "Core");

  const Topology topology = read_topology(description, {.hardware_threads = true});
  EXPECT_EQ(topology.leaf_count(), 12);
  EXPECT_EQ(topology.shape(), "2x3x2");
  EXPECT_EQ(topology.leaf_os_indexes(), (std::vector<Index>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(topology.levels()[0].name, "Package");
  EXPECT_EQ(topology.levels()[1].name, "Core");
  EXPECT_EQ(topology.levels()[2].name, "PU");
  EXPECT_EQ(costs_of(topology), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(topology.machine_level(), 0);
  EXPECT_EQ(topology.leaf_of_os_index(1), 6);
  EXPECT_FALSE(topology.has_multi_cpu_leaves());
}

TEST(TopologyReadersTest, LargeSyntheticClusterIsParsedWithoutHwloc) {
  const std::string description = "group:128 group:16 pack:2 core:4 pu:1";

  const SyntheticParse own = parse_synthetic_without_hwloc(description);
  const Topology topology = read_topology(description);

  ASSERT_TRUE(own.topology.has_value()) << own.unsupported;
  EXPECT_EQ(topology.leaf_count(), 16384);
  EXPECT_EQ(topology.shape(), "128x16x2x4");
  EXPECT_EQ(topology.machine_level(), 2);
  EXPECT_EQ(topology.leaves_per_machine(), 8);
  EXPECT_EQ(topology.levels()[0].name, "Group0");
  EXPECT_EQ(topology.levels()[1].name, "Group1");
  EXPECT_EQ(topology.leaf_os_indexes(), range(16384));
}

TEST(TopologyReadersTest, OwnSyntheticParserAgreesWithHwloc) {
  const std::vector<std::string> descriptions{
      "pack:2 core:3 pu:2(indexes=0,2,4,6,8,10,1,3,5,7,9,11)",
      "core:3 pu:2(indexes=5,4,3,2,1,0)",                // hwloc reorders siblings by OS index
      "pack:2 core:2 pu:2(indexes=1,3,5,7,0,2,4,6)",     // ... packages too
      "pack:2 core:2 pu:2(indexes=16,8,4,2,1,0,32,64)",  // sparse OS indexes
      "pack:2 core:3 pu:2(indexes=pack:core)",
      "pack:2 core:3 pu:2(indexes=core:pack)",
      "pack:2 core:3 pu:2(indexes=core)",
      "pack:2 core:2 pu:2(indexes=4*2:1*4)",
      "pack:2 core:4 pu:2(indexes=2*4:1*2:8*2)",
      "pack:2 core:2 pu:2(indexes=2*2:4*2)",  // hwloc adds the missing innermost loop
      "pack:2(indexes=1,0) core:2 pu:2",      // indexes above the PUs do not move them
      "pack:2(memory=1GB) l2:2(size=1MB) core:2 pu:2(indexes=core:pack)",
      "node:2 pack:2 l3:1 core:8 pu:1",
      "numa:2 core:2 pu:2(indexes=3,2,1,0,7,6,5,4)",
      "group:4 group:2 pack:2 core:2 pu:2",
      "group:2 node:2 pack:2 l3:1 l2:2 l1i:2 core:1 pu:2",
      "gr:2 so:2 co:2 pu:2",
      "Package:2 Die:2 L3Cache:1 L2:2 L1d:1 Core:2 PU:2",
      "numanode:2 di:2 l3c:2 l2u:2 l1icache:2 l1:1 pu:2",
      "socket:3 l5:2 l4:1 pu:1",
      "pu:1",
      "pu:4(indexes=3,1,2,0)",
  };
  for (const std::string& description : descriptions) {
    for (const bool threads : {false, true}) {
      const TopologyOptions options{.hardware_threads = threads};
      const SyntheticParse own = parse_synthetic_without_hwloc(description, options);
      const Topology hwloc = read_hwloc_synthetic(description, "hwloc", options);

      ASSERT_TRUE(own.topology.has_value()) << description << ": " << own.unsupported;
      EXPECT_EQ(own.topology->leaf_count(), hwloc.leaf_count()) << description;
      EXPECT_EQ(own.topology->leaf_os_indexes(), hwloc.leaf_os_indexes()) << description;
      EXPECT_EQ(own.topology->shape(), hwloc.shape()) << description;
      EXPECT_EQ(own.topology->machine_level(), hwloc.machine_level()) << description;
      for (Index leaf = 0; leaf < hwloc.leaf_count(); ++leaf) {
        const std::span<const Index> a = own.topology->cpus(leaf);
        const std::span<const Index> b = hwloc.cpus(leaf);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << description;
      }
    }
  }
}

// Random small descriptions: types in any order, explicit permutations and level interleavings.
TEST(TopologyReadersTest, OwnSyntheticParserAgreesWithHwlocOnRandomDescriptions) {
  const std::vector<std::string> types{"group", "numa", "pack", "die", "l3",
                                       "l2",    "l1d",  "l1i",  "core"};
  std::mt19937 random(/*seed=*/7);
  const auto below = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const auto shuffle = [&](auto& items) {  // Fisher-Yates, the same on every standard library
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
  };
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> chosen;
    for (const std::string& type : types) {
      if (below(3) == 0) chosen.push_back(type);
    }
    if (below(4) == 0) shuffle(chosen);
    std::string description;
    std::size_t total = 1;
    for (const std::string& type : chosen) {
      const std::size_t arity = 1 + below(3);
      total *= arity;
      description += type + ":" + std::to_string(arity) + " ";
    }
    const std::size_t pus = 1 + below(3);
    total *= pus;
    description += "pu:" + std::to_string(pus);
    if (const std::size_t mode = below(3); mode == 1) {
      std::vector<std::size_t> permutation(total);
      for (std::size_t i = 0; i < total; ++i) permutation[i] = i;
      shuffle(permutation);
      description += "(indexes=";
      for (std::size_t i = 0; i < total; ++i) {
        if (i > 0) description += ',';
        description += std::to_string(permutation[i]);
      }
      description += ")";
    } else if (mode == 2 && !chosen.empty()) {
      shuffle(chosen);
      description += "(indexes=";
      for (std::size_t i = 0, n = 1 + below(chosen.size()); i < n; ++i) {
        if (i > 0) description += ':';
        description += chosen[i];
      }
      description += ")";
    }

    const SyntheticParse own = parse_synthetic_without_hwloc(description);
    const Topology hwloc = read_hwloc_synthetic(description, "hwloc");

    ASSERT_TRUE(own.topology.has_value()) << description << ": " << own.unsupported;
    EXPECT_EQ(own.topology->leaf_os_indexes(), hwloc.leaf_os_indexes()) << description;
    EXPECT_EQ(own.topology->shape(), hwloc.shape()) << description;
  }
}

TEST(TopologyReadersTest, SyntheticFormsTheParserLeavesToHwloc) {
  for (const std::string description :
       {"2 2 2", "core:2 [numa] pu:2", "pack:2pu:2", "pack :2 pu:2", "(memory=1GB) pack:2 pu:2",
        "pack:2 pu:4(indexes=group0:pack)", "pack:2 pu:4(indexes=02*4:1*2)"}) {
    const SyntheticParse own = parse_synthetic_without_hwloc(description);
    EXPECT_FALSE(own.topology.has_value()) << description;
    EXPECT_FALSE(own.unsupported.empty()) << description;
  }

  EXPECT_EQ(read_topology("2 2 2").leaf_count(), 8);
  EXPECT_EQ(read_topology("core:2 [numa] pu:2").shape(), "2");
  EXPECT_EQ(read_topology("core:2 [numa] pu:2", {.hardware_threads = true}).shape(), "2x2");
  // Numbers of objects read as hwloc reads them (strtoul, base 0), by treematch itself.
  for (const std::string description : {"pack:0x2 pu:2", "pack:010 pu:1", "pack:0X1f pu:1"}) {
    const SyntheticParse own = parse_synthetic_without_hwloc(description);
    ASSERT_TRUE(own.topology.has_value()) << description << ": " << own.unsupported;
    EXPECT_EQ(own.topology->shape(), read_hwloc_synthetic(description, "hwloc").shape())
        << description;
  }
  EXPECT_EQ(read_topology("pack:0x2 pu:2").shape(), "2x2");
  EXPECT_EQ(read_topology("pack:010 pu:1").shape(), "8");  // a leading 0 is octal
  EXPECT_EQ(read_topology("pack:2 pu:4(indexes=02*4:1*2)").leaf_os_indexes(),
            read_topology("pack:2 pu:4(indexes=2*4:1*2)").leaf_os_indexes());
}

TEST(TopologyReadersTest, BadSyntheticSaysWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"xyz", "expected ':' right after 'xyz'"},
      {"pack:2 foo:2 pu:1", "unknown object type 'foo'"},
      {"pack:2 core:2", "the last level must be 'pu'"},
      {"pack:0 pu:1", "level 'pack' has 0 objects"},
      {"pack:2 pack:2 pu:1", "several package levels"},
      {"machine:2 pu:1", "unknown object type 'machine'"},
      {"core:2(foo=1) pu:2", "attribute 'foo=1'"},
      {"pack:2 core:2 pu:2(indexes=2*2:1*2)", "does not interleave the 8 PUs"},
      {"core:2 pu:2(indexes=0,1,1,2)", "gives OS index 1 twice"},
      {"core:2 pu:2(indexes=0,1,2)", "lists 3 OS indexes for 4 PUs"},
      {"pack:2 pu:2(indexes=core:pack)", "names 'core', which is no level above the PUs"},
      {"group:65536 group:65536 pu:1", "more than 2147483647 PUs"},
  };
  for (const auto& [spec, expected] : cases) {
    const std::string message = input_error_of([&] { (void)read_topology(spec); });
    EXPECT_EQ(message.rfind("--topology: cannot parse '" + spec + "': ", 0), 0U)
        << spec << " -> " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << spec << " -> " << message;
  }
}

// ---- hwloc XML and this machine -----------------------------------------------------------

TEST(TopologyReadersTest, XmlFilesOfRealAndSyntheticMachines) {
  const std::string dir = data_dir() + "/topologies/";

  // Exported inside a job that was allowed one PU: the whole 24-core node is read.
  const Topology miriel = read_topology(dir + "plafrim_miriel063_hwloc.xml");
  EXPECT_EQ(miriel.shape(), "2x2x6");
  EXPECT_EQ(miriel.levels()[0].name, "Package");
  EXPECT_EQ(miriel.levels()[1].name, "L3Cache");
  std::vector<Index> alternating;  // OS numbering alternates between the sockets
  for (Index leaf = 0; leaf < 24; ++leaf) alternating.push_back(2 * (leaf % 12) + leaf / 12);
  EXPECT_EQ(miriel.leaf_os_indexes(), alternating);
  EXPECT_EQ(miriel.machine_level(), 0);

  const Topology mistral = read_topology(dir + "plafrim_mistral08_hwloc.xml");
  EXPECT_EQ(mistral.shape(), "2x10");
  std::vector<Index> mistral_os;
  for (Index leaf = 0; leaf < 20; ++leaf) mistral_os.push_back(2 * (leaf % 10) + leaf / 10);
  EXPECT_EQ(mistral.leaf_os_indexes(), mistral_os);

  const Topology synthetic = read_topology(dir + "synthetic_2x2x8x2.xml");
  EXPECT_EQ(synthetic.shape(), "2x2x8");
  EXPECT_EQ(synthetic.levels()[1].name, "Group0");
  EXPECT_EQ(synthetic.levels()[2].name, "Core");
  const Topology threads = read_topology(dir + "synthetic_2x2x8x2.xml", {.hardware_threads = true});
  EXPECT_EQ(threads.shape(), "2x2x8x2");
  EXPECT_EQ(threads.levels()[3].name, "PU");
  EXPECT_EQ(threads.leaf_os_indexes(), range(64));

  const Topology vm = read_topology(dir + "this_vm.xml");
  EXPECT_EQ(vm.shape(), "2");
  EXPECT_EQ(vm.leaf_os_indexes(), range(2));

  // pacos' 64.xml: 8 groups x 2 L2 x 2 cores x 2 PUs, the two PUs of a core 2 apart.
  const Topology pacos =
      read_topology(data_dir() + "/pacos/examples/netgraph/64.xml", {.hardware_threads = true});
  EXPECT_EQ(pacos.shape(), "8x2x2x2");
  const std::vector<Index> in_group{0, 2, 4, 6, 1, 3, 5, 7};
  for (Index leaf = 0; leaf < 64; ++leaf) {
    EXPECT_EQ(pacos.os_index(leaf), 8 * (leaf / 8) + in_group[static_cast<std::size_t>(leaf % 8)]);
  }
  // As cores: each core is its pair of PUs, named by the smaller OS index.
  const Topology pacos_cores = read_topology(data_dir() + "/pacos/examples/netgraph/64.xml");
  EXPECT_EQ(pacos_cores.shape(), "8x2x2");
  const std::vector<Index> core_in_group{0, 4, 1, 5};
  for (Index leaf = 0; leaf < 32; ++leaf) {
    EXPECT_EQ(pacos_cores.os_index(leaf),
              8 * (leaf / 4) + core_in_group[static_cast<std::size_t>(leaf % 4)]);
    EXPECT_EQ(pacos_cores.cpus(leaf).size(), 2U);
  }
}

// A hand-written hwloc XML export: objects with their type and children, PUs numbered in order.
struct XmlObject {
  std::string type;
  std::vector<XmlObject> children;
};

int pu_count(const XmlObject& object) {
  if (object.type == "PU") return 1;
  int count = 0;
  for (const XmlObject& child : object.children) count += pu_count(child);
  return count;
}

std::string cpuset(int first, int count) {  // up to 32 PUs
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", ((1U << count) - 1U) << first);
  return text;
}

void emit(const XmlObject& object, int first, int& gp_index, std::string& xml) {
  const std::string set = cpuset(first, pu_count(object));
  xml += "<object type=\"" + object.type + "\" os_index=\"" +
         std::to_string(object.type == "PU" ? first : 0) + "\" cpuset=\"" + set +
         "\" complete_cpuset=\"" + set +
         "\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"" +
         std::to_string(++gp_index) + "\"";
  if (object.type.size() == 7 && object.type[0] == 'L' && object.type.substr(2) == "Cache") {
    xml += " cache_size=\"1048576\" depth=\"" + object.type.substr(1, 1) +
           "\" cache_linesize=\"64\" cache_associativity=\"0\" cache_type=\"0\"";
  }
  if (object.type == "Machine") {
    xml += " allowed_cpuset=\"" + set + "\" allowed_nodeset=\"0x00000001\">\n";
    xml += "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"" + set + "\" complete_cpuset=\"" +
           set +
           "\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"1000\" "
           "local_memory=\"1073741824\"/>\n";
  } else {
    xml += ">\n";
  }
  for (const XmlObject& child : object.children) {
    emit(child, first, gp_index, xml);
    first += pu_count(child);
  }
  xml += "</object>\n";
}

std::string machine_xml(const std::vector<XmlObject>& children) {
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n";
  int gp_index = 0;
  emit(XmlObject{"Machine", children}, 0, gp_index, xml);
  return xml + "</topology>\n";
}

XmlObject core(int pus) {
  return XmlObject{"Core",
                   std::vector<XmlObject>(static_cast<std::size_t>(pus), XmlObject{"PU", {}})};
}

/// The positions of `topology` that hold a leaf, and the cpus of each, for the checks below.
std::vector<std::vector<Index>> cpus_by_position(const Topology& topology) {
  std::vector<std::vector<Index>> out;
  for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
    const std::span<const Index> cpus = topology.cpus(leaf);
    out.emplace_back(cpus.begin(), cpus.end());
  }
  return out;
}

TEST(TopologyReadersTest, UnevenXmlBecomesABalancedTreeWithHoles) {
  const TempDir dir;
  // Package 0: two cores of 4 PUs; package 1: a core of 4 PUs and a core of 6.
  const std::string uneven =
      dir.write("uneven.xml",
                machine_xml({{"Package", {core(4), core(4)}}, {"Package", {core(4), core(6)}}}));
  // As cores the machine is even: 2 packages x 2 cores, the last core standing for 6 PUs.
  const Topology cores = read_topology(uneven);
  EXPECT_EQ(cores.shape(), "2x2");
  EXPECT_FALSE(cores.has_holes());
  EXPECT_EQ(cores.cpus(3).size(), 6U);
  // As hardware threads the cores have 4 and 6 leaves: 2 holes under each 4-PU core.
  const Topology threads = read_topology(uneven, {.hardware_threads = true});
  EXPECT_EQ(threads.shape(), "2x2x6");
  EXPECT_EQ(threads.present_leaf_count(), 18);
  EXPECT_FALSE(threads.is_present(4));
  EXPECT_EQ(threads.logical_index(6), 4);  // the first PU of core 1
  EXPECT_EQ(threads.leaf_of_logical(17), 23);
  EXPECT_EQ(threads.os_index(23), 17);
}

TEST(TopologyReadersTest, HybridXmlKeepsItsClustersUnderTheirCaches) {
  const TempDir dir;
  // A hybrid CPU: 2 performance cores (2 PUs each) with an L2 each, and a cluster of 4
  // efficiency cores (1 PU each) sharing one L2.
  const std::string hybrid =
      dir.write("hybrid.xml", machine_xml({{"Package",
                                            {{"L2Cache", {core(2)}},
                                             {"L2Cache", {core(2)}},
                                             {"L2Cache", {core(1), core(1), core(1), core(1)}}}}}));
  const Topology tree = read_topology(hybrid);
  EXPECT_EQ(tree.shape(), "3x4");
  EXPECT_EQ(tree.present_leaf_count(), 6);
  EXPECT_EQ(tree.present_leaves(), (std::vector<Index>{0, 4, 8, 9, 10, 11}));
  EXPECT_EQ(cpus_by_position(tree)[4], (std::vector<Index>{2, 3}));
  EXPECT_EQ(cpus_by_position(tree)[11], (std::vector<Index>{7}));
  // Two efficiency cores share their L2; a performance core shares only the package.
  EXPECT_EQ(tree.common_ancestor_height(8, 11), 1);
  EXPECT_EQ(tree.common_ancestor_height(0, 8), 2);
}

TEST(TopologyReadersTest, XmlWithALevelMissingUnderSomeNodes) {
  const TempDir dir;
  // Package 0 has an L3 above its cores, package 1 has its cores directly.
  const std::string skipping =
      dir.write("skipping.xml", machine_xml({{"Package", {{"L3Cache", {core(1), core(1)}}}},
                                             {"Package", {core(1), core(1)}}}));
  const Topology tree = read_topology(skipping);
  // Package 1's cores sit under a single-child L3 level: the L3 level has arity 1 and drops.
  EXPECT_EQ(tree.shape(), "2x2");
  EXPECT_FALSE(tree.has_holes());
  EXPECT_EQ(tree.leaf_os_indexes(), (std::vector<Index>{0, 1, 2, 3}));
  // A disabled core: package 1 offers one core of two.
  const std::string disabled = dir.write(
      "disabled.xml", machine_xml({{"Package", {core(1), core(1)}}, {"Package", {core(1)}}}));
  const Topology three = read_topology(disabled);
  EXPECT_EQ(three.shape(), "2x2");
  EXPECT_EQ(three.present_leaves(), (std::vector<Index>{0, 1, 2}));
  const std::string symmetric =
      dir.write("symmetric.xml",
                machine_xml({{"Package", {core(2), core(2)}}, {"Package", {core(2), core(2)}}}));
  EXPECT_EQ(read_topology(symmetric).shape(), "2x2");
  EXPECT_EQ(read_topology(symmetric, {.hardware_threads = true}).shape(), "2x2x2");
}

TEST(TopologyReadersTest, ThisMachineLoads) {
  const Topology here = read_topology("");

  EXPECT_GE(here.leaf_count(), 1);
  EXPECT_EQ(here.machine_level(), 0);
}

// ---- dispatch ----------------------------------------------------------------------------

TEST(TopologyReadersTest, DispatchByFileContentAndMissingPaths) {
  const TempDir dir;
  const std::string xml_content = machine_xml({{"Package", {core(2), core(2)}}});
  const std::string xml_without_extension = dir.write("machine.topo", xml_content);
  const std::string tleaf_without_extension = dir.write("machine.txt", "tleaf 2 2 10 3 1");
  const std::string unknown = dir.write("machine.dat", "16 cores");

  EXPECT_EQ(read_topology(xml_without_extension).shape(), "2");
  EXPECT_EQ(read_topology(tleaf_without_extension).shape(), "2x3");
  EXPECT_NE(
      input_error_of([&] { (void)read_topology(unknown); }).find("unknown topology file format"),
      std::string::npos);
  EXPECT_EQ(input_error_of([&] { (void)read_topology(dir.path()); }),
            dir.path() + ": not a regular file");
  EXPECT_EQ(input_error_of([] { (void)read_topology("/no/such/dir/machine.xml"); }),
            "/no/such/dir/machine.xml: no such file");
  EXPECT_EQ(input_error_of([] { (void)read_topology("missing.tgt"); }),
            "missing.tgt: no such file");
  EXPECT_EQ(input_error_of([] { (void)read_topology("missing.XML"); }),
            "missing.XML: no such file");
  EXPECT_EQ(input_error_of([] { (void)read_topology("./pack:2"); }), "./pack:2: no such file");
  EXPECT_NE(input_error_of([&] {
              (void)read_topology(dir.write("broken.xml", "<topology>"));
            }).find("broken.xml: hwloc_topology_set_xmlbuffer failed"),
            std::string::npos);
}

}  // namespace
}  // namespace treematch::io

namespace treematch::io {
namespace {

// ---- damaged and oversized inputs -------------------------------------------------------------

TEST(TopologyReadersBadInput, DamagedXmlIsRefusedBeforeHwlocCrashesOnIt) {
  // hwloc 2.9 dereferences a missing complete_cpuset of a version 2 export (SIGSEGV).
  const TempDir dir;
  const std::string good = machine_xml({{"Package", {core(1), core(1)}}});
  std::string missing = good;
  const std::string attribute = " complete_cpuset=\"0x00000002\"";
  missing.erase(missing.find(attribute), attribute.size());
  const std::string path = dir.write("damaged.xml", missing);
  EXPECT_EQ(input_error_of([&] { (void)read_topology(path); }),
            path + ": damaged hwloc XML: object 6 (line 11) has a cpuset but no complete_cpuset");
  EXPECT_EQ(hwloc_xml_problem(good), "");
  EXPECT_NE(hwloc_xml_problem("<object type=\"PU\" cpuset=\"0x1").find("unterminated value"),
            std::string::npos);
  EXPECT_NE(hwloc_xml_problem("<object type=\"PU\" ").find("not closed"), std::string::npos);
  EXPECT_NE(hwloc_xml_problem("<object cpuset=\"0x1\" complete_cpuset=\"0x1\"/>").find("no type"),
            std::string::npos);
}

TEST(TopologyReadersBadInput, LinkCostsThatOverflowAreRefused) {
  // Each cost of a tleaf, used or not (a job may read only the lower levels)...
  EXPECT_NE(input_error_of([] {
              (void)read_topology("tleaf 2 2 1e308 4 1");
            }).find("the link cost of level 0 is 1e308; costs must be <= 1e300"),
            std::string::npos);
  EXPECT_NE(input_error_of([] {
              (void)read_topology("tleaf 2 2 1e308 4 1", {.leaves_needed = 2});
            }).find("costs must be <= 1e300"),
            std::string::npos);
  // ...and sums of costs given another way.
  const Topology tree = read_topology("tleaf 2 2 1 4 1");
  EXPECT_THROW((void)tree.with_link_costs({1e308, 1e308}), std::invalid_argument);
}

// Fuzzer findings: a NUL byte cut what hwloc read from what was checked (96 s under ASan for
// "11111\0..."), and a sub architecture naming leaf 455555555555 built a 37.6M-leaf tleaf whole
// before refusing it (19 s).
TEST(TopologyReadersBadInput, SyntheticBytesThatAreNotTextAreRefusedBeforeHwloc) {
  const std::string text = std::string("11111\0\0\0", 8) + "\x8c" + "111 core:2";
  EXPECT_NE(
      input_error_of([&] { (void)read_synthetic(text); }).find("byte 5 is not printable text"),
      std::string::npos);
  EXPECT_NE(input_error_of([] { (void)read_synthetic("pack:2\tcore:2 pu:1"); }).find("byte 6"),
            std::string::npos);
}

TEST(TopologyReadersBadInput, SubLeafIdsBeyondAnyTreeAreRefusedBeforeTheTree) {
  EXPECT_NE(input_error_of([] {
              (void)read_topology_with_constraints(
                  "sub 2 0 455555555555 tleaf 4 8 1 20 2 7 3 2000 4", {.leaves_needed = 64});
            }).find("sub: leaf id 455555555555 is beyond the largest tree treematch reads"),
            std::string::npos);
}

TEST(TopologyReadersBadInput, HugeDescriptionsCostWhatTheJobUses) {
  // A tleaf of 2 x 10^9 cores read for 8 processes: the first 8 cores of the first node.
  const Topology part = read_topology("tleaf 2 2 10 1000000000 1", {.leaves_needed = 8});
  EXPECT_EQ(part.shape(), "8");
  EXPECT_EQ(part.to_tleaf(), "tleaf 1 8 1");
  // 20 of a flat 10^7: the first 20; whole machines of 16 kept with --node-size 16.
  EXPECT_EQ(read_topology("tleaf 1 10000000 1", {.leaves_needed = 20}).leaf_count(), 20);
  EXPECT_EQ(
      read_topology("tleaf 2 1000 10 16 1", {.leaves_needed = 20, .machine_leaves = 16}).shape(),
      "2x16");
  // A sub architecture keeps the leaves it names.
  EXPECT_EQ(read_topology_with_constraints("sub 2 3 70 tleaf 2 1000 10 16 1", {.leaves_needed = 2})
                .topology.leaf_count(),
            80);
  // Synthetic: the first 3 cores of 8000 (2 hardware threads each), their OS indexes kept.
  const std::string spread = "pack:1000 core:8 pu:2(indexes=core:pack)";
  const Topology first = read_topology(spread, {.leaves_needed = 3});
  const std::vector<Index> all = read_topology(spread).leaf_os_indexes();
  EXPECT_EQ(first.shape(), "3");
  EXPECT_EQ(first.leaf_os_indexes(), std::vector<Index>(all.begin(), all.begin() + 3));
}

TEST(TopologyReadersBadInput, HwlocIsNotAskedToBuildHugeMachines) {
  // Forms only hwloc reads, beyond 4096 PUs: refused at once instead of minutes in hwloc.
  const std::string message = input_error_of([] { (void)read_topology("2 2 2 1000"); });
  EXPECT_NE(message.find("8000 PUs one by one"), std::string::npos) << message;
  // Counted as hwloc reads them: a level goes on after a number without a space, and attributes
  // are no levels (found by the fuzzer: hwloc took 20 s on the first, then gave up).
  for (const auto& [description, pus] :
       {std::pair<std::string, std::string>{"pack:0x2188pu:1", "8584 PUs"},
        {"pack:3000pu:2", "6000 PUs"},
        {"pack:100(indexes=core:pack)core:100pu:1", "10000 PUs"}}) {
    const std::string refused = input_error_of([&] { (void)read_topology(description); });
    EXPECT_NE(refused.find(pus + " one by one"), std::string::npos) << refused;
  }
  // Raw bytes of the argument never reach the message.
  const std::string binary =
      input_error_of([] { (void)read_topology(std::string("pa\x01\xff:2 pu:2")); });
  EXPECT_EQ(binary.find('\x01'), std::string::npos);
  EXPECT_EQ(binary.find('\xff'), std::string::npos);
}

}  // namespace
}  // namespace treematch::io
