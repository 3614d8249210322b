// Tests of the mapping renderings: exact text of every output format and their errors.
#include "io/mapping_writer.h"

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

// Two machines of 4 cores (machine_level 1) on a 2x2x2 tree with a scrambled OS numbering:
//
//                        cluster
//                /                     \            <- link cost 10
//         node0 (machine 0)        node1 (machine 1)
//          /        \                /        \     <- packages, link cost 2
//        / \        / \            / \        / \    <- cores, link cost 1
//       0   1      2   3          4   5      6   7     <- logical leaf
//       3   1      2   0          7   5      6   4     <- OS index (machine 1 numbers its own
//                                                         PUs 3 1 2 0: OS index - 4)
//       0   1      2   3          0   1      2   3     <- logical index within the machine
//
// Ranks 0..4 on leaves 5, 0, 2, 7, 4.
Topology two_machines(int machine_level = 1) {
  return Topology(
      {TreeLevel{2, 10.0, "node"}, TreeLevel{2, 2.0, "pack"}, TreeLevel{2, 1.0, "core"}},
      {3, 1, 2, 0, 7, 5, 6, 4}, machine_level);
}

const Mapping kMapping{{5, 0, 2, 7, 4}};

std::string render(OutputFormat format, Numbering numbering, std::vector<std::string> hosts = {},
                   const Mapping& mapping = kMapping, const nlohmann::json& report = nullptr) {
  return render_mapping(mapping, two_machines(), OutputOptions{format, numbering, std::move(hosts)},
                        report);
}

TEST(ParseOutputFormat, AcceptsEveryFormatName) {
  EXPECT_EQ(parse_output_format("perm"), OutputFormat::kPerm);
  EXPECT_EQ(parse_output_format("rankfile"), OutputFormat::kRankfile);
  EXPECT_EQ(parse_output_format("slurm"), OutputFormat::kSlurm);
  EXPECT_EQ(parse_output_format("hydra"), OutputFormat::kHydra);
  EXPECT_EQ(parse_output_format("json"), OutputFormat::kJson);
}

TEST(ParseOutputFormat, RejectsAnUnknownNameNamingTheOption) {
  try {
    parse_output_format("Perm");
    FAIL() << "no exception";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--format: ", 0), 0U) << error.what();
    EXPECT_NE(std::string(error.what()).find("'Perm'"), std::string::npos) << error.what();
  }
}

TEST(ParseNumbering, AcceptsBothAndRejectsOthers) {
  EXPECT_EQ(parse_numbering("logical"), Numbering::kLogical);
  EXPECT_EQ(parse_numbering("physical"), Numbering::kPhysical);
  try {
    parse_numbering("os");
    FAIL() << "no exception";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--numbering: ", 0), 0U) << error.what();
  }
}

TEST(RenderMapping, PermLogicalAndPhysical) {
  EXPECT_EQ(render(OutputFormat::kPerm, Numbering::kLogical), "5\n0\n2\n7\n4\n");
  EXPECT_EQ(render(OutputFormat::kPerm, Numbering::kPhysical), "5\n3\n2\n4\n7\n");
}

/// The lines of `text` that are not '#' comments.
std::string body(const std::string& text) {
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end - begin + 1);
    if (line.front() != '#') out += line;
    begin = end + 1;
  }
  return out;
}

/// The '#' lines of `text`.
std::string header(const std::string& text) {
  return text.substr(0, text.size() - body(text).size());
}

TEST(RenderMapping, RankfileUsesCoresWithinTheMachineOrOsIndexes) {
  const std::string logical =
      render(OutputFormat::kRankfile, Numbering::kLogical, {"alpha", "beta"});
  const std::string physical =
      render(OutputFormat::kRankfile, Numbering::kPhysical, {"alpha", "beta"});

  EXPECT_EQ(body(logical),
            "rank 0=beta slot=1\n"
            "rank 1=alpha slot=0\n"
            "rank 2=alpha slot=2\n"
            "rank 3=beta slot=3\n"
            "rank 4=beta slot=0\n");
  EXPECT_EQ(body(physical),
            "rank 0=beta slot=1\n"
            "rank 1=alpha slot=3\n"
            "rank 2=alpha slot=2\n"
            "rank 3=beta slot=0\n"
            "rank 4=beta slot=3\n");
}

