// What treematch-bench measured for each case, and how it is printed (tables) and saved (JSON).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/bench/graph_files.h"
#include "src/cost.h"

namespace treematch::bench {

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

  [[nodiscard]] bool ok() const { return attempted && failure.empty(); }
};

/// A mapping computed in the benchmark process (src/baselines.h).
struct BaselineResult {
  std::string name;
  MappingCost cost;
  double seconds = 0.0;
  std::string skipped;  ///< why it did not run; empty = ran

  [[nodiscard]] bool ok() const { return skipped.empty(); }
};

struct CaseResult {
  std::string name;
  std::string error;  ///< the case could not be set up (missing data, bad topology, ...)
  std::string matrix_origin;
  std::string topology_spec;
  std::string topology_tleaf;  ///< Topology::to_tleaf() of what was read
  std::string scotch_target;   ///< the uniform tleaf given to Scotch
  std::string matrix_file;     ///< format of the file written for treematch ("dense .mat", "METIS")
  Index processes = 0;
  long long entries = 0;  ///< stored non-zeros of the symmetric matrix (both directions)
  Index leaves = 0;
  ScotchWeights scotch_weights;
  ToolResult treematch;
  ToolResult scotch;
  std::vector<BaselineResult> baselines;  ///< packed, round-robin, random, MPIPP.5
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
};

/// The main table: one row per case with hop-bytes, wall times, peak RSS and Scotch's max load,
/// followed by numbered notes for failures.
std::string render_table(const std::vector<CaseResult>& results);

/// The same mappings' link-cost-weighted costs on each case's own topology.
std::string render_weighted_table(const std::vector<CaseResult>& results);

/// Everything, for --json.
nlohmann::json to_json(const RunInfo& info, const std::vector<CaseResult>& results);

}  // namespace treematch::bench
