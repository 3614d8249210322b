// `treematch map`: the TreeMatch mapping of a matrix onto a topology, in a launcher's format.
#include "apps/map_command.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/cli_checks.h"
#include "apps/link_loads_output.h"
#include "apps/map_report.h"
#include "apps/progress_display.h"
#include "apps/rank_usage.h"
#include "io/agreement.h"
#include "io/atomic_file.h"
#include "io/input_error.h"
#include "io/mapping_writer.h"
#include "io/report_writer.h"
#include "kernels/utility.h"
#include "src/driver/memory_estimate.h"
#include "src/driver/treematch.h"
#include "src/model/cost.h"
#include "src/mpi/mpi_environment.h"
#include "src/report/baselines.h"

namespace treematch::apps {
namespace {

using Clock = std::chrono::steady_clock;

using kernels::seconds_since;

}  // namespace

std::vector<std::string> parse_hosts(const std::string& spec) {
  std::vector<std::string> hosts;
  if (spec.empty()) return hosts;
  std::ifstream file(spec);
  std::string item;
  if (file) {
    while (file >> item) hosts.push_back(item);
    return hosts;
  }
  std::stringstream list(spec);
  while (std::getline(list, item, ',')) {
    if (!item.empty()) hosts.push_back(item);
  }
  return hosts;
}

namespace {

nlohmann::json cost_json(const CostRow& row, const Topology& topology) {
  nlohmann::json j{
      {"hop_bytes", row.cost.hop_bytes}, {"weighted", row.cost.weighted}, {"seconds", row.seconds}};
  if (row.links) j["links"] = link_loads_json(*row.links, topology);
  if (!row.note.empty()) j = nlohmann::json{{"skipped", row.note}};
  return j;
}

std::vector<CostRow> baselines(const Inputs& inputs, const Context& ctx, const MapOptions& options,
                               bool mpipp) {
  const CommGraph& graph = inputs.whole_graph();
  const Index p = graph.size();
  const std::vector<Index> slots =
      usable_slots(inputs.topology, inputs.allowed_leaves, ctx.placement.oversubscribe);
  std::vector<CostRow> rows;
  auto timed = [&](const std::string& name, auto make) {
    const auto start = Clock::now();
    const Mapping mapping = make();
    const double seconds = seconds_since(start);
    rows.push_back(CostRow{name, evaluate_cost(graph, inputs.topology, mapping), seconds, "",
                           link_loads(graph, inputs.topology, inputs.links, mapping)});
  };
  timed("packed", [&] { return packed_mapping(p, slots); });
  timed("round-robin", [&] { return round_robin_mapping(p, inputs.topology, slots); });
  timed("random", [&] { return random_mapping(p, slots, ctx.baselines.seed); });
  if (!mpipp) return rows;
  const double work = static_cast<double>(slots.size()) * static_cast<double>(slots.size()) *
                      (p > 0 ? static_cast<double>(graph.nnz()) / p : 0.0);
  for (int starts : {1, 5}) {
    const std::string name = "MPIPP." + std::to_string(starts);
    if (work * starts > options.mpipp_budget) {
      rows.push_back(CostRow{name,
                             {},
                             0.0,
                             fmt::format("p^2 x degree x starts = {:.2g} > --mpipp-budget {:.2g}",
                                         work * starts, options.mpipp_budget),
                             std::nullopt});
      continue;
    }
    timed(name,
          [&] { return mpipp_mapping(graph, inputs.topology, slots, starts, ctx.baselines.seed); });
  }
  return rows;
}

/// The --verbose line of a walk level (without its newline).
std::string level_line(const LevelTrace& level) {
  return fmt::format(
      "level arity {:>4}: {:>8} processes (+{} artificial), {} candidates{}, {}, {:.3f} s",
      level.arity, level.order, level.artificial, level.candidates,
      level.exhaustive ? " (all subsets)" : "", level.heuristic, level.seconds);
}

/// The --verbose line of a strategy, printed as it ends.
std::string strategy_line(const StrategyTrace& strategy) {
  return fmt::format("  strategy {:<20} {:>3} candidates, best weighted {:.6g}, {:.3f} s\n",
                     strategy.strategy, strategy.candidates, strategy.best_weighted,
                     strategy.seconds);
}

/// --verbose: the progress line's steps, plus each walk level's and each strategy's line printed
/// below it as that level or strategy ends.
class VerboseProgress final : public ProgressObserver {
 public:
  explicit VerboseProgress(ProgressDisplay& display) : display_(display) {}
  void step(const std::string& what, double fraction) override { display_.step(what, fraction); }
  void strategy_ended(const StrategyTrace& trace) override { display_.print(strategy_line(trace)); }
  void level_ended(const std::string& what, const LevelTrace& level) override {
    display_.print("  " + what + " ended: " + level_line(level) + "\n");
  }

