// One benchmark case end to end: files, subprocess runs, mapping read-back, costs and baselines.
#include "apps/bench/bench_runner.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/bench/cost_baseline.h"
#include "apps/bench/graph_files.h"
#include "apps/bench/peer_mapper_files.h"
#include "io/mapping_writer.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_reader.h"
#include "kernels/utility.h"
#include "src/model/cost.h"
#include "src/report/baselines.h"
#include "src/tree/link_model.h"

namespace treematch::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using kernels::seconds_since;

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

/// Called with the output file's text after each successful run; throws to fail the tool.
using OutputCheck = std::function<void(const std::string& text)>;

/// Runs `argv` `repeat` times; `output` is the file the command writes (removed before each run).
/// Fills the timing fields of `result` and hands each run's output to `check`; on failure sets
/// result.failure and stops.
void run_repeated(Spawner& spawner, const std::vector<std::string>& argv, const fs::path& output,
                  const fs::path& log_prefix, int repeat, unsigned timeout_seconds,
                  ToolResult& result, const OutputCheck& check) {
  result.attempted = true;
  result.command = join(argv);
  for (int run = 0; run < repeat; ++run) {
    std::error_code ignored;
    fs::remove(output, ignored);
    const std::string out_log = log_prefix.string() + ".stdout";
    const std::string err_log = log_prefix.string() + ".stderr";
    const ChildRun child = spawner.run(argv, out_log, err_log, timeout_seconds);
    const std::string log = read_text_file(err_log);
    result.log_tail = text_tail(log, 1500);
    if (!child.ok()) {
      const std::string why = last_line(log);
      result.failure = child.failure() + (why.empty() ? "" : ": " + why);
      return;
    }
    result.wall_seconds.push_back(child.wall_seconds);
    result.max_rss_mib = std::max(result.max_rss_mib, child.peak_rss_mib);
    result.min_wall_seconds =
        *std::min_element(result.wall_seconds.begin(), result.wall_seconds.end());
    const std::string text = read_text_file(output.string());
    if (text.empty()) {
      result.failure = "exited 0 but wrote nothing to " + output.string();
      return;
    }
    try {
      check(text);
    } catch (const std::exception& e) {
      result.failure = "unreadable output " + output.string() + ": " + e.what();
      return;
    }
  }
}

/// What treematch's JSON report says about one run.
struct TreematchReport {
  Mapping mapping;
  PhaseSeconds seconds;
  double hop_bytes = -1.0;
};

/// Parses `treematch map --format json` output: "seconds" {read, topology, mapping}, "mapping"
/// (p logical leaves) and "costs"."treematch"."hop_bytes". Throws std::runtime_error (or
/// nlohmann::json's exceptions) for anything missing or out of range.
TreematchReport parse_treematch_report(const std::string& text, Index p, Index leaves) {
  const nlohmann::json j = nlohmann::json::parse(text);
  TreematchReport report;
  const nlohmann::json& seconds = j.at("seconds");
  report.seconds.read = seconds.at("read").get<double>();
  report.seconds.topology = seconds.at("topology").get<double>();
  report.seconds.mapping = seconds.at("mapping").get<double>();
  if (j.at("numbering").get<std::string>() != "logical")
    throw std::runtime_error("the mapping is not in logical numbering");
  const nlohmann::json& mapping = j.at("mapping");
  if (!mapping.is_array() || mapping.size() != static_cast<std::size_t>(p)) {
    throw std::runtime_error(fmt::format("\"mapping\" should be an array of {} leaves, got {} {}",
                                         p, mapping.size(), mapping.type_name()));
  }
  report.mapping.leaf_of_rank.reserve(static_cast<std::size_t>(p));
  for (const nlohmann::json& leaf : mapping) {
    const auto value = leaf.get<long long>();
    if (value < 0 || value >= leaves) {
      throw std::runtime_error(fmt::format("rank {} on leaf {}, outside [0, {})",
                                           report.mapping.leaf_of_rank.size(), value, leaves));
    }
    report.mapping.leaf_of_rank.push_back(static_cast<Index>(value));
  }
  report.hop_bytes = j.at("costs").at("treematch").at("hop_bytes").get<double>();
  return report;
}