TEST(RenderMapping, RankfileHeaderSaysHowToLaunchIt) {
  const std::string logical = header(render(OutputFormat::kRankfile, Numbering::kLogical));
  EXPECT_NE(logical.find("(numbering=logical, leaves=cores): 5 ranks on 2 nodes"),
            std::string::npos)
      << logical;
  EXPECT_NE(logical.find("# Open MPI 4.x: mpirun -n 5 --rankfile MAPPING ./app\n"),
            std::string::npos)
      << logical;
  EXPECT_NE(logical.find("# Open MPI 5.x: mpirun -n 5 --map-by rankfile:file=MAPPING ./app\n"),
            std::string::npos)
      << logical;
  const std::string physical = header(render(OutputFormat::kRankfile, Numbering::kPhysical));
  EXPECT_NE(physical.find("--mca rmaps_rank_file_physical 1 --rankfile"), std::string::npos)
      << physical;
  EXPECT_NE(physical.find("Open MPI 5.x reads logical slots only"), std::string::npos) << physical;
  OutputOptions threads{OutputFormat::kRankfile, Numbering::kLogical, {}, true, "job.rf"};
  const std::string hw = header(render_mapping(Mapping{{1, 1}}, two_machines(), threads, {}));
  EXPECT_NE(hw.find("mpirun -n 2 --use-hwthread-cpus --oversubscribe --bind-to "
                    "hwthread:overload-allowed --rankfile job.rf ./app"),
            std::string::npos)
      << hw;
  EXPECT_NE(hw.find("--map-by rankfile:file=job.rf:hwtcpus --bind-to hwthread:overload-allowed"),
            std::string::npos)
      << hw;
}

TEST(RenderMapping, RankfileOnNodesOpenMpiConfusesSaysHowToBindThem) {
  // alpha and beta are "alike" for Open MPI 4.1 (distributed::open_mpi_alike_nodes): ranks on
  // both get a warning line with the launch that binds them; ranks on alpha alone do not.
  OutputOptions options{OutputFormat::kRankfile, Numbering::kLogical, {"alpha", "beta"}};
  options.path = "job.rankfile";
  options.open_mpi_alike = {{"alpha", "beta"}};
  const std::string both = render_mapping(kMapping, two_machines(), options, nullptr);
  const std::string warning =
      "# WARNING: Open MPI 4.1 takes the nodes alpha, beta for one topology (as many usable "
      "packages, cores and PUs, other ones) and binds ranks on one to the other's cores or not at "
      "all: launch with `mpirun --mca rmaps seq --hostfile HOSTS --bind-to none -n 5 treematch "
      "bind job.rankfile -- ./app`, HOSTS being this mapping written with --format slurm, or use "
      "--format hydra\n";
  EXPECT_NE(header(both).find(warning), std::string::npos) << both;
  EXPECT_EQ(open_mpi_confusion(kMapping, two_machines(), options) + "\n",
            warning.substr(std::string("# WARNING: ").size()));
  const Mapping alpha_only{{0, 1, 2}};
  const std::string one = render_mapping(alpha_only, two_machines(), options, nullptr);
  EXPECT_EQ(one.find("WARNING"), std::string::npos) << one;
  EXPECT_EQ(open_mpi_confusion(alpha_only, two_machines(), options), "");
  // Without alike nodes, nothing.
  options.open_mpi_alike.clear();
  EXPECT_EQ(render_mapping(kMapping, two_machines(), options, nullptr).find("WARNING"),
            std::string::npos);
}

