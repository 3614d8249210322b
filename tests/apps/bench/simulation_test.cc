// --simulate: the rank correlation, how the measures' agreement with the simulator is pooled, the
// simulation cases, and (built with TM_SIMGRID) SMPI runs whose times the link model fixes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "apps/bench/bench_cases.h"
#include "apps/bench/graph_files.h"
#include "apps/bench/rank_correlation.h"
#include "apps/bench/simulation_cases.h"
#include "apps/bench/simulation_report.h"
#include "apps/bench/simulation_runner.h"
#include "io/simgrid_platform.h"

namespace treematch::bench {
namespace {

TEST(RankCorrelation, OneForTheSameOrderMinusOneForTheReverse) {
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {10, 20, 35, 400}), 1.0);
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // One swap of neighbours among 4: 1 - 6 x 2 / (4 x 15) = 0.8.
  EXPECT_NEAR(*spearman({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
}

TEST(RankCorrelation, TiesShareTheMeanOfTheirRanks) {
  EXPECT_EQ(fractional_ranks({5, 1, 5, 3}), (std::vector<double>{3.5, 1, 3.5, 2}));
  // Tied on one side only, ordered alike otherwise: below 1.
  const std::optional<double> rho = spearman({1, 1, 2}, {1, 2, 3});
  ASSERT_TRUE(rho);
  EXPECT_NEAR(*rho, std::sqrt(3.0) / 2.0, 1e-12);
}

TEST(RankCorrelation, UndefinedWithoutAnOrderToCompare) {
  EXPECT_FALSE(spearman({2, 2, 2}, {1, 2, 3}));
  EXPECT_FALSE(spearman({1}, {1}));
  EXPECT_FALSE(spearman({1, 2}, {1, 2, 3}));
}

SimulatedMapping simulated(const char* name, double weighted, double predicted, double replay) {
  SimulatedMapping s;
  s.name = name;
  s.weighted = weighted;
  s.congestion = predicted;
  s.predicted = predicted;
  s.replay_seconds = replay;
  s.halo_seconds = replay;
  s.halo_communication_seconds = replay;
  return s;
}

TEST(SimulationReport, EachMeasureIsJudgedByHowItOrdersTheReplays) {
  // Case a: the prediction orders like the replay, the weighted sum in reverse. Case b, 1000x the
  // scale: same; pooled after dividing by each case's geometric mean, the orders agree again.
  CaseResult a;
  a.name = "a";
  a.simulated = {simulated("x", 3, 1, 1), simulated("y", 2, 2, 2), simulated("z", 1, 4, 4)};
  CaseResult b = a;
  b.name = "b";
  for (SimulatedMapping& s : b.simulated) {
    s.predicted *= 1000;
    s.replay_seconds *= 1000;
  }
  const std::vector<OrderAgreement> agreements = order_agreements({a, b});
  ASSERT_EQ(agreements.size(), 4u);
  EXPECT_EQ(agreements[0].measure, "predicted");
  EXPECT_DOUBLE_EQ(agreements[0].mean_per_case, 1.0);
  EXPECT_EQ(agreements[0].cases, 2);
  EXPECT_DOUBLE_EQ(agreements[0].pooled, 1.0);
  EXPECT_EQ(agreements[0].pooled_pairs, 6);
  EXPECT_EQ(agreements[2].measure, "weighted");
  EXPECT_DOUBLE_EQ(agreements[2].mean_per_case, -1.0);
  EXPECT_EQ(agreements[3].simulated, "halo communication");
  EXPECT_EQ(agreements[3].cases, 2);
}

TEST(SimulationReport, AFailedSimulationIsNamedAndLeftOutOfTheOrder) {
  CaseResult c;
  c.name = "c";
  c.processes = 3;
  c.simulated = {simulated("treematch-sum", 1, 1, 1), simulated("scotch", 2, 2, 2),
                 simulated("random", 3, 3, 3)};
  c.simulated[1].failure = "exit code 1: boom";
  const std::string text = render_simulation({c});
  EXPECT_NE(text.find("scotch                FAILED: exit code 1: boom"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Spearman(predicted, replay) 1.000"), std::string::npos) << text;
  EXPECT_EQ(order_agreements({c})[0].pooled_pairs, 2);
  CaseResult skipped;
  skipped.name = "d";
  skipped.simulation_error = "the matrix is not held";
  EXPECT_NE(render_simulation({skipped}).find("not simulated: the matrix is not held"),
            std::string::npos);
  EXPECT_EQ(render_simulation({CaseResult{}}), "");
}

TEST(SimulationCases, HalosFillTheirMachinesOfSixteenCores) {
  int halos = 0;
  for (const CaseSpec& spec : simulation_cases()) {
    EXPECT_EQ(spec.series, kSimulationSeries);
    EXPECT_FALSE(spec.in_default);
    if (spec.matrix_source != MatrixSource::kStencil) continue;
    ++halos;
    const LoadedCase loaded = load_case(spec, "", 1, false);
    EXPECT_EQ(loaded.processes, loaded.topology.leaf_count()) << spec.name;
    EXPECT_EQ(loaded.topology.leaves_per_machine(), 16) << spec.name;
    EXPECT_EQ(spec.simulation_byte_scale, 1000.0);
  }
  EXPECT_EQ(halos, 2);
  EXPECT_EQ(select_cases(all_cases(), {kSimulationSeries}).cases.size(), 6u);
}

#ifdef TM_TEST_SMPIRUN
// 2 nodes x 2 cores; the node links carry 1.25 GB/s with 1 us latency, the core links are free.
Topology two_nodes() {
  return Topology({TreeLevel{2, 10.0, "node"}, TreeLevel{2, 1.0, "core"}}, {0, 1, 2, 3}, 1);
}

LinkModel slow_network() {
  LinkModel model;
  model.links = {LinkSpec{1.25e9, 1e-6}, LinkSpec{}};
  model.name = "custom";
  return model;
}

TEST(SmpiSimulation, ATransferAcrossTheNetworkTakesBytesOverBandwidth) {
  // Ranks 0 and 1 exchange 125 MB each way: 0.1 s across a node link (both directions at once,
  // full duplex), next to nothing inside a node.
  const CommGraph graph = CommGraph::from_triplets(2, {{0, 1, 1.25e8}, {1, 0, 1.25e8}});
  const std::vector<NamedMapping> mappings = {{"same-node", Mapping{{0, 1}}},
                                              {"two-nodes", Mapping{{0, 2}}}};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tm-smpi-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  SimulationOptions options{.smpirun = TM_TEST_SMPIRUN,
                            .replay = TM_TEST_SMPI_REPLAY,
                            .halo = TM_TEST_SMPI_HALO,
                            .halo_iterations = 2,
                            .halo_flops = 1e7,
                            .timeout_seconds = 120};
  Spawner spawner;
  std::ostringstream progress;
  const std::vector<SimulatedMapping> results = simulate_mappings(
      mappings, graph, two_nodes(), slow_network(), 1.0, options, dir, spawner, progress);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(results.size(), 2u);
  for (const SimulatedMapping& s : results) ASSERT_EQ(s.failure, "") << progress.str();
  EXPECT_LT(results[0].replay_seconds, 1e-3);
  EXPECT_NEAR(results[1].predicted, 0.1 + 2e-6, 1e-9);
  EXPECT_NEAR(results[1].replay_seconds, 0.1, 0.005) << progress.str();
  // The halo: 2 x (10 ms computed + the exchange).
  EXPECT_NEAR(results[1].halo_seconds, 2 * (0.01 + 0.1), 0.01) << progress.str();
  EXPECT_NEAR(results[1].halo_communication_seconds, 2 * 0.1, 0.01) << progress.str();
}

TEST(SmpiSimulation, ABadPatternFileIsNamedOnceAndGivesNoTime) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tm-smpi-bad-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string platform = (dir / "p.xml").string();
  const std::string hosts = (dir / "h").string();
  write_text_file(platform, io::simgrid_platform_xml(two_nodes(), slow_network(), 1e9));
  write_text_file(hosts, io::simgrid_hostfile(Mapping{{0, 2}}));
  const std::pair<const char*, const char*> cases[] = {
      {"2 2\n0 1 5\n1 1 5\n", ":3: expected \"<sender> <receiver> <bytes>\""},
      {"3 1\n0 1 5\n", ":1: the pattern has 3 ranks, the job 2"}};
  Spawner spawner;
  for (const auto& [text, message] : cases) {
    const std::string pattern = (dir / "bad.txt").string();
    write_text_file(pattern, text);
    const ChildRun run =
        spawner.run({TM_TEST_SMPIRUN, "-np", "2", "-platform", platform, "-hostfile", hosts,
                     "--log=root.thres:critical", "-no-privatize", TM_TEST_SMPI_REPLAY, pattern},
                    (dir / "out").string(), (dir / "err").string(), 60);
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(read_text_file((dir / "out").string()), "");
    const std::string err = read_text_file((dir / "err").string());
    const std::string line = pattern + message;
    EXPECT_NE(err.find(line), std::string::npos) << err;
    EXPECT_EQ(err.find(line), err.rfind(line)) << "printed twice: " << err;
  }
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace treematch::bench