/// Runs `treematch map ... --format json` `repeat` times into `prefix`.json; returns the first
/// run's mapping (nullopt when tm.failure is set) and records every run's phases.
std::optional<Mapping> run_treematch(Spawner& spawner, const BenchOptions& options,
                                     const std::string& matrix_file,
                                     const std::string& topology_spec, int threads, int repeat,
                                     const fs::path& prefix, Index p, Index leaves, ToolResult& tm,
                                     const std::vector<std::string>& extra = {}) {
  const fs::path output = prefix.string() + ".json";
  std::vector<std::string> argv{
      options.treematch, "map",      "--matrix", matrix_file, "--topology",
      topology_spec,     "--format", "json",     "-o",        output.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (threads > 0) {
    argv.push_back("--threads");
    argv.push_back(std::to_string(threads));
  }
  std::optional<Mapping> first;
  run_repeated(spawner, argv, output, prefix, repeat, options.timeout_seconds, tm,
               [&](const std::string& text) {
                 TreematchReport report = parse_treematch_report(text, p, leaves);
                 tm.phases.push_back(report.seconds);
                 if (!first) {
                   first = std::move(report.mapping);
                   tm.reported_hop_bytes = report.hop_bytes;
                 } else if (report.mapping.leaf_of_rank != first->leaf_of_rank) {
                   tm.varied = true;
                 }
               });
  if (!tm.failure.empty()) return std::nullopt;
  return first;
}

/// Writes the case's matrix for treematch into `dir` in the format spec.matrix_file asks for;
/// returns the file's path and sets `description` to the format's name.
std::string write_treematch_input(const CaseSpec& spec, const LoadedCase& loaded,
                                  const BenchOptions& options, const fs::path& dir,
                                  std::string& description) {
  // Uncompressed HDF5: reading is bound by I/O and parsing, not by zlib.
  io::Hdf5WriteOptions raw;
  raw.compress = false;
  switch (spec.matrix_file) {
    case MatrixFile::kText: {
      const CommGraph& graph = *loaded.graph;
      if (graph.size() <= options.max_dense) {
        const fs::path path = dir / "matrix.mat";
        write_dense_matrix(path.string(), graph);
        description = "dense .mat";
        return path.string();
      }
      const fs::path path = dir / "matrix.graph";
      write_metis_graph(path.string(), graph);
      description = "METIS graph";
      return path.string();
    }
    case MatrixFile::kHdf5Csr: {
      const fs::path path = dir / "matrix.h5";
      const CommGraph& graph = *loaded.graph;
      if (graph.was_symmetrised()) {
        // The stored C + C^T would double every cost; only symmetric inputs take this path.
        throw std::runtime_error("HDF5 CSR output needs a symmetric matrix");
      }
      io::write_matrix_hdf5_csr(path.string(), graph.view(), "/matrix",
                                io::Hdf5WriteMode::kTruncate, raw);
      description = "HDF5 CSR (uncompressed)";
      return path.string();
    }
    case MatrixFile::kHdf5Dense: {
      const fs::path path = dir / "matrix.h5";
      if (loaded.dense) {
        const HierarchicalPattern& dense = *loaded.dense;
        io::write_matrix_hdf5_dense(
            path.string(), dense.size(),
            [&](Index row, std::span<double> values) { dense.fill_row(row, values); }, "/matrix",
            io::Hdf5WriteMode::kTruncate, raw);
      } else {
        const CommGraph& graph = *loaded.graph;
        const kernels::CsrView csr = graph.view();
        const double scale = graph.cost_scale();
        io::write_matrix_hdf5_dense(
            path.string(), csr.n,
            [&](Index row, std::span<double> values) {
              for (Offset e = csr.row_begin(row); e < csr.row_end(row); ++e) {
                values[static_cast<std::size_t>(csr.targets[static_cast<std::size_t>(e)])] =
                    csr.weights[static_cast<std::size_t>(e)] * scale;
              }
            },
            "/matrix", io::Hdf5WriteMode::kTruncate, raw);
      }
      description = "HDF5 dense (uncompressed)";
      return path.string();
    }
  }
  throw std::logic_error("unknown MatrixFile");
}

/// The most entries of a dense generated matrix written as a text graph for a peer by default.
constexpr long long kDenseTextEntries = 1LL << 22;

/// Why the peers do not run on a case whose job has only some of the cores.
constexpr const char* kRestrictedMachine =
    "n/a: a restricted machine (it maps onto whole trees only)";

/// Why Scotch does not run on this case, or "" when it does.
std::string scotch_skip_reason(const LoadedCase& loaded, const BenchOptions& options) {
  if (options.presets_only) return "n/a: --presets-only";
  if (!loaded.allowed_leaves.empty()) return kRestrictedMachine;
  if (options.scotch.empty()) return "n/a: scotch_gmap not found";
  if (loaded.processes > options.scotch_max_processes) {
    return fmt::format("n/a: p = {} > --scotch-max-p {}", loaded.processes,
                       options.scotch_max_processes);
  }
  // A dense matrix of a few million entries makes a text graph of some 50 MB: still run it.
  if (loaded.dense && !options.scotch_dense && loaded.entries > kDenseTextEntries) {
    return fmt::format(
        "n/a: dense {}^2 graph ({} arcs) too large for a Scotch text graph (--scotch-dense runs "
        "it)",
        loaded.processes, loaded.entries);
  }
  return "";
}

/// A hierarchical process mapper the bench calls when given its executable (--viem, --sharedmap).
struct PeerMapper {
  std::string label;  ///< files and progress lines: "viem", "sharedmap"
  std::string title;  ///< "VieM strong"
  std::string path;   ///< the executable; empty = not run
  Index max_processes = 0;
  std::string path_option;  ///< "--viem"
  std::string max_option;   ///< "--viem-max-p"
  /// The command line after the executable: the graph file, the output file, the machine.
  std::function<std::vector<std::string>(const std::string&, const std::string&,
                                         const PeerMachine&)>
      arguments;
};

PeerMapper viem_mapper(const BenchOptions& options) {
  return {"viem",
          "VieM strong",
          options.viem,
          options.viem_max_processes,
          "--viem",
          "--viem-max-p",
          [](const std::string& graph, const std::string& output, const PeerMachine& machine) {
            return std::vector<std::string>{
                graph, "--hierarchy_parameter_string=" + machine.hierarchy,
                "--distance_parameter_string=" + machine.distances,
                "--preconfiguration_mapping=strong", "--output_filename=" + output};
          }};
}

/// SharedMap strong with no imbalance (so one process per core), its nb_layer thread strategy, a
/// fixed seed (its default is random) and the threads treematch gets (all cores without --threads).
PeerMapper sharedmap_mapper(const BenchOptions& options) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const std::string threads =
      std::to_string(options.threads > 0 ? static_cast<unsigned>(options.threads) : cores);
  return {
      "sharedmap",
      "SharedMap strong",
      options.sharedmap,
      options.sharedmap_max_processes,
      "--sharedmap",
      "--sharedmap-max-p",
      [threads](const std::string& graph, const std::string& output, const PeerMachine& machine) {
        return std::vector<std::string>{
            "-g",     graph, "-m", output,   "-h", machine.hierarchy, "-d", machine.distances,
            "-e",     "0",   "-c", "strong", "-s", "nb_layer",        "-t", threads,
            "--seed", "1"};
      }};
}