TEST(RenderMapping, SlurmHostfileThenCpuMapsInLocalRankOrder) {
  const std::string expected =
      "node1\n"
      "node0\n"
      "node0\n"
      "node1\n"
      "node1\n";
  const std::string text = render(OutputFormat::kSlurm, Numbering::kLogical);
  EXPECT_EQ(body(text), expected);
  EXPECT_EQ(body(render(OutputFormat::kSlurm, Numbering::kPhysical)),
            expected);  // Slurm takes OS indexes
  EXPECT_NE(text.find("# node0: --cpu-bind=map_cpu:3,2\n# node1: --cpu-bind=map_cpu:1,0,3\n"),
            std::string::npos)
      << text;
  // The nodes bind differently: one srun --cpu-bind cannot say it.
  EXPECT_NE(text.find("treematch bind MAPPING.json"), std::string::npos) << text;
}

TEST(RenderMapping, SlurmMasksForCoresOfSeveralThreads) {
  // One machine of two cores with two hardware threads each: PUs {0, 2} and {1, 3}.
  const Topology cores =
      Topology({{2, 1.0, "core"}}, {0, 1}).with_leaf_cpus({0, 2, 4}, {0, 2, 1, 3});
  const std::string text = render_mapping(
      Mapping{{1, 0}}, cores, OutputOptions{OutputFormat::kSlurm, Numbering::kLogical, {"h"}}, {});
  EXPECT_NE(text.find("srun -n 2 --distribution=arbitrary --cpu-bind=mask_cpu:0xa,0x5 ./app"),
            std::string::npos)
      << text;
  const std::string hydra = render_mapping(
      Mapping{{1, 0}}, cores, OutputOptions{OutputFormat::kHydra, Numbering::kLogical, {"h"}}, {});
  EXPECT_EQ(body(hydra), "h:2 binding=user:1+3,0+2\n");
}

TEST(RenderMapping, HydraMachineFileBindsByOsIndexPerRunOfRanks) {
  const std::string text = render(OutputFormat::kHydra, Numbering::kLogical, {"alpha", "beta"});
  EXPECT_EQ(body(text),
            "beta:1 binding=user:1\n"
            "alpha:2 binding=user:3,2\n"
            "beta:2 binding=user:0,3\n");
  EXPECT_NE(text.find("# mpiexec.hydra -f MAPPING -n 5 ./app\n"), std::string::npos) << text;
}

TEST(RenderMapping, OnlyMachinesInUseGetABindingLine) {
  const Mapping on_node1{{6, 7}};

  const std::string slurm = render(OutputFormat::kSlurm, Numbering::kLogical, {}, on_node1);
  EXPECT_EQ(body(slurm), "node1\nnode1\n");
  EXPECT_NE(slurm.find("--cpu-bind=map_cpu:2,0 ./app"), std::string::npos) << slurm;
  EXPECT_EQ(body(render(OutputFormat::kHydra, Numbering::kLogical, {}, on_node1)),
            "node1:2 binding=user:2,0\n");
}

TEST(RenderMapping, OversubscribedLeavesAreRepeated) {
  const Mapping shared{{1, 1}};

  EXPECT_EQ(body(render(OutputFormat::kRankfile, Numbering::kLogical, {}, shared)),
            "rank 0=node0 slot=1\nrank 1=node0 slot=1\n");
  EXPECT_EQ(body(render(OutputFormat::kHydra, Numbering::kLogical, {}, shared)),
            "node0:2 binding=user:1,1\n");
}

