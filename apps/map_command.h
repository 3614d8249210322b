// `treematch map`: read -> map -> write, with the cost next to the baselines on request.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/inputs.h"

namespace treematch::apps {

struct MapOptions {
  InputOptions input;
  std::string format = "perm";
  std::string output;  ///< empty = stdout
  std::string hosts;   ///< comma-separated names or a file, one per line
  bool compare = false;
  bool verbose = false;
  bool no_split = false;
  bool table2_only = false;
  bool refine = false;
  std::uint64_t seed = 1;
  int seeds_per_process = 0;  ///< 0 = the Context default
  int max_rounds = 0;         ///< 0 = the Context default
  std::string heuristics = "all";
  double mpipp_budget = 2.0e9;
  /// Under mpirun every rank computes the same mapping; only the writer (rank 0) writes and prints.
  bool writer = true;  ///< MPIPP runs when p^2 x average degree stays below this
};

CLI::App* add_map_command(CLI::App& app, MapOptions& options);
int run_map(const MapOptions& options);

}  // namespace treematch::apps