 private:
  ProgressDisplay& display_;
};

std::string summary(const MapOptions& options, const Inputs& inputs, const TreeMatchResult& result,
                    const std::vector<CostRow>& rows, double map_seconds,
                    const std::vector<RankUsage>& usage) {
  const Topology& topo = inputs.topology;
  const int ranks = distributed::size_of(options.input.comm);
  std::string text = fmt::format(
      "treematch: {} processes ({} entries{}) from {}{}\n"
      "  topology {} = {} leaves{}, {} per machine\n"
      "  read {:.3f} s, topology {:.3f} s, mapping {:.3f} s\n",
      inputs.processes(), inputs.entries(),
      inputs.was_symmetrised() ? ", directed: used as C + C^T" : "", options.input.matrix,
      ranks == 1           ? std::string()
      : inputs.distributed ? fmt::format(", distributed over {} ranks", ranks)
                           : fmt::format(", {} ranks, each reading it whole", ranks),
      topo.shape(), topo.leaf_count(),
      inputs.allowed_leaves.empty() ? ""
                                    : fmt::format(" ({} allowed)", inputs.allowed_leaves.size()),
      topo.leaves_per_machine(), inputs.read_seconds, inputs.topology_seconds, map_seconds);
  text += rank_usage_line(usage, inputs.read_seconds + inputs.topology_seconds + map_seconds);
  if (options.verbose) {
    if (!result.strategy.empty()) text += "  kept: " + result.strategy + "\n";
    for (const LevelTrace& level : result.levels) text += "  " + level_line(level) + "\n";
  }
  // The ratio is of the cost the mapping minimises: the weighted one when link costs differ
  // (hop-bytes is then only a count of links), else hop-bytes (the weighted cost is a multiple).
  const bool weighted = !topo.uniform_link_costs();
  const auto ranked = [&](const CostRow& row) {
    return weighted ? row.cost.weighted : row.cost.hop_bytes;
  };
  text += fmt::format("  {:<14}{:>18}{:>18}{:>18}{:>14}{:>14}{:>10}\n", "mapping", "hop-bytes",
                      "weighted", weighted ? "weighted / ours" : "hop-bytes / ours", "predicted s",
                      "congestion s", "seconds");
  const double ours = ranked(rows.front());
  for (const CostRow& row : rows) {
    if (!row.note.empty()) {
      text += fmt::format("  {:<14}skipped: {}\n", row.name, row.note);
      continue;
    }
    const auto link_value = [&](double LinkLoads::*field) {
      return row.links ? fmt::format("{:.4g}", (*row.links).*field) : std::string("-");
    };
    text += fmt::format("  {:<14}{:>18.6g}{:>18.6g}{:>18.3f}{:>14}{:>14}{:>10.3f}\n", row.name,
                        row.cost.hop_bytes, row.cost.weighted, ours > 0 ? ranked(row) / ours : 1.0,
                        link_value(&LinkLoads::predicted_seconds),
                        link_value(&LinkLoads::congestion_norm), row.seconds);
  }
  if (rows.front().links) {
    text += fmt::format("  links ({}): treematch's {}\n", inputs.links.name,
                        link_loads_brief(*rows.front().links, topo));
  }
  return text;
}

/// "all" or a comma list of smallest, largest-last, degree.
void set_heuristics(const std::string& list, GroupingContext& grouping) {
  if (list == "all") return;
  grouping.smallest_value_first = grouping.largest_index_last = grouping.weighted_degree_first =
      false;
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item == "smallest") {
      grouping.smallest_value_first = true;
    } else if (item == "largest-last") {
      grouping.largest_index_last = true;
    } else if (item == "degree") {
      grouping.weighted_degree_first = true;
    } else {
      throw io::InputError(
          "--heuristics", "unknown heuristic '" + item + "' (all, smallest, largest-last, degree)");
    }
  }
}

}  // namespace