/// Why `peer` does not run on this case, or "" when it does.
std::string peer_skip_reason(const PeerMapper& peer, const LoadedCase& loaded,
                             const BenchOptions& options) {
  if (options.presets_only) return "n/a: --presets-only";
  if (peer.path.empty()) return "n/a: no " + peer.path_option;
  if (!loaded.allowed_leaves.empty()) return kRestrictedMachine;
  if (loaded.processes != loaded.topology.leaf_count())
    return "n/a: it maps only as many processes as cores";
  if (loaded.processes > peer.max_processes) {
    return fmt::format("n/a: p = {} > {} {}", loaded.processes, peer.max_option,
                       peer.max_processes);
  }
  if (loaded.dense && loaded.entries > kDenseTextEntries)
    return "n/a: dense matrix too large for a text graph";
  return "";
}

/// `peer` on the case's graph and machine, its output read back; nullopt (and tool.failure) when
/// it does not run or fails. The METIS graph is written once per case (`graph_weights` remembers
/// it) and shared by the peers.
std::optional<Mapping> run_peer(const PeerMapper& peer, const LoadedCase& loaded,
                                const BenchOptions& options, const std::string& matrix_file,
                                const fs::path& dir, Spawner& spawner, ToolResult& tool,
                                std::optional<PeerWeights>& graph_weights, std::ostream& progress) {
  std::string why = peer_skip_reason(peer, loaded, options);
  const std::optional<PeerMachine> machine =
      why.empty() ? peer_machine(loaded.topology, why) : std::nullopt;
  if (!machine) {
    tool.failure = why;
    progress << "  " << peer.label << ": " << why << std::endl;
    return std::nullopt;
  }
  const fs::path graph_file = dir / "peer.graph";
  const fs::path output = dir / (peer.label + ".perm");
  try {
    if (!graph_weights) {
      graph_weights =
          loaded.graph
              ? write_peer_graph(graph_file.string(), *loaded.graph, machine->largest_distance)
              : write_peer_graph(graph_file.string(), io::read_matrix(matrix_file),
                                 machine->largest_distance);
    }
    tool.note =
        graph_weights->exact ? "" : fmt::format("weights scaled by {:.3g}", graph_weights->scale);
  } catch (const std::exception& e) {
    tool.failure = std::string("cannot write the peers' graph: ") + e.what();
    return std::nullopt;
  }
  std::vector<std::string> argv{peer.path};
  for (std::string& word : peer.arguments(graph_file.string(), output.string(), *machine))
    argv.push_back(std::move(word));
  std::optional<Mapping> mapping;
  run_repeated(spawner, argv, output, dir / peer.label, options.repeat, options.timeout_seconds,
               tool, [&](const std::string&) {
                 if (!mapping) mapping = read_peer_mapping(output.string(), loaded.processes);
               });
  if (!tool.failure.empty()) mapping.reset();
  progress << (tool.ok() ? fmt::format("  {}: {:.3f} s, {:.1f} MiB", peer.title,
                                       tool.min_wall_seconds, tool.max_rss_mib)
                         : fmt::format("  {} FAILED: {}", peer.label, tool.failure))
           << std::endl;
  return mapping;
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

/// The mappings the external tools printed, read back.
struct ToolMappings {
  std::optional<Mapping> treematch;
  std::optional<Mapping> treematch_plain;
  std::optional<ScotchMapping> scotch;
  std::optional<ScotchMapping> scotch_cq;
  std::optional<ScotchMapping> scotch_b0;
  std::optional<Mapping> viem;
  std::optional<Mapping> sharedmap;
  std::vector<std::optional<Mapping>> presets;  ///< as CaseResult::presets
};

void cost_tool(ToolResult& tool, const CommGraph& graph, const Topology& topology,
               const Mapping& mapping) {
  try {
    tool.cost = evaluate_cost(graph, topology, mapping);
    std::tie(tool.max_load, tool.overloaded_leaves) = load_stats(mapping, topology.leaf_count());
  } catch (const std::exception& e) {
    tool.failure = std::string("cannot cost the mapping: ") + e.what();
  }
}

/// Costs the mappings and runs the baselines on `graph`, on the `allowed` leaves (empty: all);
/// `planted`, when given, is costed as the extra baseline "planted", and `optimum`, when given,
/// as CaseResult::optimum.
void cost_everything(CaseResult& result, const CommGraph& graph, const Topology& topology,
                     const std::vector<Index>& allowed, const ToolMappings& mappings,
                     const std::optional<Mapping>& planted, const std::optional<Mapping>& optimum,
                     const BenchOptions& options) {
  if (mappings.treematch) cost_tool(result.treematch, graph, topology, *mappings.treematch);
  if (mappings.treematch_plain)
    cost_tool(result.treematch_plain, graph, topology, *mappings.treematch_plain);
  if (mappings.scotch) cost_tool(result.scotch, graph, topology, mappings.scotch->mapping);
  if (mappings.scotch_cq) cost_tool(result.scotch_cq, graph, topology, mappings.scotch_cq->mapping);
  if (mappings.scotch_b0) cost_tool(result.scotch_b0, graph, topology, mappings.scotch_b0->mapping);
  if (mappings.viem) cost_tool(result.viem, graph, topology, *mappings.viem);
  if (mappings.sharedmap) cost_tool(result.sharedmap, graph, topology, *mappings.sharedmap);
  for (std::size_t i = 0; i < mappings.presets.size(); ++i) {
    if (mappings.presets[i])
      cost_tool(result.presets[i].tool, graph, topology, *mappings.presets[i]);
  }
  if (optimum) {
    try {
      result.optimum = evaluate_cost(graph, topology, *optimum);
    } catch (const std::exception& e) {
      result.error = std::string("cannot cost the nested block optimum: ") + e.what();
      return;
    }
  }
  const Index p = graph.size();
  std::vector<Index> slots;
  try {
    slots = usable_slots(topology, allowed, /*per_leaf=*/1);
  } catch (const std::exception& e) {
    result.error = std::string("usable_slots: ") + e.what();
    return;
  }
  add_baseline(result, "packed", graph, topology, [&] { return packed_mapping(p, slots); });
  add_baseline(result, "round-robin", graph, topology,
               [&] { return round_robin_mapping(p, topology, slots); });
  add_baseline(result, "random", graph, topology,
               [&] { return random_mapping(p, slots, options.seed); });
  if (p <= options.mpipp_max_processes && !options.presets_only) {
    add_baseline(result, "MPIPP.5", graph, topology,
                 [&] { return mpipp_mapping(graph, topology, slots, /*starts=*/5, options.seed); });
  } else {
    result.baselines.push_back(BaselineResult{
        "MPIPP.5",
        {},
        0.0,
        options.presets_only
            ? std::string("--presets-only")
            : fmt::format("p = {} > {} (--mpipp-max-p)", p, options.mpipp_max_processes)});
  }
  if (planted) add_baseline(result, "planted", graph, topology, [&] { return *planted; });
}

/// The one-process-per-core Scotch run of least weighted cost (any run when none is one to one).
const ScotchMapping* best_scotch(const CaseResult& result, const ToolMappings& mappings) {
  const ScotchMapping* best = nullptr;
  double best_cost = 0.0;
  bool best_one_to_one = false;
  const std::pair<const ToolResult*, const std::optional<ScotchMapping>*> runs[] = {
      {&result.scotch, &mappings.scotch},
      {&result.scotch_cq, &mappings.scotch_cq},
      {&result.scotch_b0, &mappings.scotch_b0}};
  for (const auto& [tool, mapping] : runs) {
    if (!tool->ok() || !*mapping) continue;
    const bool one_to_one = (*mapping)->max_load <= 1;
    if (!best || (one_to_one && !best_one_to_one) ||
        (one_to_one == best_one_to_one && tool->cost.weighted < best_cost)) {
      best = &**mapping;
      best_cost = tool->cost.weighted;
      best_one_to_one = one_to_one;
    }
  }
  return best;
}

/// --simulate: treematch's two objectives, the best Scotch run, packed and random through SMPI on
/// the case's tree and its default link model (fat-tree, as treematch's own).
void simulate_case(CaseResult& result, const CommGraph& graph, const Topology& topology,
                   const CaseSpec& spec, const ToolMappings& mappings,
                   const std::optional<Mapping>& congestion, const BenchOptions& options,
                   const fs::path& dir, Spawner& spawner, std::ostream& progress) {
  std::vector<NamedMapping> named;
  if (mappings.treematch) named.push_back({"treematch-sum", *mappings.treematch});
  if (congestion) named.push_back({"treematch-congestion", *congestion});
  if (const ScotchMapping* scotch = best_scotch(result, mappings))
    named.push_back({"scotch", scotch->mapping});
  try {
    const std::vector<Index> slots = usable_slots(topology, {}, /*per_leaf=*/1);
    named.push_back({"packed", packed_mapping(graph.size(), slots)});
    named.push_back({"random", random_mapping(graph.size(), slots, options.seed)});
    result.simulated =
        simulate_mappings(named, graph, topology, preset_link_model(topology, LinkPreset::kFatTree),
                          spec.simulation_byte_scale, *options.simulation, dir, spawner, progress);
  } catch (const std::exception& e) {
    result.simulation_error = e.what();
    progress << "  simulation not run: " << result.simulation_error << std::endl;
  }
}

}  // namespace

