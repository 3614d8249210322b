// Tests of the mapping renderings: exact text of every output format and their errors.
#include "io/mapping_writer.h"

#include <string>
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

TEST(RenderMapping, RankfileUsesCoresWithinTheMachineOrOsIndexes) {
  const std::string logical =
      render(OutputFormat::kRankfile, Numbering::kLogical, {"alpha", "beta"});
  const std::string physical =
      render(OutputFormat::kRankfile, Numbering::kPhysical, {"alpha", "beta"});

  EXPECT_EQ(logical,
            "rank 0=beta slot=1\n"
            "rank 1=alpha slot=0\n"
            "rank 2=alpha slot=2\n"
            "rank 3=beta slot=3\n"
            "rank 4=beta slot=0\n");
  EXPECT_EQ(physical,
            "rank 0=beta slot=1\n"
            "rank 1=alpha slot=3\n"
            "rank 2=alpha slot=2\n"
            "rank 3=beta slot=0\n"
            "rank 4=beta slot=3\n");
}

TEST(RenderMapping, SlurmHostfileThenCpuMapsInLocalRankOrder) {
  const std::string expected =
      "node1\n"
      "node0\n"
      "node0\n"
      "node1\n"
      "node1\n"
      "# node0: --cpu-bind=map_cpu:3,2\n"
      "# node1: --cpu-bind=map_cpu:1,0,3\n";

  EXPECT_EQ(render(OutputFormat::kSlurm, Numbering::kLogical), expected);
  EXPECT_EQ(render(OutputFormat::kSlurm, Numbering::kPhysical),
            expected);  // Slurm takes OS indexes
}

TEST(RenderMapping, HydraBindsByOsIndexPerMachine) {
  EXPECT_EQ(render(OutputFormat::kHydra, Numbering::kLogical, {"alpha", "beta"}),
            "alpha: -bind-to user:3,2\n"
            "beta: -bind-to user:1,0,3\n");
}

TEST(RenderMapping, OnlyMachinesInUseGetABindingLine) {
  const Mapping on_node1{{6, 7}};

  EXPECT_EQ(render(OutputFormat::kSlurm, Numbering::kLogical, {}, on_node1),
            "node1\nnode1\n# node1: --cpu-bind=map_cpu:2,0\n");
  EXPECT_EQ(render(OutputFormat::kHydra, Numbering::kLogical, {}, on_node1),
            "node1: -bind-to user:2,0\n");
}

TEST(RenderMapping, OversubscribedLeavesAreRepeated) {
  const Mapping shared{{1, 1}};

  EXPECT_EQ(render(OutputFormat::kRankfile, Numbering::kLogical, {}, shared),
            "rank 0=node0 slot=1\nrank 1=node0 slot=1\n");
  EXPECT_EQ(render(OutputFormat::kHydra, Numbering::kLogical, {}, shared),
            "node0: -bind-to user:1,1\n");
}

TEST(RenderMapping, JsonAddsMappingAndNumberingToTheReport) {
  const nlohmann::json report = {{"algorithm", "treematch"}, {"cost", 12.5}};

  const std::string logical =
      render(OutputFormat::kJson, Numbering::kLogical, {}, kMapping, report);
  const std::string physical =
      render(OutputFormat::kJson, Numbering::kPhysical, {}, kMapping, report);

  EXPECT_EQ(logical,
            "{\n"
            "  \"algorithm\": \"treematch\",\n"
            "  \"cost\": 12.5,\n"
            "  \"mapping\": [\n"
            "    5,\n"
            "    0,\n"
            "    2,\n"
            "    7,\n"
            "    4\n"
            "  ],\n"
            "  \"numbering\": \"logical\"\n"
            "}\n");
  const nlohmann::json parsed = nlohmann::json::parse(physical);
  EXPECT_EQ(parsed["mapping"], nlohmann::json({5, 3, 2, 4, 7}));
  EXPECT_EQ(parsed["numbering"], "physical");
  EXPECT_EQ(parsed["algorithm"], "treematch");
  EXPECT_EQ(physical.back(), '\n');
}

TEST(RenderMapping, OneMachineTreeUsesLeafIndexesAndNode0) {
  const Topology one_machine = two_machines(/*machine_level=*/0);

  const std::string text =
      render_mapping(Mapping{{5, 0}}, one_machine,
                     OutputOptions{OutputFormat::kRankfile, Numbering::kLogical, {}}, {});

  EXPECT_EQ(text, "rank 0=node0 slot=5\nrank 1=node0 slot=0\n");
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

  EXPECT_EQ(render_mapping(kMapping, two_machines(), perm, {}), "5\n0\n2\n7\n4\n");
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
