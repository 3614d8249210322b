// One benchmark case end to end: files, subprocess runs, mapping read-back, costs and baselines.
#include "apps/bench/bench_runner.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "apps/bench/graph_files.h"
#include "io/mapping_reader.h"
#include "src/baselines.h"
#include "src/cost.h"

namespace treematch::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) {
    if (!text.empty()) text += ' ';
    text += w.find(' ') == std::string::npos ? w : "'" + w + "'";
  }
  return text;
}

/// The last non-empty line of a log, for a one-line failure message.
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const std::size_t begin = text.find_last_of('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

/// (most processes on one leaf, leaves holding more than one process).
std::pair<Index, Index> load_stats(const Mapping& mapping, Index leaves) {
  std::vector<Index> load(static_cast<std::size_t>(leaves), 0);
  Index most = 0;
  Index overloaded = 0;
  for (const Index leaf : mapping.leaf_of_rank) {
    if (leaf < 0 || leaf >= leaves) continue;
    Index& here = load[static_cast<std::size_t>(leaf)];
    if (++here == 2) ++overloaded;
    most = std::max(most, here);
  }
  return {most, overloaded};
}

/// Runs `argv` `repeat` times; `output` is the mapping file the command writes (removed before
/// each run). Fills the timing fields of `result`; returns the output of the first run, or ""
/// with result.failure set.
std::string run_repeated(Spawner& spawner, const std::vector<std::string>& argv,
                         const fs::path& output, const fs::path& log_prefix,
                         const BenchOptions& options, ToolResult& result) {
  result.attempted = true;
  result.command = join(argv);
  std::string first_output;
  for (int run = 0; run < options.repeat; ++run) {
    std::error_code ignored;
    fs::remove(output, ignored);
    const std::string out_log = log_prefix.string() + ".stdout";
    const std::string err_log = log_prefix.string() + ".stderr";
    const ChildRun child = spawner.run(argv, out_log, err_log, options.timeout_seconds);
    const std::string log = read_text_file(err_log);
    result.log_tail = tail(log, 1500);
    if (!child.ok()) {
      const std::string why = last_line(log);
      result.failure = child.failure() + (why.empty() ? "" : ": " + why);
      return "";
    }
    result.wall_seconds.push_back(child.wall_seconds);
    result.max_rss_mib = std::max(result.max_rss_mib, child.peak_rss_mib);
    const std::string text = read_text_file(output.string());
    if (run == 0) {
      first_output = text;
    } else if (text != first_output) {
      result.varied = true;
    }
  }
  result.min_wall_seconds =
      *std::min_element(result.wall_seconds.begin(), result.wall_seconds.end());
  if (first_output.empty()) result.failure = "exited 0 but wrote no mapping to " + output.string();
  return first_output;
}

void add_baseline(CaseResult& result, const std::string& name, const CommGraph& graph,
                  const Topology& topology, const std::function<Mapping()>& make) {
  BaselineResult b;
  b.name = name;
  try {
    const auto start = Clock::now();
    const Mapping mapping = make();
    b.seconds = seconds_since(start);
    b.cost = evaluate_cost(graph, topology, mapping);
  } catch (const std::exception& e) {
    b.skipped = e.what();
  }
  result.baselines.push_back(std::move(b));
}

}  // namespace