CaseResult run_case(const CaseSpec& spec, const BenchOptions& options, const fs::path& work_dir,
                    Spawner& spawner, std::ostream& progress) {
  CaseResult result;
  result.name = spec.name;
  result.series = spec.series;
  std::optional<LoadedCase> loaded;
  try {
    const auto start = Clock::now();
    loaded.emplace(load_case(spec, options.data_dir, options.seed, options.unit_costs));
    progress << fmt::format("  loaded in {:.2f} s", seconds_since(start)) << std::endl;
  } catch (const std::exception& e) {
    result.error = e.what();
    progress << "  not run: " << result.error << std::endl;
    return result;
  }
  const Topology& topology = loaded->topology;
  const Index p = loaded->processes;
  result.matrix_origin = loaded->matrix_origin;
  result.topology_spec = loaded->topology_spec;
  result.topology_tleaf = topology.to_tleaf();
  result.processes = p;
  result.entries = loaded->entries;
  result.leaves = topology.leaf_count();
  progress << fmt::format("  {} processes, {} entries; {} leaves ({})", p, result.entries,
                          topology.leaf_count(), result.topology_tleaf)
           << std::endl;
  if (p > topology.leaf_count()) {
    result.error = fmt::format("{} processes do not fit {} leaves", p, topology.leaf_count());
    return result;
  }

  const fs::path dir = work_dir / spec.name;
  const fs::path scotch_graph = dir / "graph.grf";
  const fs::path scotch_target = dir / "target.tgt";
  const std::string scotch_skip = scotch_skip_reason(*loaded, options);
  std::string matrix_file;
  fs::path cores_file;  // the job's cores (--cores) on a restricted machine
  try {
    fs::create_directories(dir);
    const auto start = Clock::now();
    matrix_file = write_treematch_input(spec, *loaded, options, dir, result.matrix_file);
    if (!loaded->allowed_leaves.empty()) {
      cores_file = dir / "cores.txt";
      write_text_file(cores_file.string(),
                      fmt::format("{}\n", fmt::join(loaded->allowed_leaves, ",")));
    }
    result.scotch_target = scotch_tleaf(topology);
    if (scotch_skip.empty()) {
      if (loaded->graph) {
        result.scotch_weights = write_scotch_graph(scotch_graph.string(), *loaded->graph);
      } else {
        const HierarchicalPattern& dense = *loaded->dense;
        result.scotch_weights = write_scotch_graph_dense(
            scotch_graph.string(), dense.size(),
            [&](Index row, std::span<double> values) { dense.fill_row(row, values); });
      }
      write_text_file(scotch_target.string(), result.scotch_target + "\n");
    }
    result.write_seconds = seconds_since(start);
    progress << fmt::format("  wrote {}{} in {:.2f} s", result.matrix_file,
                            scotch_skip.empty() ? " and Scotch files" : "", result.write_seconds)
             << std::endl;
  } catch (const std::exception& e) {
    result.error = std::string("cannot write the input files: ") + e.what();
    return result;
  }

  // treematch, as a user runs it, with its JSON report for the phase timings: refined, then not.
  ToolMappings mappings;
  const auto run_tm = [&](ToolResult& tool, const std::string& name,
                          const std::vector<std::string>& flags) {
    std::vector<std::string> all_flags = flags;
    if (!cores_file.empty()) {
      all_flags.emplace_back("--cores");
      all_flags.push_back(cores_file.string());
    }
    if (spec.node_size > 0) {
      all_flags.emplace_back("--node-size");
      all_flags.push_back(std::to_string(spec.node_size));
    }
    std::optional<Mapping> mapping =
        run_treematch(spawner, options, matrix_file, loaded->topology_spec, options.threads,
                      options.repeat, dir / name, p, topology.leaf_count(), tool, all_flags);
    if (mapping) {
      const PhaseSeconds phases = tool.fastest_phases();
      progress << fmt::format(
                      "  {}: {:.3f} s (read {:.3f}, topology {:.3f}, mapping {:.3f}), {:.1f} MiB",
                      name, tool.min_wall_seconds, phases.read, phases.topology, phases.mapping,
                      tool.max_rss_mib)
               << std::endl;
    } else {
      progress << "  " << name << " FAILED: " << tool.failure << std::endl;
    }
    return mapping;
  };
  if (options.presets_only) {
    result.treematch.failure = result.treematch_plain.failure = "n/a: --presets-only";
  } else {
    mappings.treematch = run_tm(result.treematch, "treematch", {"--refine"});
    mappings.treematch_plain = run_tm(result.treematch_plain, "treematch-plain", {"--no-refine"});
  }

  // Scotch's static mapping onto the tleaf of the same shape and link costs.
  const auto run_scotch = [&](ToolResult& sc, const char* name,
                              const std::vector<std::string>& args) {
    std::optional<ScotchMapping> mapping;
    if (!scotch_skip.empty()) {
      sc.failure = scotch_skip;
      progress << "  " << name << ": " << scotch_skip << std::endl;
      return mapping;
    }
    std::vector<std::string> argv{options.scotch};
    argv.insert(argv.end(), args.begin(), args.end());
    const fs::path output = dir / (std::string(name) + ".map");
    for (const fs::path& file : {scotch_graph, scotch_target, output})
      argv.push_back(file.string());
    std::string first_text;
    run_repeated(spawner, argv, output, dir / name, options.repeat, options.timeout_seconds, sc,
                 [&](const std::string& text) {
                   if (!mapping) {
                     mapping = read_scotch_mapping(output.string(), p, topology.leaf_count());
                     first_text = text;
                   } else if (text != first_text) {
                     sc.varied = true;
                   }
                 });
    if (!sc.failure.empty()) mapping.reset();
    progress << (sc.ok() ? fmt::format("  {}: {:.3f} s, {:.1f} MiB, max load {}", name,
                                       sc.min_wall_seconds, sc.max_rss_mib,
                                       mapping ? mapping->max_load : 0)
                         : fmt::format("  {} FAILED: {}", name, sc.failure))
             << std::endl;
    return mapping;
  };
  ToolResult& tm = result.treematch;
  ToolResult& sc = result.scotch;
  mappings.scotch = run_scotch(sc, "scotch", options.scotch_args);
  if (options.scotch_cq) {
    std::vector<std::string> args = options.scotch_args;
    args.emplace_back("-cq");
    mappings.scotch_cq = run_scotch(result.scotch_cq, "scotch-cq", args);
  }
  if (options.scotch_b0) {
    std::vector<std::string> args = options.scotch_args;
    args.emplace_back("-cq");
    args.emplace_back("-b0");
    mappings.scotch_b0 = run_scotch(result.scotch_b0, "scotch-b0", args);
  }

  std::optional<PeerWeights> peer_graph;
  mappings.viem = run_peer(viem_mapper(options), *loaded, options, matrix_file, dir, spawner,
                           result.viem, peer_graph, progress);
  mappings.sharedmap = run_peer(sharedmap_mapper(options), *loaded, options, matrix_file, dir,
                                spawner, result.sharedmap, peer_graph, progress);

  // Each preset as a user runs it: `treematch map --preset P`, nothing else changed.
  for (const std::string& preset : options.presets) {
    result.presets.push_back(PresetResult{preset, {}, {}});
    mappings.presets.push_back(
        run_tm(result.presets.back().tool, "treematch-preset-" + preset, {"--preset", preset}));
    if (mappings.presets.back())
      result.presets.back().mapping_digest = mapping_digest(mappings.presets.back()->leaf_of_rank);
  }

  std::optional<Mapping> congestion;
  if (options.simulation) {
    congestion = run_tm(result.treematch_congestion, "treematch-congestion",
                        {"--refine", "--objective", "congestion"});
  }

  // The floor of a mapping's time: `treematch eval` reads the same file and costs a mapping,
  // given as a list of leaves (treematch's JSON report holds much more: parsing it took eval 11 s
  // and 1.1 GB on S3, against 4.8 s and 525 MB for the list).
  if (!options.presets.empty() && mappings.treematch) {
    ToolResult& eval = result.eval;
    const fs::path prefix = dir / "treematch-eval";
    const fs::path leaves_file = dir / "treematch.perm";
    write_text_file(leaves_file.string(), io::render_mapping(*mappings.treematch, topology,
                                                             io::OutputOptions{}, nullptr));
    std::vector<std::string> argv{
        options.treematch,     "eval",      "--matrix",           matrix_file, "--topology",
        loaded->topology_spec, "--mapping", leaves_file.string(), "--json"};
    if (options.threads > 0) {  // as the presets run
      argv.push_back("--threads");
      argv.push_back(std::to_string(options.threads));
    }
    run_repeated(spawner, argv, prefix.string() + ".stdout", prefix, options.repeat,
                 options.timeout_seconds, eval, [](const std::string& text) {
                   if (!nlohmann::json::parse(text).contains("weighted"))
                     throw std::runtime_error("no \"weighted\" cost");
                 });
    progress << (eval.ok() ? fmt::format("  treematch eval: {:.3f} s, {:.1f} MiB",
                                         eval.min_wall_seconds, eval.max_rss_mib)
                           : "  treematch eval FAILED: " + eval.failure)
             << std::endl;
  }

  // Costs and baselines, here on the same topology; a matrix not held is read back for them.
  const auto start = Clock::now();
  std::optional<Mapping> planted;
  if (loaded->dense) planted = Mapping{loaded->dense->slot_of_rank()};
  std::optional<Mapping> optimum;
  if (!options.presets.empty()) optimum = nested_block_optimum(spec, topology, options.seed);
  if (loaded->graph) {
    cost_everything(result, *loaded->graph, topology, loaded->allowed_leaves, mappings, planted,
                    optimum, options);
  } else {
    try {
      const CommGraph graph = io::read_matrix(matrix_file);
      progress << fmt::format("  read the matrix back for the costs in {:.2f} s ({} entries)",
                              seconds_since(start), graph.nnz())
               << std::endl;
      if (graph.size() != p || graph.nnz() != result.entries) {
        throw std::runtime_error(
            fmt::format("read back {} processes / {} entries, expected {} / {}", graph.size(),
                        graph.nnz(), p, result.entries));
      }
      cost_everything(result, graph, topology, loaded->allowed_leaves, mappings, planted, optimum,
                      options);
    } catch (const std::exception& e) {
      result.error = std::string("cannot read the matrix back for the costs: ") + e.what();
    }
  }
  if (tm.ok())
    progress << fmt::format("  treematch hop-bytes {:.6g}", tm.cost.hop_bytes) << std::endl;
  if (sc.ok()) progress << fmt::format("  scotch hop-bytes {:.6g}", sc.cost.hop_bytes) << std::endl;
  progress << fmt::format("  costs and baselines: {:.2f} s", seconds_since(start)) << std::endl;
  if (options.simulation && result.error.empty()) {
    if (loaded->graph) {
      simulate_case(result, *loaded->graph, topology, spec, mappings, congestion, options, dir,
                    spawner, progress);
    } else {
      result.simulation_error = "the matrix is not held (a dense generated case)";
    }
  }
  return result;
}

