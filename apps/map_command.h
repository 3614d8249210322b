// `treematch map`: read -> map -> write, with the cost next to the baselines on request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "apps/inputs.h"
#include "io/mapping_writer.h"
#include "src/driver/treematch.h"
#include "src/model/context.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"

namespace treematch::apps {

struct MapOptions {
  InputOptions input;
  std::string format = "perm";
  std::string preset = "default";     ///< --preset fast | default | strong
  std::vector<std::string> settings;  ///< --set NAME=VALUE, applied after the preset
  std::string objective = "sum";      ///< --objective sum | congestion
  std::string output;                 ///< empty = stdout
  std::string hosts;                  ///< comma-separated names or a file, one per line
  std::string report;                 ///< --report DIR: write DIR/index.html; empty = no report
  bool compare = false;
  bool verbose = false;
  bool quiet = false;  ///< no progress line on a terminal
  bool no_split = false;
  bool table2_only = false;
  bool refine = true;         ///< refine_mapping after TreeMatch (--no-refine: off)
  bool refine_given = false;  ///< --refine or --no-refine was given
  std::uint64_t seed = 1;
  int seeds_per_process = 0;  ///< 0 = the Context default
  int max_rounds = 0;         ///< 0 = the Context default
  int partition_passes = -1;  ///< -1 = the Context default
  std::string heuristics = "all";
  std::string max_memory = "auto";  ///< --max-memory: auto | none | a size per process
  double mpipp_budget = 2.0e9;
  /// Under mpirun every rank computes the same mapping; only the writer (rank 0) writes and prints.
  bool writer = true;  ///< MPIPP runs when p^2 x average degree stays below this
};

CLI::App* add_map_command(CLI::App& app, MapOptions& options);
int run_map(const MapOptions& options);

/// Registers --max-memory (map and batch).
void add_max_memory_option(CLI::App& command, MapOptions& options);

/// The memory budget of mapping with `options` (the need from their preset and settings) for a
/// process of the job `comm` (MPI_COMM_NULL: alone): collective over `comm`. Throws
/// io::InputError for a bad --preset, --set or --max-memory.
std::optional<MemoryBudget> map_memory_budget(const MapOptions& options, MPI_Comm comm);

/// The cost of one mapping of the matrix: TreeMatch's or a baseline's.
struct CostRow {
  std::string name;  ///< "treematch", "packed", "round-robin", "random", "MPIPP.1", "MPIPP.5"
  MappingCost cost;
  double seconds = 0.0;
  std::string note;  ///< why a baseline did not run (then `cost` is zero)
  /// Its loads on the links of Inputs::links; none in a distributed run without baselines (the
  /// whole matrix is not held).
  std::optional<LinkLoads> links;
};

/// Which baselines compute_mapping costs besides TreeMatch.
enum class Baselines {
  kNone,   ///< TreeMatch only (`map` without --compare)
  kCheap,  ///< packed, round-robin and random (`batch`)
  kAll,    ///< the cheap ones, then MPIPP.1 and MPIPP.5 within --mpipp-budget (`map --compare`)
};

/// What `treematch map` computes for one matrix, before it renders anything.
struct MapOutcome {
  TreeMatchResult result;
  double map_seconds = 0.0;   ///< treematch_map alone
  std::vector<CostRow> rows;  ///< "treematch" first, then the baselines in the order above
  nlohmann::json report;      ///< matrix, sizes, topology, seconds and costs (--format json)
};

/// Host names from --hosts: "a,b,c", or a file of whitespace-separated names; "" = none.
std::vector<std::string> parse_hosts(const std::string& spec);

/// The launcher output settings of `options` (--format, --numbering, --hosts); throws InputError.
io::OutputOptions map_output_options(const MapOptions& options);

/// The Context `treematch map` maps with for these options and inputs; throws InputError for an
/// unknown --heuristics item.
Context map_context(const MapOptions& options, const Inputs& inputs);

/// Maps inputs.graph onto inputs.topology with `ctx` and costs the mapping and the requested
/// baselines, exactly as `treematch map` does (options.input.matrix names the matrix in the
/// report). Throws std::invalid_argument when the processes do not fit.
MapOutcome compute_mapping(const MapOptions& options, const Inputs& inputs, const Context& ctx,
                           Baselines baselines);

}  // namespace treematch::apps
