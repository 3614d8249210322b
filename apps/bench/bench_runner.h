// Runs one benchmark case: treematch and Scotch as timed subprocesses, the baselines in-process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "apps/bench/bench_cases.h"
#include "apps/bench/report.h"
#include "apps/bench/simulation_runner.h"
#include "apps/bench/spawner.h"

namespace treematch::bench {

struct BenchOptions {
  std::string treematch;  ///< path of the treematch executable
  std::string scotch;     ///< path of scotch_gmap; empty = not available (Scotch columns n/a)
  std::vector<std::string>
      scotch_args;                   ///< extra scotch_gmap options (e.g. -b0), put before the files
  std::string data_dir;              ///< the shared data folder
  std::uint64_t seed = 1;            ///< stencil permutations, random baseline, MPIPP starts
  bool unit_costs = false;           ///< every link costs 1: both tools optimise hop-bytes
  int threads = 0;                   ///< passed to treematch as --threads when > 0
  int repeat = 1;                    ///< runs of each command; the minimum wall time is reported
  unsigned timeout_seconds = 900;    ///< per command run; 0 = none
  Index max_dense = 256;             ///< matrices up to this order go to treematch as dense .mat
  Index mpipp_max_processes = 1024;  ///< MPIPP.5 runs only up to this many processes
  Index scotch_max_processes = 100000;  ///< Scotch runs only up to this many processes
  bool scotch_dense = false;            ///< run Scotch on dense generated cases (D1: a ~4 GB .grf)
  bool scotch_cq = true;                ///< also run scotch_gmap with -cq
  bool scotch_b0 = true;                ///< also run scotch_gmap with -cq -b0 (one-to-one)
  /// Also run `treematch map --preset P` for each (fast, default, strong; checked by the caller),
  /// and cost the nested block optimum of the stencil cases; empty = neither.
  std::vector<std::string> presets;
  /// Only the presets (and the costs): no --refine / --no-refine runs, no Scotch, no eval; what
  /// the regression guard needs.
  bool presets_only = false;
  std::string viem;  ///< path of VieM's `viem`; empty = not run (n/a)
  /// VieM runs only up to this many processes (its time grows about as p^2).
  Index viem_max_processes = 8192;
  std::string sharedmap;  ///< path of SharedMap's `SharedMap`; empty = not run (n/a)
  Index sharedmap_max_processes = 65536;  ///< SharedMap runs only up to this many processes
  /// --simulate: each case's mappings also simulated with SMPI (simulation_runner.h).
  std::optional<SimulationOptions> simulation;
};

/// Sets up the case in `work_dir` (a folder of its own is made there), runs `treematch map
/// --format json` with --refine and with --no-refine, scotch_gmap on the case's tleaf (link costs
/// included) with the run's options, with -cq and with -cq -b0 (one process per core),
/// options.repeat times each through `spawner`,
/// then, for each of options.presets, `treematch map --preset P --format json` the same way,
/// reads the mappings back (treematch's from its JSON report, with its phase timings), and costs
/// them and the baselines with evaluate_cost on the case's topology (with presets, also the
/// nested block optimum of a stencil case that fits, nested_block_optimum). A case whose matrix is
/// not held (D1) is read back with io::read_matrix for the costs, after the commands ran, and freed
/// on return. Scotch is skipped (n/a with the reason) above options.scotch_max_processes and,
/// unless options.scotch_dense, for dense generated matrices of more than 2^22 entries. VieM strong
/// and SharedMap strong run after Scotch with options.viem and options.sharedmap, where p equals
/// the cores, up to options.viem_max_processes and options.sharedmap_max_processes. With
/// options.presets_only only the presets run (no --refine /
/// --no-refine, Scotch, VieM, SharedMap, eval or MPIPP). Never throws for a problem of the
/// case itself: a case that cannot be set up has CaseResult::error set, a mapper that fails has its
/// ToolResult::failure set. Progress goes to `progress`.
CaseResult run_case(const CaseSpec& spec, const BenchOptions& options,
                    const std::filesystem::path& work_dir, Spawner& spawner,
                    std::ostream& progress);

/// Runs `treematch map --threads k --format json` `repeat` times for each k of `thread_counts` on
/// the case (no Scotch, no baselines) and compares each k's mapping with the first k's; then the
/// same with `--preset P` for each of options.presets (compared within the preset). Never
/// throws for a problem of the case itself (ThreadsResult::error, ToolResult::failure).
ThreadsResult run_thread_speedup(const CaseSpec& spec, const BenchOptions& options,
                                 const std::vector<int>& thread_counts, int repeat,
                                 const std::filesystem::path& work_dir, Spawner& spawner,
                                 std::ostream& progress);

}  // namespace treematch::bench
