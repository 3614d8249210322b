// `treematch bind`: find this rank in a mapping, bind to its PUs with hwloc, exec the program.
#include "apps/bind_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/allocation_topology.h"
#include "io/hwloc_topology.h"
#include "io/input_error.h"
#include "io/mapping_writer.h"
#include "io/process_binding.h"
#include "io/rankfile_reader.h"
#include "src/mpi/launcher_variables.h"

namespace treematch::apps {
namespace {

const char* const kSource = "treematch bind";

/// Where the mapping puts this rank.
struct Target {
  std::string host;
  std::vector<Index> cpus;  ///< OS indexes of the PUs on that host
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::InputError(path, "cannot open the mapping file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw io::InputError(path, "cannot read the mapping file");
  return text;
}

Target from_json(const std::string& text, const std::string& path, int rank) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw io::InputError(path, std::string("not valid JSON: ") + error.what());
  }
  if (!doc.is_object() || !doc.contains("placement") || !doc["placement"].is_array()) {
    throw io::InputError(path,
                         "no \"placement\" array (write it with treematch map --format json)");
  }
  const nlohmann::json& placement = doc["placement"];
  if (static_cast<std::size_t>(rank) >= placement.size()) {
    throw io::InputError(
        path, fmt::format("maps {} ranks; this process is rank {}", placement.size(), rank));
  }
  const nlohmann::json& entry = placement[static_cast<std::size_t>(rank)];
  Target target;
  try {
    target.host = entry.at("host").get<std::string>();
    target.cpus = entry.at("cpus").get<std::vector<Index>>();
  } catch (const nlohmann::json::exception& error) {
    throw io::InputError(path, fmt::format("placement[{}]: {}", rank, error.what()));
  }
  if (target.cpus.empty())
    throw io::InputError(path, fmt::format("placement[{}] has no cpus", rank));
  return target;
}

Target from_rankfile(const std::string& text, const std::string& path, int rank,
                     const BindOptions& options) {
  const io::Rankfile file = io::parse_rankfile(text, path);
  if (static_cast<std::size_t>(rank) >= file.ranks.size()) {
    throw io::InputError(
        path, fmt::format("maps {} ranks; this process is rank {}", file.ranks.size(), rank));
  }
  const bool physical =
      file.physical.value_or(io::parse_numbering(options.numbering) == io::Numbering::kPhysical);
  const bool threads = file.hardware_threads.value_or(options.hardware_threads);
  const io::RankfileLine& line = file.ranks[static_cast<std::size_t>(rank)];
  // The slot as Open MPI reads it: a logical index among the cores (PUs) this process may use,
  // or the OS index of a PU, standing for its core.
  const Topology here = io::read_this_machine({.hardware_threads = threads});
  Index leaf = -1;
  if (physical) {
    for (Index l = 0; l < here.leaf_count() && leaf < 0; ++l) {
      for (const Index cpu : here.cpus(l)) {
        if (cpu == line.slot) leaf = l;
      }
    }
  } else {
    leaf = here.leaf_of_logical(line.slot);
  }
  if (leaf < 0) {
    throw io::InputError(path, fmt::format("rank {}: this machine has no {} {} {} this process "
                                           "may use",
                                           rank, physical ? "PU of OS index" : "logical",
                                           threads ? "hardware thread" : "core", line.slot));
  }
  const std::span<const Index> cpus = here.cpus(leaf);
  return Target{line.host, std::vector<Index>(cpus.begin(), cpus.end())};
}

/// Host names compare by their first label ("n1.cluster" is "n1").
std::string short_name(const std::string& host) {
  return host.substr(0, host.find('.'));
}

}  // namespace

CLI::App* add_bind_command(CLI::App& app, BindOptions& options) {
  CLI::App* bind = app.add_subcommand(
      "bind",
      "bind this rank to the cores a mapping gives it, then run a program (under mpirun, srun "
      "or mpiexec): treematch bind MAPPING -- PROGRAM [ARGS...]");
  bind->add_option("mapping", options.mapping,
                   "a treematch map output: --format json (placement) or rankfile")
      ->required();
  bind->add_option("command", options.command, "the program and its arguments, after --")
      ->required();
  bind->add_option("--numbering", options.numbering,
                   "slots of a rankfile without treematch's header: logical | physical")
      ->capture_default_str();
  bind->add_flag("--hwthreads", options.hardware_threads,
                 "slots of a rankfile without treematch's header count hardware threads");
  bind->add_flag("--verbose,-v", options.verbose, "say where this rank is bound");
  return bind;
}

int run_bind(const BindOptions& options) {
  std::optional<distributed::LauncherRank> launched;
  try {
    launched = distributed::launcher_rank();
  } catch (const distributed::LauncherVariableError& e) {
    throw io::InputError(kSource, e.what());
  }
  if (!launched) {
    throw io::InputError(kSource,
                         fmt::format("not started by a launcher (none of {} is set): run "
                                     "mpirun ... treematch bind MAPPING -- PROGRAM",
                                     fmt::join(distributed::kLauncherRankVariables, ", ")));
  }
  if (launched->rank > std::numeric_limits<int>::max()) {
    throw io::InputError(kSource, fmt::format("{}={} is beyond any mapping's ranks",
                                              launched->variable, launched->rank));
  }
  const auto rank = static_cast<int>(launched->rank);
  const std::string text = read_text(options.mapping);
  const auto first = text.find_first_not_of(" \t\r\n");
  Target target;
  if (first != std::string::npos && text[first] == '{') {
    target = from_json(text, options.mapping, rank);
  } else if (io::looks_like_rankfile(text)) {
    target = from_rankfile(text, options.mapping, rank, options);
  } else {
    throw io::InputError(options.mapping,
                         "not a json or rankfile mapping (a perm file names no host; map with "
                         "--format json)");
  }
  const std::string here = distributed::this_host_name();
  if (short_name(target.host) != short_name(here) && target.host != "localhost") {
    throw io::InputError(options.mapping,
                         fmt::format("rank {} is mapped to host '{}' but runs on '{}': start the "
                                     "ranks on the mapping's hosts (rankfile, SLURM_HOSTFILE, "
                                     "host list)",
                                     rank, target.host, here));
  }
  io::bind_this_process(target.cpus);
  if (options.verbose) {
    std::cerr << fmt::format("treematch bind: rank {} on {} bound to PUs {}\n", rank, here,
                             fmt::join(target.cpus, ","));
  }
  std::vector<char*> argv;
  argv.reserve(options.command.size() + 1);
  for (const std::string& argument : options.command)
    argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  throw std::runtime_error(fmt::format("cannot run '{}': {}", options.command.front(),
                                       std::generic_category().message(errno)));
}

}  // namespace treematch::apps
