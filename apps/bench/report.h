// What treematch-bench measured for each case, and how it is printed (tables) and saved (JSON).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/bench/graph_files.h"
#include "apps/bench/simulation_runner.h"
#include "src/model/cost.h"

namespace treematch::bench {

/// The phases treematch times itself (the "seconds" of its JSON report).
struct PhaseSeconds {
  double read = 0.0;      ///< reading the matrix
  double topology = 0.0;  ///< reading / building the topology
  double mapping = 0.0;   ///< treematch_map
};

/// One external mapper (treematch or Scotch) on one case, over --repeat runs.
struct ToolResult {
  bool attempted = false;
  std::string failure;  ///< why there is no result ("n/a: ..." when not run); empty = ok
  std::vector<double> wall_seconds;  ///< every run
  double min_wall_seconds = 0.0;
  double max_rss_mib = 0.0;  ///< the largest peak RSS over the runs
  MappingCost cost;
  Index max_load = 0;           ///< most processes on one leaf
  Index overloaded_leaves = 0;  ///< leaves holding more than one process
  bool varied = false;          ///< the runs did not all print the same mapping
  std::string command;          ///< the command line of a run, for the record
  std::string log_tail;         ///< the end of the command's stderr
  std::string note;  ///< how the input was adapted for the tool (peers: scaled weights), or ""
  std::vector<PhaseSeconds> phases;  ///< treematch: its own timings, one per run (as wall_seconds)
  double reported_hop_bytes = -1.0;  ///< treematch: the hop-bytes its report gives (< 0: none)

  /// The phases of the run with the smallest wall time (zeros when there are none).
  [[nodiscard]] PhaseSeconds fastest_phases() const;
  /// The smallest mapping phase over the runs (0 when there are none).
  [[nodiscard]] double min_mapping_seconds() const;

  [[nodiscard]] bool ok() const { return attempted && failure.empty(); }
};

/// A mapping computed in the benchmark process (src/report/baselines.h).
struct BaselineResult {
  std::string name;
  MappingCost cost;
  double seconds = 0.0;
  std::string skipped;  ///< why it did not run; empty = ran

