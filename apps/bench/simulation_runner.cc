#include "apps/bench/simulation_runner.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "apps/bench/graph_files.h"
#include "io/simgrid_platform.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"

namespace treematch::bench {
namespace {

namespace fs = std::filesystem;

void write_pattern_file(const fs::path& path, const CommGraph& graph, double byte_scale) {
  std::ostringstream text;
  const kernels::CsrView view = graph.view();
  text << graph.size() << ' ' << graph.nnz() << '\n';
  for (Index i = 0; i < graph.size(); ++i) {
    for (Offset e = view.row_begin(i); e < view.row_end(i); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const double bytes = view.weights[entry] * graph.cost_scale() * byte_scale;
      text << i << ' ' << view.targets[entry] << ' ' << std::max(1LL, std::llround(bytes)) << '\n';
    }
  }
  write_text_file(path.string(), text.str());
}

/// The value of "<key> <value>" in a program's output, or a negative number when missing.
double printed_value(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string word;
  double value = 0.0;
  while (lines >> word >> value) {
    if (word == key) return value;
  }
  return -1.0;
}

/// Runs smpirun; its stdout, or "" with `failure` set (the run failed or printed no time).
std::string run_smpi(Spawner& spawner, const SimulationOptions& options, Index ranks,
                     const fs::path& platform, const fs::path& hostfile,
                     const std::vector<std::string>& program, const fs::path& prefix,
                     double& wall_seconds, std::string& failure) {
  std::vector<std::string> argv{options.smpirun,
                                "-np",
                                std::to_string(ranks),
                                "-platform",
                                platform.string(),
                                "-hostfile",
                                hostfile.string(),
                                "--cfg=smpi/simulate-computation:no",
                                "--cfg=network/model:CM02",
                                "--cfg=network/crosstraffic:0",
                                "--cfg=surf/precision:1e-6",
                                "--cfg=smpi/bw-factor:1",
                                "--cfg=smpi/lat-factor:1",
                                "--log=root.thres:critical",
                                "-no-privatize"};
  argv.insert(argv.end(), program.begin(), program.end());
  const std::string out = prefix.string() + ".stdout";
  const std::string err = prefix.string() + ".stderr";
  const ChildRun run = spawner.run(argv, out, err, options.timeout_seconds);
  wall_seconds += run.wall_seconds;
  const std::string log = read_text_file(err);
  const std::string log_tail = text_tail(log, 300);
  if (!run.ok()) {
    failure = run.failure() + ": " + log_tail;
    return "";
  }
  // MPI_Abort under smpirun still exits 0: a program that found a problem printed no time.
  std::string text = read_text_file(out);
  if (printed_value(text, "seconds") < 0.0) {
    failure = "printed no time: " + log_tail;
    return "";
  }
  return text;
}

}  // namespace

std::vector<SimulatedMapping> simulate_mappings(const std::vector<NamedMapping>& mappings,
                                                const CommGraph& graph, const Topology& topology,
                                                const LinkModel& links, double byte_scale,
                                                const SimulationOptions& options,
                                                const fs::path& dir, Spawner& spawner,
                                                std::ostream& progress) {
  const fs::path pattern = dir / "simulation-pattern.txt";
  const fs::path platform = dir / "simulation-platform.xml";
  write_pattern_file(pattern, graph, byte_scale);
  write_text_file(platform.string(),
                  io::simgrid_platform_xml(topology, links, kSimulatedHostFlops));

  std::vector<SimulatedMapping> results;
  for (const NamedMapping& named : mappings) {
    SimulatedMapping s;
    s.name = named.name;
    const LinkLoads loads = link_loads(graph, topology, links, named.mapping);
    s.weighted = evaluate_cost(graph, topology, named.mapping).weighted;
    s.congestion = loads.congestion_norm * byte_scale;
    s.predicted = loads.bottleneck_seconds * byte_scale + loads.latency_seconds;
    const fs::path hostfile = dir / ("simulation-" + named.name + ".hosts");
    write_text_file(hostfile.string(), io::simgrid_hostfile(named.mapping));
    const std::string replay = run_smpi(
        spawner, options, graph.size(), platform, hostfile, {options.replay, pattern.string()},
        dir / ("simulation-replay-" + named.name), s.wall_seconds, s.failure);
    if (s.failure.empty()) {
      s.replay_seconds = printed_value(replay, "seconds");
      const std::string halo =
          run_smpi(spawner, options, graph.size(), platform, hostfile,
                   {options.halo, pattern.string(), std::to_string(options.halo_iterations),
                    fmt::format("{:.17g}", options.halo_flops)},
                   dir / ("simulation-halo-" + named.name), s.wall_seconds, s.failure);
      s.halo_seconds = printed_value(halo, "seconds");
      s.halo_communication_seconds = printed_value(halo, "communication_seconds");
    }
    progress << (s.failure.empty()
                     ? fmt::format("  simulated {}: replay {:.6g} s (predicted {:.6g}), halo "
                                   "{:.6g} s, in {:.1f} s",
                                   s.name, s.replay_seconds, s.predicted, s.halo_seconds,
                                   s.wall_seconds)
                     : fmt::format("  simulation of {} FAILED: {}", s.name, s.failure))
             << std::endl;
    results.push_back(std::move(s));
  }
  return results;
}

}  // namespace treematch::bench