TEST(RenderMapping, JsonAddsMappingNumberingAndPlacementToTheReport) {
  const nlohmann::json report = {{"algorithm", "treematch"}, {"cost", 12.5}};

  const nlohmann::json logical =
      nlohmann::json::parse(render(OutputFormat::kJson, Numbering::kLogical, {}, kMapping, report));
  const std::string physical =
      render(OutputFormat::kJson, Numbering::kPhysical, {}, kMapping, report);

  EXPECT_EQ(logical["mapping"], nlohmann::json({5, 0, 2, 7, 4}));
  EXPECT_EQ(logical["numbering"], "logical");
  EXPECT_EQ(logical["leaves"], "cores");
  EXPECT_EQ(logical["cost"], 12.5);
  EXPECT_EQ(logical["placement"][0],
            nlohmann::json({{"host", "node1"}, {"slot", 1}, {"os", 1}, {"cpus", {1}}}));
  EXPECT_EQ(logical["placement"][3],
            nlohmann::json({{"host", "node1"}, {"slot", 3}, {"os", 0}, {"cpus", {0}}}));
  const nlohmann::json parsed = nlohmann::json::parse(physical);
  EXPECT_EQ(parsed["mapping"], nlohmann::json({5, 3, 2, 4, 7}));
  EXPECT_EQ(parsed["numbering"], "physical");
  EXPECT_EQ(parsed["algorithm"], "treematch");
  EXPECT_EQ(physical.back(), '\n');
}

/// What the JSON rendering must equal: the document built as one JSON value and dumped.
std::string json_as_one_value(const Mapping& mapping, const Topology& topology,
                              const OutputOptions& options, nlohmann::json report) {
  nlohmann::json leaves = nlohmann::json::array();
  for (const Index leaf : mapping.leaf_of_rank) {
    leaves.push_back(options.numbering == Numbering::kLogical ? leaf : topology.os_index(leaf));
  }
  report["mapping"] = leaves;
  report["numbering"] = options.numbering == Numbering::kLogical ? "logical" : "physical";
  report["leaves"] = options.hardware_threads ? "hardware threads" : "cores";
  nlohmann::json placement = nlohmann::json::array();
  for (const RankPlacement& rank : rank_placements(mapping, topology, options.hosts)) {
    placement.push_back(
        {{"host", rank.host}, {"slot", rank.logical}, {"os", rank.os}, {"cpus", rank.cpus}});
  }
  report["placement"] = placement;
  return report.dump(2) + "\n";
}

TEST(RenderMapping, JsonTextIsWhatTheDocumentAsOneValueDumps) {
  // The per-rank arrays are written without building them as JSON values; the text must not
  // change: keys before, between and after them, a host name to escape, several PUs per rank,
  // no rank at all.
  const nlohmann::json report = {
      {"algorithm", "treematch"}, {"n", 5}, {"zeta", {{"nested", {1, 2}}}}, {"leaves", "x"}};
  // Each core of two_machines() with two hardware threads (OS indexes 2i, 2i + 1).
  std::vector<Offset> offsets;
  std::vector<Index> cpus;
  for (Index leaf = 0; leaf <= 8; ++leaf) offsets.push_back(2 * leaf);
  for (Index cpu = 0; cpu < 16; ++cpu) cpus.push_back(cpu);
  const Topology threads = two_machines().with_leaf_cpus(offsets, cpus);
  const std::vector<std::tuple<Mapping, Topology, OutputOptions>> cases = {
      {kMapping, two_machines(), OutputOptions{OutputFormat::kJson, Numbering::kLogical, {}}},
      {kMapping, threads, OutputOptions{OutputFormat::kJson, Numbering::kLogical, {}}},
      {kMapping, two_machines(),
       OutputOptions{OutputFormat::kJson, Numbering::kPhysical, {"a\"b\\c", "tab\there"}}},
      {Mapping{{}}, two_machines(), OutputOptions{OutputFormat::kJson, Numbering::kLogical, {}}},
  };
  for (const auto& [mapping, topology, options] : cases) {
    EXPECT_EQ(render_mapping(mapping, topology, options, report),
              json_as_one_value(mapping, topology, options, report));
    EXPECT_EQ(render_mapping(mapping, topology, options, nullptr),
              json_as_one_value(mapping, topology, options, nlohmann::json::object()));
  }
}

