// `treematch bind`: a launcher-independent binding wrapper that binds its rank, then runs the app.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace treematch::apps {

struct BindOptions {
  std::string mapping;                ///< a `treematch map` output: json or rankfile
  std::vector<std::string> command;   ///< the program and its arguments
  std::string numbering = "logical";  ///< how a rankfile without treematch's header numbers slots
  bool hardware_threads = false;      ///< ... and whether its slots count hardware threads
  bool verbose = false;
};

CLI::App* add_bind_command(CLI::App& app, BindOptions& options);

/// Binds this process to the PUs the mapping gives its rank and replaces it with the command
/// (execvp); returns only on failure, by throwing io::InputError (no launcher rank, a rank the
/// mapping lacks, a host other than this one) or std::runtime_error (binding or exec failed).
int run_bind(const BindOptions& options);

}  // namespace treematch::apps