  [[nodiscard]] bool ok() const { return skipped.empty(); }
};

/// `treematch map --preset P` on one case (--preset).
struct PresetResult {
  std::string preset;  ///< fast, default or strong
  ToolResult tool;
  std::string mapping_digest;  ///< mapping_digest of its mapping; empty when it failed
};

struct CaseResult {
  std::string name;
  std::string series;  ///< CaseSpec::series
  std::string error;   ///< the case could not be set up (missing data, bad topology, ...)
  std::string matrix_origin;
  std::string topology_spec;
  std::string topology_tleaf;  ///< Topology::to_tleaf() of what was read
  std::string scotch_target;   ///< the uniform tleaf given to Scotch
  std::string matrix_file;     ///< format of the file written for treematch ("dense .mat", "METIS")
  double write_seconds = 0.0;  ///< writing the input files for treematch and Scotch
  Index processes = 0;
  long long entries = 0;  ///< stored non-zeros of the symmetric matrix (both directions)
  Index leaves = 0;
  ScotchWeights scotch_weights;
  ToolResult treematch;        ///< `treematch map --refine`
  ToolResult treematch_plain;  ///< `treematch map --no-refine`
  ToolResult scotch;           ///< scotch_gmap (the run's --scotch-args)
  ToolResult scotch_cq;        ///< scotch_gmap ... -cq (not attempted with --no-scotch-cq)
  ToolResult scotch_b0;        ///< scotch_gmap ... -cq -b0: one process per core (--no-scotch-b0)
  ToolResult viem;             ///< VieM strong (--viem), on full trees of p cores
  ToolResult sharedmap;        ///< SharedMap strong (--sharedmap), likewise
  std::vector<BaselineResult> baselines;  ///< packed, round-robin, random, MPIPP.5
  std::vector<PresetResult> presets;      ///< one per --preset, in the order given; none without
  /// With --preset: `treematch eval` of treematch's input file and its mapping, one read of the
  /// matrix and one pass over it, the floor any mapping pays; the presets' times are given as
  /// ratios to its time.
  ToolResult eval;
  /// The cost of the nested block mapping (nested_block_mapping), the optimum of the stencil cases
  /// whose grid and machine fit the benchmark's boxes; computed only with --preset.
  std::optional<MappingCost> optimum;
  /// --simulate: `treematch map --refine --objective congestion`.
  ToolResult treematch_congestion;
  /// --simulate: treematch (sum, congestion), Scotch, packed and random simulated, in that order.
  std::vector<SimulatedMapping> simulated;
  std::string
      simulation_error;  ///< why the case was not simulated; empty = it was (or no --simulate)
};

/// One thread count of the thread speedup measurement.
struct ThreadRun {
  int threads = 0;
  ToolResult tool;           ///< its runs (phases included)
  bool same_mapping = true;  ///< the mapping equals that of the first thread count
};

/// The thread counts of one preset (`--preset P --threads k`).
struct PresetThreads {
  std::string preset;
  std::vector<ThreadRun> runs;  ///< same_mapping: equal to this preset's first thread count's
};

/// `treematch map --threads k` on one case for a few k, --format json, mapping phase timed.
struct ThreadsResult {
  std::string case_name;
  std::string error;  ///< the case could not be set up
  Index processes = 0;
  long long entries = 0;
  std::string matrix_file;
  int repeat = 1;
  std::vector<ThreadRun> runs;         ///< without --preset
  std::vector<PresetThreads> presets;  ///< one per --preset, in the order given; none without
};

/// Settings and environment of the run, printed above the table and saved in the JSON.
struct RunInfo {
  std::string treematch;
  std::string scotch;       ///< empty when not found
  std::string scotch_args;  ///< extra options given to scotch_gmap
  std::string data_dir;
  std::uint64_t seed = 0;
  int threads = 0;
  int repeat = 1;
  double rss_floor_mib = 0.0;  ///< ru_maxrss reported for /bin/true launched the same way
  double total_seconds = 0.0;
  Index scotch_max_processes = 0;
  bool scotch_dense = false;
  bool unit_costs = false;           ///< --unit-costs: every link cost 1 for both tools
  std::vector<std::string> presets;  ///< --preset: each case also mapped with each of them
  double bench_peak_rss_mib = 0.0;   ///< this benchmark process's own ru_maxrss at the end
  std::string load_start;  ///< /proc/loadavg's 1, 5 and 15 minute averages when the run began
  std::string load_end;    ///< ... and when it ended (other work on the machine skews timings)
};

/// t = a x nnz^exponent fitted by least squares on (log nnz, log t).
struct PowerFit {
  double exponent = 0.0;
  double coefficient = 0.0;  ///< a
  int points = 0;
};

/// The fit over the points with x > 0 and y > 0; nullopt with fewer than two distinct x.
std::optional<PowerFit> fit_power_law(const std::vector<double>& x, const std::vector<double>& y);

/// Which cost a table shows.
enum class CostKind { kWeighted, kHopBytes };

/// The quality table: one row per case with the cost (weighted on the case's own topology, or
/// hop-bytes) of treematch refined and not, both Scotch runs, packed (= the identity), round-robin
/// and MPIPP.5, treematch's ratio to the better Scotch run and to its unrefined run, and Scotch's
/// max loads; numbered notes for failures follow (weighted table only).
std::string render_table(const std::vector<CaseResult>& results, CostKind kind);

/// Wall times (and treematch's mapping phase) of every mapper, and peak RSS.
std::string render_times(const std::vector<CaseResult>& results);

/// Geometric means of treematch / Scotch over the cases where both ran, cases where treematch is
/// costlier than Scotch or the identity, and the refined / unrefined time on S1.
std::string render_summary(const std::vector<CaseResult>& results);

/// Which file each case's matrix went to treematch in, one line per format.
std::string render_input_files(const std::vector<CaseResult>& results);

/// The cases of `series` that treematch mapped: time per entry and the fitted exponents of the
/// whole command's wall time and of the mapping phase against nnz. "" when the series has no case.
std::string render_series(const std::vector<CaseResult>& results, const std::string& series);

/// One preset's run on one case of a series.
struct SeriesPoint {
  std::string case_name;
  Index processes = 0;
  long long entries = 0;
  double wall_seconds = 0.0;     ///< the whole command (min over --repeat)
  double mapping_seconds = 0.0;  ///< its mapping phase
  std::optional<double> time_vs_eval;
  std::optional<double> cost_vs_optimum;

  [[nodiscard]] double wall_per_entry() const {
    return wall_seconds / static_cast<double>(entries);
  }
  [[nodiscard]] double mapping_per_entry() const {
    return mapping_seconds / static_cast<double>(entries);
  }
};

/// The runs of `preset` on the cases of `series` that it mapped, in case order.
std::vector<SeriesPoint> series_points(const std::vector<CaseResult>& results,
                                       const std::string& series, const std::string& preset);

/// How far a series' time per entry strays: "flat" when every point is within kFlatTolerance of
/// the median (issue 30's goal for the growth series: +-30% from 16k to 10M ranks).
inline constexpr double kFlatTolerance = 0.3;
struct Flatness {
  double median = 0.0;   ///< seconds per entry
  double lowest = 0.0;   ///< smallest / median
  double highest = 0.0;  ///< largest / median
  bool flat = false;
};
/// nullopt with fewer than two points.
std::optional<Flatness> flatness(const std::vector<double>& per_entry);

/// Per preset (--preset), the cases of `series` it mapped: the whole command's time and the
/// mapping phase per entry, the ratios to eval and to the optimum, then how far the times per
/// entry stray from their median and the fitted exponents. "" without preset runs.
std::string render_series_presets(const std::vector<CaseResult>& results,
                                  const std::string& series);

/// The presets table (--preset): per case and preset the weighted cost, its ratio to the cheaper
/// of Scotch default and -cq and to the optimum where known (CaseResult::optimum), the whole
/// command's wall time and its ratio to that Scotch run's, the mapping phase and peak RSS; then
/// per preset the geometric means of the cost and time ratios over the cases where Scotch ran.
/// "" when no case has preset runs.
std::string render_presets(const std::vector<CaseResult>& results);

/// The thread speedup table and the mapping-phase ratio of the first thread count to the others,
/// then the same for each preset.
std::string render_threads(const ThreadsResult& threads);

/// Everything, for --json (`threads` may be null).
nlohmann::json to_json(const RunInfo& info, const std::vector<CaseResult>& results,
                       const ThreadsResult* threads);

}  // namespace treematch::bench