CLI::App* add_map_command(CLI::App& app, MapOptions& options) {
  CLI::App* map =
      app.add_subcommand("map", "compute the TreeMatch mapping of a matrix onto a topology");
  add_input_options(*map, options.input);
  map->add_option("--format,-f", options.format, "perm | rankfile | slurm | hydra | json")
      ->capture_default_str();
  map->add_option("--output,-o", options.output,
                  "output file (written atomically; default stdout)");
  map->add_option("--hosts", options.hosts, "host names of the machines: a,b,c or a file");
  map->add_option("--report", options.report,
                  "write an HTML report to DIR/index.html: costs against the baselines, traffic "
                  "per tree level, heat maps of the matrix (implies the --compare baselines)")
      ->check([](const std::string& dir) { return io::report_directory_problem(dir); });
  map->add_flag("--compare", options.compare,
                "also cost packed, round-robin, random, MPIPP.1 and MPIPP.5");
  map->add_flag("--verbose,-v", options.verbose, "print the options and per-level details");
  map->add_flag("--quiet,-q", options.quiet,
                "no progress line (shown on a terminal when the run takes more than a second)");
  map->add_flag_callback(
      "--refine",
      [&options] {
        options.refine = true;
        options.refine_given = true;
      },
      "after TreeMatch, exchange processes and whole subtrees while the weighted cost drops "
      "(default on for matrices of at most --gather-entries entries: it needs every row)");
  map->add_flag_callback(
      "--no-refine",
      [&options] {
        options.refine = false;
        options.refine_given = true;
      },
      "skip the refinement");
  map->add_option("--preset", options.preset,
                  "fast | default | strong: how much time the mapping may take (the options "
                  "below change the preset's settings; --verbose prints them)")
      ->capture_default_str();
  map->add_option("--objective", options.objective,
                  "sum: the weighted cost (bytes x distance), equal costs going to the less "
                  "congested mapping; congestion: then lower the congestion norm of the link "
                  "loads (--link-model), the weighted cost rising by objective.sum_tolerance (1%) "
                  "at most")
      ->capture_default_str();
  map->add_option("--set", options.settings,
                  "NAME=VALUE: change one option of the preset, by the name --verbose prints "
                  "(e.g. partition.attempts=8, driver.strategies=bottom-up,identity); repeatable");
  map->add_flag("--no-split", options.no_split, "walk the tree's own arities only");
  map->add_flag(
      "--table2-split", options.table2_only,
      "walk only the arities split by Table 2 of the paper (default: both, keep the cheaper)");
  map->add_option("--candidates-per-process", options.seeds_per_process,
                  "neighbourhood candidates grown from each process (default 2)")
      ->check(at_least(1));
  map->add_option(
         "--partition-passes", options.partition_passes,
         "swap passes repairing each level's groups before aggregation (default 2, 0 = off)")
      ->check(at_least(0));
  map->add_option("--rounds", options.max_rounds,
                  "candidate rounds before the final packing (default 3)")
      ->check(at_least(1));
  map->add_option(
         "--heuristics", options.heuristics,
         "independent-set heuristics to try: all, or a comma list of smallest,largest-last,degree")
      ->capture_default_str();
  map->add_option("--seed", options.seed, "seed of the random and MPIPP baselines")
      ->capture_default_str();
  map->add_option("--mpipp-budget", options.mpipp_budget, "skip MPIPP above this p^2 x degree")
      ->capture_default_str();
  add_max_memory_option(*map, options);
  return map;
}

