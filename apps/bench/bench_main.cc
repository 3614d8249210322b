// treematch-bench: `treematch map` vs Scotch's gmap on the shared data and synthetic stencils.
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <tbb/global_control.h>

#include "apps/bench/bench_cases.h"
#include "apps/bench/bench_runner.h"
#include "apps/bench/report.h"
#include "apps/bench/spawner.h"

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
  bool keep_temp = false;
  bool list = false;
  app.add_option("--cases", cases_text,
                 "comma-separated case names (default: all but S2); see --list");
  app.add_flag("--list", list, "print the case names and exit");
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
  app.add_option("--repeat", options.repeat,
                 "runs of each command; the minimum wall time is reported")
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
  app.add_option("--json", json_path, "also write every figure to this JSON file");
  app.add_flag("--keep-temp", keep_temp, "keep the folder of generated inputs and outputs");
  CLI11_PARSE(app, argc, argv);

  const std::vector<CaseSpec> catalogue = all_cases();
  if (list) {
    for (const CaseSpec& c : catalogue)
      std::cout << c.name << (c.in_default ? "" : "  (not in the default set)") << '\n';
    return 0;
  }
  std::vector<CaseSpec> selected;
  if (cases_text.empty()) {
    for (const CaseSpec& c : catalogue) {
      if (c.in_default) selected.push_back(c);
    }
  } else {
    for (const std::string& name : split_list(cases_text)) {
      const auto it = std::find_if(catalogue.begin(), catalogue.end(),
                                   [&](const CaseSpec& c) { return c.name == name; });
      if (it == catalogue.end()) {
        std::cerr << "treematch-bench: error: --cases: no case named '" << name
                  << "' (see --list)\n";
        return 2;
      }
      selected.push_back(*it);
    }
  }

  if (options.treematch.empty()) options.treematch = default_treematch();
  if (options.data_dir.empty()) options.data_dir = default_data_dir();
  options.scotch_args = split_list(scotch_args);
  options.scotch = find_in_path(scotch_path.empty() ? std::string("scotch_gmap") : scotch_path);
  if (::access(options.treematch.c_str(), X_OK) != 0) {
    std::cerr << "treematch-bench: error: --treematch " << options.treematch
              << " is not an executable file\n";
    return 2;
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
    const ChildRun floor = spawner->run({"/bin/true"}, (scratch.path() / "true.out").string(),
                                        (scratch.path() / "true.err").string(), 10);
    info.rss_floor_mib = floor.ok() ? floor.peak_rss_mib : 0.0;
    std::cerr << fmt::format(
        "treematch-bench: {} case(s); treematch {}; scotch {}; data {}; work folder {}{}\n",
        selected.size(), options.treematch, options.scotch.empty() ? "n/a" : options.scotch,
        options.data_dir, scratch.path().string(), keep_temp ? " (kept)" : "");

    std::vector<CaseResult> results;
    for (std::size_t i = 0; i < selected.size(); ++i) {
      std::cerr << fmt::format("[{}/{}] {}", i + 1, selected.size(), selected[i].name) << std::endl;
      results.push_back(run_case(selected[i], options, scratch.path(), *spawner, std::cerr));
    }
    info.total_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::cout << fmt::format(
        "treematch vs scotch_gmap ({}; target: uniform-cost tleaf of the same shape); costs "
        "from evaluate_cost\n"
        "hop-bytes = sum over i != j of C[i][j] x tree edges between their cores; walls = whole "
        "command, min of {} "
        "run(s); RSS = peak (ru_maxrss; /bin/true launched the same way: {:.1f} MiB)\n"
        "Sc ml = Scotch's max load (most processes on one core); seed {}, treematch threads {}\n"
        "S1/S2 = 27-point stencil in a box (no wraparound), weights face 1000, edge 100, corner "
        "10, "
        "ranks shuffled by the seed\n\n",
        scotch_args.empty() ? std::string("default strategy") : "options " + scotch_args,
        options.repeat, info.rss_floor_mib, options.seed,
        options.threads > 0 ? std::to_string(options.threads) : "all");
    std::cout << render_table(results) << '\n';
    std::cout << "Weighted cost (sum of C[i][j] x link costs on the path, each case's own "
                 "topology; Scotch saw uniform "
                 "costs):\n";
    std::cout << render_weighted_table(results);
    std::cout << fmt::format("\ntotal {:.1f} s\n", info.total_seconds) << std::flush;

    if (!json_path.empty()) {
      std::ofstream out(json_path);
      out << to_json(info, results).dump(2) << '\n';
      if (!out) {
        std::cerr << "treematch-bench: error: cannot write " << json_path << '\n';
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "treematch-bench: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