TEST(RenderMapping, OneMachineTreeUsesLeafIndexesAndNode0) {
  const Topology one_machine = two_machines(/*machine_level=*/0);

  const std::string text =
      render_mapping(Mapping{{5, 0}}, one_machine,
                     OutputOptions{OutputFormat::kRankfile, Numbering::kLogical, {}}, {});

  EXPECT_EQ(body(text), "rank 0=node0 slot=5\nrank 1=node0 slot=0\n");
  // A single machine keeps its own OS numbering, even when it does not start at 0.
  const std::string physical =
      render_mapping(Mapping{{5, 7}}, one_machine,
                     OutputOptions{OutputFormat::kRankfile, Numbering::kPhysical, {}}, {});
  EXPECT_EQ(body(physical), "rank 0=node0 slot=5\nrank 1=node0 slot=4\n");
}

TEST(RenderMapping, HolesAreSkippedByLogicalNumbersAndNeverMapped) {
  // One machine of 2 packages x 3 cores; the job may use 3 cores of package 0, 1 of package 1
  // (OS indexes 2, 3, 4 and 5: a restricted node).
  const Topology restricted({{2, 1.0, "pack"}, {3, 1.0, "core"}}, {2, 3, 4, 5, -1, -1});
  const OutputOptions rankfile{OutputFormat::kRankfile, Numbering::kLogical, {"h"}};
  EXPECT_EQ(body(render_mapping(Mapping{{3, 0}}, restricted, rankfile, {})),
            "rank 0=h slot=3\nrank 1=h slot=0\n");
  const OutputOptions physical{OutputFormat::kRankfile, Numbering::kPhysical, {"h"}};
  EXPECT_EQ(body(render_mapping(Mapping{{3, 0}}, restricted, physical, {})),
            "rank 0=h slot=5\nrank 1=h slot=2\n");
  EXPECT_THROW(render_mapping(Mapping{{4}}, restricted, rankfile, {}), InputError);
}

TEST(RenderMapping, TooFewHostsIsAnInputError) {
  // machine_level 2: four machines of two cores.
  const Topology four_machines = two_machines(/*machine_level=*/2);
  const OutputOptions options{OutputFormat::kRankfile, Numbering::kLogical, {"a", "b", "c"}};

  try {
    render_mapping(kMapping, four_machines, options, {});
    FAIL() << "no exception";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "--hosts: 3 host names for 4 machines");
  }
}

TEST(RenderMapping, HostsAreCheckedOnlyByFormatsThatNameThem) {
  const OutputOptions perm{OutputFormat::kPerm, Numbering::kLogical, {"a"}};
  const OutputOptions slurm{OutputFormat::kSlurm, Numbering::kLogical, {"a"}};
  const OutputOptions hydra{OutputFormat::kHydra, Numbering::kLogical, {"a"}};

  EXPECT_EQ(render_mapping(kMapping, two_machines(), perm, {}), "5\n0\n2\n7\n4\n");  // no hosts
  EXPECT_THROW(render_mapping(kMapping, two_machines(), slurm, {}), InputError);
  EXPECT_THROW(render_mapping(kMapping, two_machines(), hydra, {}), InputError);
}

TEST(RenderMapping, LeafOutsideTheTopologyIsAnInputError) {
  EXPECT_THROW(render(OutputFormat::kPerm, Numbering::kLogical, {}, Mapping{{8}}), InputError);
}

TEST(RenderMapping, NoRanksGivesEmptyText) {
  EXPECT_EQ(render(OutputFormat::kPerm, Numbering::kLogical, {}, Mapping{}), "");
  EXPECT_EQ(render(OutputFormat::kSlurm, Numbering::kLogical, {}, Mapping{}), "");
}

}  // namespace
}  // namespace treematch::io