ThreadsResult run_thread_speedup(const CaseSpec& spec, const BenchOptions& options,
                                 const std::vector<int>& thread_counts, int repeat,
                                 const fs::path& work_dir, Spawner& spawner,
                                 std::ostream& progress) {
  ThreadsResult result;
  result.case_name = spec.name;
  result.repeat = repeat;
  const fs::path dir = work_dir / (spec.name + "-threads");
  std::string matrix_file;
  std::string topology_spec;
  Index leaves = 0;
  try {
    const LoadedCase loaded = load_case(spec, options.data_dir, options.seed, options.unit_costs);
    result.processes = loaded.processes;
    result.entries = loaded.entries;
    topology_spec = loaded.topology_spec;
    leaves = loaded.topology.leaf_count();
    fs::create_directories(dir);
    matrix_file = write_treematch_input(spec, loaded, options, dir, result.matrix_file);
  } catch (const std::exception& e) {
    result.error = e.what();
    progress << "  not run: " << result.error << std::endl;
    return result;
  }
  // Each thread count with `flags`; mappings compared with the first count's of the same flags.
  const auto run_counts = [&](const std::vector<std::string>& flags, const std::string& label) {
    std::vector<ThreadRun> runs;
    std::optional<Mapping> reference;
    for (const int threads : thread_counts) {
      ThreadRun run;
      run.threads = threads;
      const std::optional<Mapping> mapping = run_treematch(
          spawner, options, matrix_file, topology_spec, threads, repeat,
          dir / fmt::format("treematch{}-t{}", label.empty() ? "" : "-" + label, threads),
          result.processes, leaves, run.tool, flags);
      const std::string name = (label.empty() ? "" : "--preset " + label + " ") + "--threads";
      if (mapping) {
        if (!reference) {
          reference = mapping;
        } else {
          run.same_mapping = mapping->leaf_of_rank == reference->leaf_of_rank;
        }
        progress << fmt::format("  {} {}: mapping phase min {:.3f} s, wall min {:.3f} s", name,
                                threads, run.tool.min_mapping_seconds(), run.tool.min_wall_seconds)
                 << std::endl;
      } else {
        progress << fmt::format("  {} {} FAILED: {}", name, threads, run.tool.failure) << std::endl;
      }
      runs.push_back(std::move(run));
    }
    return runs;
  };
  result.runs = run_counts({}, "");
  for (const std::string& preset : options.presets)
    result.presets.push_back(PresetThreads{preset, run_counts({"--preset", preset}, preset)});
  return result;
}

}  // namespace treematch::bench
