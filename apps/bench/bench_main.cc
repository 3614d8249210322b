// treematch-bench: `treematch map` vs Scotch's gmap on the shared data and synthetic matrices.
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <tbb/global_control.h>

#include "apps/bench/bench_cases.h"
#include "apps/bench/bench_runner.h"
#include "apps/bench/cost_baseline.h"
#include "apps/bench/peers_table.h"
#include "apps/bench/report.h"
#include "apps/bench/simulation_report.h"
#include "apps/bench/spawner.h"
#include "kernels/utility.h"
#include "src/model/context.h"

namespace {

namespace fs = std::filesystem;
using namespace treematch::bench;

/// A scratch folder removed on scope exit unless kept.
class ScratchDir {
 public:
  explicit ScratchDir(bool keep) : keep_(keep) {
    std::string pattern = (fs::temp_directory_path() / "treematch-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!keep_) fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  bool keep_;
  fs::path path_;
};

/// ../treematch next to this program's folder, else the path CMake configured.
std::string default_treematch() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path sibling = self.parent_path().parent_path() / "treematch";
    if (fs::exists(sibling, ec)) return sibling.string();
  }
  return TM_BENCH_TREEMATCH_PATH;
}

/// ../shared/data from the working folder, else from the repository.
std::string default_data_dir() {
  std::error_code ec;
  for (const fs::path& candidate : {fs::current_path() / ".." / "shared" / "data",
                                    fs::path(TM_BENCH_SOURCE_DIR) / ".." / "shared" / "data"}) {
    if (fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return (fs::current_path() / ".." / "shared" / "data").string();
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (const char c : text + ",") {
    if (c == ',' || c == ' ') {
      if (!item.empty()) items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return items;
}

/// The presets named in `text` (comma-separated), each once, in the order given. Throws
/// std::invalid_argument naming the first unknown name and listing the known ones.
std::vector<std::string> parse_presets(const std::string& text) {
  std::string known;
  for (const treematch::Preset preset :
       {treematch::Preset::kFast, treematch::Preset::kDefault, treematch::Preset::kStrong})
    known += (known.empty() ? "" : ", ") + treematch::to_string(preset);
  std::vector<std::string> presets;
  for (const std::string& name : split_list(text)) {
    if (!treematch::parse_preset(name))
      throw std::invalid_argument("no preset named '" + name + "' (known: " + known + ")");
    if (std::find(presets.begin(), presets.end(), name) == presets.end()) presets.push_back(name);
  }
  if (presets.empty()) throw std::invalid_argument("no preset given (known: " + known + ")");
  return presets;
}

/// This process's peak resident set size so far.
double self_peak_rss_mib() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// The 1, 5 and 15 minute load averages, or "?".
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  std::string five;
  std::string fifteen;
  if (!(in >> one >> five >> fifteen)) return "?";
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  // First, while this process is small: every measured command is forked from this helper.
  std::optional<Spawner> spawner;
  try {
    spawner.emplace();
  } catch (const std::exception& e) {
    std::cerr << "treematch-bench: error: " << e.what() << '\n';
    return 1;
  }

  CLI::App app{"treematch-bench: treematch vs Scotch's gmap and the baselines, case by case"};
  BenchOptions options;
  std::string cases_text;
  std::string json_path;
  std::string scotch_path;
  std::string scotch_args;
  std::string presets_text;
  bool keep_temp = false;
  bool list = false;
  bool scale = false;
  int thread_repeat = 3;
  app.add_option("--cases", cases_text,
                 "comma-separated case names, series (growth), 'default' (the default set) or "
                 "'threads' (default: the default set); see --list");
  app.add_flag("--scale", scale,
               std::string("the scale cases: shortcut for --cases ") + kScaleSelection +
                   " (combines with --cases)");
  app.add_flag("--list", list, "print the case names and exit");
  CLI::Option* preset_option = app.add_option(
      "--preset", presets_text,
      "also map every case with `treematch map --preset P` for each P of this comma-separated "
      "list (fast, default, strong) and print the presets table (default: none)");
  app.add_option("--data", options.data_dir,
                 "the shared data folder (default: ../shared/data from here or the repo)");
  app.add_option("--treematch", options.treematch,
                 "treematch executable (default: ../treematch beside this program)");
  app.add_option("--scotch", scotch_path,
                 "scotch_gmap executable (default: from PATH; none = Scotch columns n/a)");
  app.add_option(
      "--scotch-args", scotch_args,
      "extra scotch_gmap options, e.g. --scotch-args=-b0 (default: none, its default strategy)");
  app.add_option("--seed", options.seed, "seed of the stencil permutations, random and MPIPP")
      ->capture_default_str();
  app.add_option("--threads", options.threads,
                 "worker threads for treematch (--threads) and the baselines (0 = all)")
      ->check(CLI::NonNegativeNumber);
  CLI::Option* repeat_option =
      app.add_option("--repeat", options.repeat,
                     "runs of each command; the minimum wall time is reported (the thread "
                     "speedup measurement: 3 unless given)")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
  app.add_option("--timeout", options.timeout_seconds,
                 "seconds before a command is killed (0 = never)")
      ->capture_default_str();
  app.add_option("--max-dense", options.max_dense,
                 "largest p written for treematch as dense .mat (else METIS)")
      ->capture_default_str();
  app.add_option("--mpipp-max-p", options.mpipp_max_processes, "largest p for which MPIPP.5 runs")
      ->capture_default_str();
  app.add_option("--scotch-max-p", options.scotch_max_processes,
                 "largest p for which scotch_gmap runs (n/a above)")
      ->capture_default_str();
  bool no_scotch_cq = false;
  app.add_flag("--no-scotch-cq", no_scotch_cq, "do not run scotch_gmap a second time with -cq");
  bool no_scotch_b0 = false;
  app.add_flag("--no-scotch-b0", no_scotch_b0,
               "do not run scotch_gmap with -cq -b0 (its one-process-per-core mapping)");
  app.add_flag("--scotch-dense", options.scotch_dense,
               "also run scotch_gmap on the dense D1 (writes a ~4 GB text graph)");
  app.add_flag("--unit-costs", options.unit_costs,
               "every link costs 1, for treematch and Scotch alike (both then optimise hop-bytes; "
               "the weighted and hop-bytes tables agree)");
  std::string viem_path;
  app.add_option("--viem", viem_path,
                 "VieM's `viem` executable: also map every case whose p equals its cores with VieM "
                 "strong (default: not run)");
  app.add_option("--viem-max-p", options.viem_max_processes,
                 "largest p for which VieM runs (it holds a p x p matrix of distances)")
      ->capture_default_str();
  std::string sharedmap_path;
  app.add_option("--sharedmap", sharedmap_path,
                 "SharedMap's `SharedMap` executable: also map every case whose p equals its cores "
                 "with SharedMap strong, imbalance 0, --threads threads (default: not run)");
  app.add_option("--sharedmap-max-p", options.sharedmap_max_processes,
                 "largest p for which SharedMap runs")
      ->capture_default_str();
  app.add_flag("--presets-only", options.presets_only,
               "run only the --preset mappings (no --refine / --no-refine runs, no Scotch, no "
               "eval, no MPIPP baseline): the regression guard's run");
  std::string baseline_path;
  std::string write_baseline_path;
  app.add_option("--baseline", baseline_path,
                 "regression guard: exit 3 naming every instance whose preset cost rose above "
                 "this file's (fast by more than 0.5%, default and strong by more than 0.01%)");
  bool same_mappings = false;
  app.add_flag("--same-mappings", same_mappings,
               "with --baseline: also fail where a mapping differs from the baseline's (its "
               "digest), e.g. against a baseline written at another --threads");
  app.add_option("--write-baseline", write_baseline_path,
                 "write every preset cost of this run to this file (the new baseline)");
  bool simulate = false;
  app.add_flag("--simulate", simulate,
               "also simulate each case's mappings (treematch per objective, Scotch, packed, "
               "random) with SimGrid's SMPI on its tree and fat-tree link model: a replay of the "
               "pattern and a halo exchange with computation (built with -DTM_SIMGRID=ON; meant "
               "for --cases simulation)");
  app.add_option("--json", json_path, "also write every figure to this JSON file");
  app.add_flag("--keep-temp", keep_temp, "keep the folder of generated inputs and outputs");
  CLI11_PARSE(app, argc, argv);
  options.scotch_cq = !no_scotch_cq;
  options.scotch_b0 = !no_scotch_b0;
  if (preset_option->count() > 0) {
    try {
      options.presets = parse_presets(presets_text);
    } catch (const std::exception& e) {
      std::cerr << "treematch-bench: error: --preset: " << e.what() << '\n';
      return 2;
    }
  }

  if (simulate) {
#ifdef TM_BENCH_SMPIRUN
    options.simulation = SimulationOptions{.smpirun = TM_BENCH_SMPIRUN,
                                           .replay = TM_BENCH_SMPI_REPLAY,
                                           .halo = TM_BENCH_SMPI_HALO,
                                           .timeout_seconds = options.timeout_seconds};
#else
    std::cerr << "treematch-bench: error: --simulate: this treematch-bench was built without "
                 "SimGrid (configure with -DTM_SIMGRID=ON; Debian's libsimgrid-dev)\n";
    return 2;
#endif
    if (options.presets_only) {
      std::cerr << "treematch-bench: error: --simulate needs treematch's and Scotch's runs, not "
                   "--presets-only\n";
      return 2;
    }
  }
  if ((!baseline_path.empty() || !write_baseline_path.empty()) && options.presets.empty()) {
    std::cerr << "treematch-bench: error: --baseline and --write-baseline need --preset\n";
    return 2;
  }
  std::vector<BaselineCost> baseline;
  if (!baseline_path.empty()) {
    try {
      baseline = read_cost_baseline(baseline_path);
    } catch (const std::exception& e) {
      std::cerr << "treematch-bench: error: --baseline: " << e.what() << '\n';
      return 2;
    }
  }

  const std::vector<CaseSpec> catalogue = all_cases();
  if (list) {
    for (const CaseSpec& c : catalogue) {
      std::cout << c.name << (c.in_default ? "" : "  (not in the default set)")
                << (c.series.empty() ? "" : "  (series " + c.series + ")")
                << (c.only_by_name ? "  (selected by its name only)" : "")
                << (c.in_corpus_quick ? "  (corpus, corpus-quick)"
                                      : (c.in_corpus ? "  (corpus)" : ""))
                << (c.description.empty() ? "" : ": " + c.description) << '\n';
    }
    std::cout << kThreadsStep << "  (" << kThreadsCase
              << " mapped with --threads 1 and 2; not in the default set)\n"
              << "--scale = " << kScaleSelection << '\n';
    std::cout << kCorpusSelection << ", " << kCorpusQuickSelection
              << ": the quality corpus and its quick subset\n";
    return 0;
  }
  Selection selection;
  if (cases_text.empty() && !scale) {
    for (const CaseSpec& c : catalogue) {
      if (c.in_default) selection.cases.push_back(c);
    }
  } else {
    std::vector<std::string> names = split_list(cases_text);
    if (scale) {
      for (const std::string& name : split_list(kScaleSelection)) names.push_back(name);
    }
    try {
      selection = select_cases(catalogue, names);
    } catch (const std::exception& e) {
      std::cerr << "treematch-bench: error: --cases: " << e.what() << '\n';
      return 2;
    }
  }
  const std::vector<CaseSpec>& selected = selection.cases;
  if (repeat_option->count() > 0) thread_repeat = options.repeat;

  if (options.treematch.empty()) options.treematch = default_treematch();
  if (options.data_dir.empty()) options.data_dir = default_data_dir();
  options.scotch_args = split_list(scotch_args);
  options.scotch = find_in_path(scotch_path.empty() ? std::string("scotch_gmap") : scotch_path);
  if (::access(options.treematch.c_str(), X_OK) != 0) {
    std::cerr << "treematch-bench: error: --treematch " << options.treematch
              << " is not an executable file\n";
    return 2;
  }
  for (const auto& [option, path, found] :
       {std::tuple{"--viem", &viem_path, &options.viem},
        std::tuple{"--sharedmap", &sharedmap_path, &options.sharedmap}}) {
    if (path->empty()) continue;
    *found = find_in_path(*path);
    if (found->empty()) {
      std::cerr << "treematch-bench: error: " << option << " " << *path
                << " is not an executable file\n";
      return 2;
    }
  }
  if (!scotch_path.empty() && options.scotch.empty()) {
    std::cerr << "treematch-bench: error: --scotch " << scotch_path
              << " is not an executable file\n";
    return 2;
  }
  std::optional<tbb::global_control> limit;
  if (options.threads > 0) {
    limit.emplace(tbb::global_control::max_allowed_parallelism,
                  static_cast<std::size_t>(options.threads));
  }

  try {
    const auto start = std::chrono::steady_clock::now();
    ScratchDir scratch(keep_temp);
    RunInfo info;
    info.treematch = options.treematch;
    info.scotch = options.scotch;
    info.scotch_args = scotch_args;
    info.data_dir = options.data_dir;
    info.seed = options.seed;
    info.threads = options.threads;
    info.repeat = options.repeat;
    info.scotch_max_processes = options.scotch_max_processes;
    info.scotch_dense = options.scotch_dense;
    info.unit_costs = options.unit_costs;
    info.presets = options.presets;
    info.load_start = load_average();
    const ChildRun floor = spawner->run({"/bin/true"}, (scratch.path() / "true.out").string(),
                                        (scratch.path() / "true.err").string(), 10);
    info.rss_floor_mib = floor.ok() ? floor.peak_rss_mib : 0.0;
    std::cerr << fmt::format(
        "treematch-bench: {} case(s){}; treematch {}; scotch {}; data {}; work folder {}{}\n",
        selected.size(), selection.threads ? " + thread speedup" : "", options.treematch,
        options.scotch.empty() ? "n/a" : options.scotch, options.data_dir, scratch.path().string(),
        keep_temp ? " (kept)" : "");

    const std::size_t steps = selected.size() + (selection.threads ? 1 : 0);
    std::vector<CaseResult> results;
    for (std::size_t i = 0; i < selected.size(); ++i) {
      std::cerr << fmt::format("[{}/{}] {}", i + 1, steps, selected[i].name) << std::endl;
      results.push_back(run_case(selected[i], options, scratch.path(), *spawner, std::cerr));
      std::cerr << fmt::format("  (benchmark process peak RSS so far {:.1f} MiB)",
                               self_peak_rss_mib())
                << std::endl;
      if (!keep_temp) {
        // The inputs of the big cases take gigabytes; nothing reads them again.
        std::error_code ignored;
        fs::remove_all(scratch.path() / selected[i].name, ignored);
      }
    }
    std::optional<ThreadsResult> threads;
    if (selection.threads) {
      std::cerr << fmt::format("[{}/{}] thread speedup on {}, {} run(s) per count", steps, steps,
                               kThreadsCase, thread_repeat)
                << std::endl;
      const auto it = std::find_if(catalogue.begin(), catalogue.end(),
                                   [](const CaseSpec& c) { return c.name == kThreadsCase; });
      threads = run_thread_speedup(*it, options, {1, 2}, thread_repeat, scratch.path(), *spawner,
                                   std::cerr);
    }
    info.total_seconds = treematch::kernels::seconds_since(start);
    info.bench_peak_rss_mib = self_peak_rss_mib();
    info.load_end = load_average();

    std::cout << fmt::format(
        "treematch (--refine and --no-refine) vs scotch_gmap ({}, with -cq, and with -cq -b0 = "
        "one process per core; target: the case's tleaf, {}); costs from evaluate_cost\n"
        "weighted = sum over i != j of C[i][j] x link costs on the path between their cores (the "
        "case's topology); hop-bytes = the same with every link costing 1\n"
        "TM/Sc = treematch refined / the cheaper of Scotch default and -cq; TM/1:1 = refined / "
        "Scotch "
        "-cq -b0; TM/pl = refined / unrefined; packed = "
        "rank i on core i (the identity); Sc ml, cq ml = Scotch's max load (most processes on one "
        "core; -b0 had 1 wherever it ran)\n"
        "walls = whole command, min of {} run(s); map = treematch's own mapping phase (its "
        "--format "
        "json report); RSS = peak (ru_maxrss; /bin/true launched the same way: {:.1f} MiB)\n"
        "Scotch only up to p = {}; seed {}, treematch threads {}\n"
        "S1/S2/S3/S4/growth-* = 27-point stencil in a box (no wraparound), weights face 1000, edge "
        "100, corner 10, ranks shuffled by the seed\n"
        "G1 = edges cut between 4096 parts (recursive coordinate bisection, equal work, 8 hotspots "
        "of 20x work) of a 1M-point random geometric graph, ranks shuffled by the seed\n"
        "D1 = dense 10^(4-h) x (1 + 0.1 u) on the 128x16x2x4 tree, h = levels up to the common "
        "ancestor of the ranks' slots, slots shuffled by the seed\n"
        "load average (1/5/15 min) {} at the start, {} at the end; machine: {} hardware "
        "threads\n\n",
        scotch_args.empty() ? std::string("default strategy") : "options " + scotch_args,
        options.unit_costs ? "every link costing 1 (--unit-costs)" : "link costs included",
        options.repeat, info.rss_floor_mib, options.scotch_max_processes, options.seed,
        options.threads > 0 ? std::to_string(options.threads) : "all", info.load_start,
        info.load_end, std::thread::hardware_concurrency());
    if (!results.empty()) {
      std::cout << "Weighted cost:\n" << render_table(results, CostKind::kWeighted) << '\n';
      std::cout << "Hop-bytes:\n" << render_table(results, CostKind::kHopBytes) << '\n';
      std::cout << "Seconds (TM s/plain s: whole command; TM map/pl map: mapping phase; wall, map: "
                   "refined / unrefined):\n"
                << render_times(results);
      std::cout << render_input_files(results) << '\n';
      std::cout << render_summary(results);
    }
    const std::string growth = render_series(results, "growth");
    if (!growth.empty()) {
      std::cout << fmt::format(
          "\nGrowth series (27-point stencils on group:N/128 group:16 pack:2 core:4; treematch "
          "min of {} run(s); ns/nnz = seconds x 1e9 / nnz):\n",
          options.repeat);
      std::cout << growth;
      const std::string presets = render_series_presets(results, "growth");
      if (!presets.empty()) {
        std::cout << "Growth series per preset (ns/nnz = seconds x 1e9 / nnz; /eval, /opt as in "
                     "the presets table):\n"
                  << presets;
      }
    }
    if (threads) {
      std::cout << fmt::format(
          "\nThread speedup ({}: {} processes, {} entries, {}; treematch --threads k --format "
          "json, min of {} run(s)):\n",
          threads->case_name, threads->processes, threads->entries, threads->matrix_file,
          threads->repeat);
      std::cout << render_threads(*threads);
    }
    const std::string presets = render_presets(results);
    if (!presets.empty()) {
      std::cout << fmt::format(
          "\nPresets (treematch map --preset P --format json, min of {} run(s); cost = weighted; "
          "/Sc = cost / the cheaper of Scotch default and -cq, (Sc) = which; /opt = cost / the "
          "nested block mapping's, optimal on the stencils whose shape fits its boxes; TM s = "
          "whole command, /Sc s = TM s / that Scotch run's, /eval = TM s / treematch eval's (one "
          "read, one mapping costed); map s = mapping phase; MiB = peak "
          "RSS):\n",
          options.repeat);
      std::cout << presets;
    }
    const std::string peers = render_peers(results);
    if (!peers.empty() &&
        (!options.viem.empty() || !options.sharedmap.empty() || !options.scotch.empty()) &&
        !options.presets_only) {
      std::cout << "\nPeers (weighted cost; best = the cheapest peer run with one process per "
                   "core; VieM s, SM s = VieM's and SharedMap's times; P/b = preset cost / best; "
                   "s/VieM = preset time / VieM strong's, whole commands):\n"
                << peers;
    }
    const std::string simulated = render_simulation(results);
    if (!simulated.empty()) {
      std::cout << "\nSimulation (SimGrid SMPI, CM02 network model, computation injected; "
                   "fat-tree link model; replay = the pattern sent at once, halo = "
                << SimulationOptions{}.halo_iterations
                << " iterations of 1 ms computation + exchange; predicted and congestion from "
                   "treematch's model; sim s = wall time of both simulations):\n"
                << simulated;
    }
    std::cout << fmt::format("\ntotal {:.1f} s; benchmark process peak RSS {:.1f} MiB\n",
                             info.total_seconds, info.bench_peak_rss_mib)
              << std::flush;

    if (!write_baseline_path.empty()) {
      write_cost_baseline(write_baseline_path, results,
                          fmt::format("treematch-bench preset costs (weighted), seed {}, --cases "
                                      "{}\nwritten by treematch-bench --write-baseline; the "
                                      "regression guard reads it with --baseline",
                                      options.seed, cases_text));
      std::cerr << "treematch-bench: wrote the baseline " << write_baseline_path << '\n';
    }
    if (!json_path.empty()) {
      std::ofstream out(json_path);
      out << to_json(info, results, threads ? &*threads : nullptr).dump(2) << '\n';
      if (!out) {
        std::cerr << "treematch-bench: error: cannot write " << json_path << '\n';
        return 1;
      }
    }
    if (!baseline_path.empty()) {
      const std::vector<std::string> problems =
          check_cost_baseline(baseline, results, same_mappings);
      for (const std::string& problem : problems) std::cout << "REGRESSION " << problem << '\n';
      std::cout << fmt::format(
          "regression guard: {} problem(s) in {} preset costs against {}: {}\n", problems.size(),
          results.size() * options.presets.size(), baseline_path,
          problems.empty() ? "pass" : "FAIL");
      if (!problems.empty()) return 3;
    }
  } catch (const std::exception& e) {
    std::cerr << "treematch-bench: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