CaseResult run_case(const CaseSpec& spec, const BenchOptions& options, const fs::path& work_dir,
                    Spawner& spawner, std::ostream& progress) {
  CaseResult result;
  result.name = spec.name;
  LoadedCase loaded;
  try {
    loaded = load_case(spec, options.data_dir, options.seed);
  } catch (const std::exception& e) {
    result.error = e.what();
    progress << "  not run: " << result.error << std::endl;
    return result;
  }
  const CommGraph& graph = loaded.graph;
  const Topology& topology = loaded.topology;
  const Index p = graph.size();
  result.matrix_origin = loaded.matrix_origin;
  result.topology_spec = loaded.topology_spec;
  result.topology_tleaf = topology.to_tleaf();
  result.processes = p;
  result.entries = graph.nnz();
  result.leaves = topology.leaf_count();
  progress << fmt::format("  {} processes, {} entries; {} leaves ({})", p, graph.nnz(),
                          topology.leaf_count(), result.topology_tleaf)
           << std::endl;
  if (p > topology.leaf_count()) {
    result.error = fmt::format("{} processes do not fit {} leaves", p, topology.leaf_count());
    return result;
  }

  const fs::path dir = work_dir / spec.name;
  const fs::path scotch_graph = dir / "graph.grf";
  const fs::path scotch_target = dir / "target.tgt";
  fs::path matrix_file;
  try {
    fs::create_directories(dir);
    const auto start = Clock::now();
    if (p <= options.max_dense) {
      matrix_file = dir / "matrix.mat";
      write_dense_matrix(matrix_file.string(), graph);
      result.matrix_file = "dense .mat";
    } else {
      matrix_file = dir / "matrix.graph";
      write_metis_graph(matrix_file.string(), graph);
      result.matrix_file = "METIS graph";
    }
    result.scotch_target = uniform_tleaf(topology);
    if (!options.scotch.empty()) {
      result.scotch_weights = write_scotch_graph(scotch_graph.string(), graph);
      write_text_file(scotch_target.string(), result.scotch_target + "\n");
    }
    progress << fmt::format("  wrote {} and Scotch files in {:.2f} s", result.matrix_file,
                            seconds_since(start))
             << std::endl;
  } catch (const std::exception& e) {
    result.error = std::string("cannot write the input files: ") + e.what();
    return result;
  }

  // treematch, as a user runs it.
  {
    std::vector<std::string> argv{options.treematch,
                                  "map",
                                  "--matrix",
                                  matrix_file.string(),
                                  "--topology",
                                  loaded.topology_spec,
                                  "--format",
                                  "perm",
                                  "-o",
                                  (dir / "treematch.perm").string()};
    if (options.threads > 0) {
      argv.push_back("--threads");
      argv.push_back(std::to_string(options.threads));
    }
    ToolResult& tm = result.treematch;
    const std::string text =
        run_repeated(spawner, argv, dir / "treematch.perm", dir / "treematch", options, tm);
    if (tm.failure.empty()) {
      try {
        const Mapping mapping = io::read_mapping((dir / "treematch.perm").string(), topology,
                                                 io::Numbering::kLogical, p);
        tm.cost = evaluate_cost(graph, topology, mapping);
        std::tie(tm.max_load, tm.overloaded_leaves) = load_stats(mapping, topology.leaf_count());
      } catch (const std::exception& e) {
        tm.failure = std::string("unreadable mapping: ") + e.what();
      }
    }
    progress << (tm.ok() ? fmt::format("  treematch: {:.3f} s, {:.1f} MiB, hop-bytes {:.6g}",
                                       tm.min_wall_seconds, tm.max_rss_mib, tm.cost.hop_bytes)
                         : "  treematch FAILED: " + tm.failure)
             << std::endl;
  }

  // Scotch's default static mapping onto the uniform tleaf of the same shape.
  ToolResult& sc = result.scotch;
  if (options.scotch.empty()) {
    sc.failure = "n/a: scotch_gmap not found";
  } else {
    std::vector<std::string> argv{options.scotch};
    argv.insert(argv.end(), options.scotch_args.begin(), options.scotch_args.end());
    for (const fs::path& file : {scotch_graph, scotch_target, dir / "scotch.map"})
      argv.push_back(file.string());
    run_repeated(spawner, argv, dir / "scotch.map", dir / "scotch", options, sc);
    if (sc.failure.empty()) {
      try {
        const ScotchMapping mapping =
            read_scotch_mapping((dir / "scotch.map").string(), p, topology.leaf_count());
        sc.cost = evaluate_cost(graph, topology, mapping.mapping);
        sc.max_load = mapping.max_load;
        sc.overloaded_leaves = mapping.overloaded_leaves;
      } catch (const std::exception& e) {
        sc.failure = std::string("unreadable mapping: ") + e.what();
      }
    }
    progress << (sc.ok() ? fmt::format(
                               "  scotch:    {:.3f} s, {:.1f} MiB, hop-bytes {:.6g}, max load {}",
                               sc.min_wall_seconds, sc.max_rss_mib, sc.cost.hop_bytes, sc.max_load)
                         : "  scotch FAILED: " + sc.failure)
             << std::endl;
  }

  // Baselines, computed here on the same topology.
  const auto start = Clock::now();
  std::vector<Index> slots;
  try {
    slots = usable_slots(topology, {}, /*per_leaf=*/1);
  } catch (const std::exception& e) {
    result.error = std::string("usable_slots: ") + e.what();
    return result;
  }
  add_baseline(result, "packed", graph, topology, [&] { return packed_mapping(p, slots); });
  add_baseline(result, "round-robin", graph, topology,
               [&] { return round_robin_mapping(p, topology, slots); });
  add_baseline(result, "random", graph, topology,
               [&] { return random_mapping(p, slots, options.seed); });
  if (p <= options.mpipp_max_processes) {
    add_baseline(result, "MPIPP.5", graph, topology,
                 [&] { return mpipp_mapping(graph, topology, slots, /*starts=*/5, options.seed); });
  } else {
    result.baselines.push_back(
        BaselineResult{"MPIPP.5",
                       {},
                       0.0,
                       fmt::format("p = {} > {} (--mpipp-max-p)", p, options.mpipp_max_processes)});
  }
  progress << fmt::format("  baselines: {:.2f} s", seconds_since(start)) << std::endl;
  return result;
}

}  // namespace treematch::bench