void add_max_memory_option(CLI::App& command, MapOptions& options) {
  command
      .add_option("--max-memory", options.max_memory,
                  "memory one process may take: auto (what the machine, or its control group, has "
                  "available, shared by this job's ranks on it), none (no check) or a size such "
                  "as 512M or 8G; a matrix whose mapping would need more is refused before it is "
                  "read")
      ->capture_default_str();
}

std::optional<MemoryBudget> map_memory_budget(const MapOptions& options, MPI_Comm comm) {
  const Context ctx = map_context(options, Inputs{});
  return memory_budget(
      options.max_memory, comm,
      [ctx](Index processes, Offset entries, int ranks) {
        return estimated_peak_bytes(processes, entries, ctx, ranks);
      },
      "--preset " + options.preset);
}

io::OutputOptions map_output_options(const MapOptions& options) {
  io::OutputOptions output{io::parse_output_format(options.format),
                           io::parse_numbering(options.input.numbering), parse_hosts(options.hosts),
                           options.input.hardware_threads};
  if (!options.output.empty() && options.output != "-") output.path = options.output;
  return output;
}

Context map_context(const MapOptions& options, const Inputs& inputs) {
  const std::optional<Preset> preset = parse_preset(options.preset);
  if (!preset) {
    throw io::InputError("--preset",
                         "unknown preset '" + options.preset + "'; use fast, default or strong");
  }
  Context ctx = preset_context(*preset);
  ctx.placement.oversubscribe = options.input.oversubscribe;
  ctx.placement.allowed_leaves = inputs.allowed_leaves;
  if (options.no_split) ctx.walk.split = AritySplit::kNever;
  if (options.table2_only) ctx.walk.split = AritySplit::kTable2;
  ctx.baselines.seed = options.seed;
  // The refinement and the top-down strategies need the whole matrix: the driver runs them on
  // matrices small enough to be held whole (the size at which the distributed levels gather it
  // anyway); --refine asks for them on any matrix, --no-refine drops the refinement.
  ctx.driver.whole_matrix_max_entries = options.input.gather_entries;
  if (options.refine_given) {
    ctx.refinement.swaps = options.refine;
    ctx.driver.whole_matrix_forced = options.refine;
  }
  const std::optional<Objective> objective = parse_objective(options.objective);
  if (!objective) {
    throw io::InputError("--objective",
                         "unknown objective '" + options.objective + "'; use sum or congestion");
  }
  ctx.objective.kind = *objective;
  ctx.objective.links = inputs.links;
  if (options.seeds_per_process > 0) ctx.grouping.seeds_per_process = options.seeds_per_process;
  if (options.max_rounds > 0) ctx.grouping.max_rounds = options.max_rounds;
  if (options.partition_passes >= 0) ctx.grouping.partition_passes = options.partition_passes;
  set_heuristics(options.heuristics, ctx.grouping);
  for (const std::string& setting : options.settings) {
    const std::size_t equal = setting.find('=');
    try {
      if (equal == std::string::npos) throw std::invalid_argument("expected NAME=VALUE");
      set_option(ctx, std::string_view(setting).substr(0, equal),
                 std::string_view(setting).substr(equal + 1));
    } catch (const std::invalid_argument& e) {
      throw io::InputError("--set", "'" + setting.substr(0, 60) + "': " + e.what());
    }
  }
  ctx.threads = options.input.threads;
  return ctx;
}

