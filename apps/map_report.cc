// `treematch map --report DIR`: gathers the report's data from one run and writes the page.
#include "apps/map_report.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "io/report_writer.h"
#include "kernels/utility.h"
#include "src/report/baselines.h"
#include "src/report/binned_matrix.h"

namespace treematch::apps {
namespace {

using Clock = std::chrono::steady_clock;

using kernels::seconds_since;

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}

std::string or_default(const std::string& value, const std::string& fallback) {
  return value.empty() ? fallback : value;
}

std::string count_or_default(long long value, const std::string& fallback) {
  return value > 0 ? std::to_string(value) : fallback;
}

std::string describe_mapping(const std::string& name, const MapOptions& options,
                             const TreeMatchResult& result) {
  if (name == "treematch") {
    std::string text = "this run's mapping";
    if (options.refine) text += fmt::format(", refined ({} swaps)", result.refinement_swaps);
    if (result.identity_kept) text += "; the identity, as TreeMatch found nothing cheaper";
    return text;
  }
  if (name == "packed") return "rank i on the i-th usable core in logical order: the identity";
  if (name == "round-robin") return "rank i on the i-th usable core in OS-index order";
  if (name == "random") return fmt::format("uniformly random cores (seed {})", options.seed);
  if (name.starts_with("MPIPP.")) {
    return fmt::format("random starts + pairwise swaps (Chen et al.), best of {}",
                       name.substr(name.find('.') + 1));
  }
  return "";
}

std::vector<ReportField> input_fields(const MapOptions& options, const Inputs& inputs) {
  const Topology& topology = inputs.topology;
  const CommGraph& graph = inputs.whole_graph();
  std::vector<ReportField> fields{
      {"matrix", options.input.matrix},
      {"metric", options.input.metric},
      {"processes (p)", std::to_string(graph.size())},
      {"stored entries (nnz)",
       fmt::format("{}{}", graph.nnz(),
                   graph.was_symmetrised() ? " (directed input, used as C + C^T)" : "")},
      {"total volume", fmt::format("{:.6g}", graph.total_volume())},
      {"topology", or_default(options.input.topology, "this machine (hwloc)")},
      {"tree", fmt::format("{} = {} leaves, {} per machine", topology.shape(),
                           topology.leaf_count(), topology.leaves_per_machine())},
      {"as tleaf", topology.to_tleaf()},
  };
  if (!inputs.allowed_leaves.empty()) {
    fields.push_back({"usable cores", std::to_string(inputs.allowed_leaves.size())});
  }
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  fields.push_back({"generated", fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(now))});
  return fields;
}

std::vector<ReportField> option_fields(const MapOptions& options) {
  const InputOptions& input = options.input;
  return {
      {"--format", options.format},
      {"--output", or_default(options.output, "stdout")},
      {"--numbering", input.numbering},
      {"--cores", or_default(input.cores, "all")},
      {"--oversubscribe", std::to_string(input.oversubscribe)},
      {"--node-size", count_or_default(input.node_size, "from the topology")},
      {"--threads", count_or_default(input.threads, "all cores")},
      {"--refine", yes_no(options.refine)},
      {"arity splitting", options.no_split      ? "tree arities only (--no-split)"
                          : options.table2_only ? "Table 2 only (--table2-split)"
                                                : "both walks, cheaper kept"},
      {"--heuristics", options.heuristics},
      {"--candidates-per-process", count_or_default(options.seeds_per_process, "default")},
      {"--rounds", count_or_default(options.max_rounds, "default")},
      {"--partition-passes",
       options.partition_passes >= 0 ? std::to_string(options.partition_passes) : "default"},
      {"--seed", std::to_string(options.seed)},
      {"--mpipp-budget", fmt::format("{:.3g}", options.mpipp_budget)},
  };
}

}  // namespace

MappingReport build_map_report(const MapOptions& options, const Inputs& inputs, const Context& ctx,
                               const MapOutcome& outcome) {
  const auto start = Clock::now();
  const CommGraph& graph = inputs.whole_graph();
  const Topology& topology = inputs.topology;
  const Mapping& mapped = outcome.result.mapping;

  MappingReport report;
  report.title = fmt::format("{} ({} ranks) on {}",
                             std::filesystem::path(options.input.matrix).filename().string(),
                             graph.size(), topology.shape());
  report.inputs = input_fields(options, inputs);
  report.levels = topology.levels();
  report.machine_level = topology.machine_level();
  report.options = option_fields(options);
  report.context = describe(ctx);
  report.link_model = describe(inputs.links);

  double baseline_seconds = 0.0;
  for (const CostRow& row : outcome.rows) {
    report.costs.push_back(ReportCost{row.name, describe_mapping(row.name, options, outcome.result),
                                      row.cost, row.seconds, row.note, row.links});
    if (row.name != "treematch") baseline_seconds += row.seconds;
  }

  // The identity: rank i on the i-th usable slot, which is the packed baseline.
  const Mapping identity = packed_mapping(
      graph.size(), usable_slots(topology, inputs.allowed_leaves, ctx.placement.oversubscribe));
  report.reference_name = "identity (packed)";
  report.mapped_name = "treematch";
  report.traffic = level_traffic(graph, topology, identity, mapped);
  report.rank_order = bin_in_rank_order(graph, kHeatMapCells);
  report.identity_ranks_per_leaf = inputs.allowed_leaves.empty() ? ctx.placement.oversubscribe : 0;
  report.mapped_order = bin_in_mapped_order(graph, mapped, topology.leaf_count(), kHeatMapCells);

  report.seconds = {{"read the matrix", inputs.read_seconds},
                    {"read the topology", inputs.topology_seconds},
                    {"TreeMatch mapping", outcome.map_seconds},
                    {"baseline mappings", baseline_seconds},
                    {"report data", seconds_since(start)}};
  return report;
}

double write_map_report(const std::string& dir, const MapOptions& options, const Inputs& inputs,
                        const Context& ctx, const MapOutcome& outcome) {
  const auto start = Clock::now();
  const MappingReport report = build_map_report(options, inputs, ctx, outcome);
  io::write_report_directory(dir, io::render_report_html(report));
  return seconds_since(start);
}

}  // namespace treematch::apps