MapOutcome compute_mapping(const MapOptions& options, const Inputs& inputs, const Context& ctx,
                           Baselines which) {
  MapOutcome outcome;
  const auto start = Clock::now();
  outcome.result = inputs.distributed ? treematch_map(*inputs.distributed, inputs.topology, ctx)
                                      : treematch_map(inputs.graph, inputs.topology, ctx);
  outcome.map_seconds = seconds_since(start);

  // Link loads need the whole matrix: held unless distributed, gathered for the baselines.
  std::optional<LinkLoads> links;
  if (!inputs.distributed || which != Baselines::kNone) {
    links = link_loads(inputs.whole_graph(), inputs.topology, inputs.links, outcome.result.mapping);
  }
  outcome.rows.push_back(
      CostRow{"treematch", outcome.result.cost, outcome.map_seconds, "", std::move(links)});
  if (which != Baselines::kNone) {
    if (ctx.progress != nullptr) ctx.progress->step("costs of the baselines", -1.0);
    for (CostRow& row : baselines(inputs, ctx, options, /*mpipp=*/which == Baselines::kAll))
      outcome.rows.push_back(std::move(row));
  }

  outcome.report = nlohmann::json{{"matrix", options.input.matrix},
                                  {"processes", inputs.processes()},
                                  {"entries", inputs.entries()},
                                  {"topology",
                                   {{"spec", options.input.topology},
                                    {"tleaf", inputs.topology.to_tleaf()},
                                    {"leaves", inputs.topology.leaf_count()}}},
                                  {"seconds",
                                   {{"read", inputs.read_seconds},
                                    {"topology", inputs.topology_seconds},
                                    {"mapping", outcome.map_seconds}}}};
  outcome.report["link_model"] = describe(inputs.links);
  for (const CostRow& row : outcome.rows)
    outcome.report["costs"][row.name] = cost_json(row, inputs.topology);
  return outcome;
}

int run_map(const MapOptions& options) {
  io::OutputOptions output = map_output_options(options);
  ProgressDisplay progress("treematch map", options.writer && progress_wanted(options.quiet));
  progress.phase("reading the matrix and the topology");
  InputOptions input = options.input;
  // Agreed under mpirun: a bad --preset, --set or --max-memory is one line for the whole job.
  io::run_agreed(options.input.comm,
                 [&] { input.memory = map_memory_budget(options, options.input.comm); });
  const Inputs inputs = load_inputs(input);
  // Baselines and reports cost mappings the whole matrix decides: a distributed one is gathered
  // here, on every rank at once (the gather is collective).
  if (options.compare || !options.report.empty()) static_cast<void>(inputs.whole_graph());
  if (output.hosts.empty()) output.hosts = inputs.hosts;  // --topology allocation names its nodes
  output.open_mpi_alike = inputs.open_mpi_alike;

  Context ctx = map_context(options, inputs);
  VerboseProgress verbose(progress);
  const bool verbose_here = options.verbose && options.writer;  // once per job
  if (verbose_here) progress.print(describe(ctx));
  ctx.progress = verbose_here ? static_cast<ProgressObserver*>(&verbose) : &progress;
  progress.phase("mapping");

  MapOutcome outcome = compute_mapping(
      options, inputs, ctx,
      options.compare || !options.report.empty() ? Baselines::kAll : Baselines::kNone);
  // Under mpirun, what each rank used (collective): how far the job divided memory and work.
  std::vector<RankUsage> usage;
  if (distributed::size_of(options.input.comm) > 1) {
    usage = gather_rank_usage(options.input.comm);
    outcome.report["ranks"] = rank_usage_json(usage);
  }

  if (!options.writer) return 0;
  progress.phase("writing");
  const std::string text =
      io::render_mapping(outcome.result.mapping, inputs.topology, output, outcome.report);
  if (output.format == io::OutputFormat::kRankfile) {
    const std::string confusion =
        io::open_mpi_confusion(outcome.result.mapping, inputs.topology, output);
    if (!confusion.empty()) progress.print("treematch map: warning: " + confusion + "\n");
  }
  if (options.output.empty() || options.output == "-") {
    std::cout << text << std::flush;
  } else {
    io::write_file_atomically(options.output, text);
  }
  progress.stop();
  std::cerr << summary(options, inputs, outcome.result, outcome.rows, outcome.map_seconds, usage);
  if (!options.report.empty()) {
    const double seconds = write_map_report(options.report, options, inputs, ctx, outcome);
    std::cerr << fmt::format("  report {}/index.html written in {:.3f} s\n", options.report,
                             seconds);
  }
  return 0;
}

}  // namespace treematch::apps
