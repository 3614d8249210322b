// `treematch eval`: the cost of any mapping (hop-bytes and link-cost-weighted).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "apps/inputs.h"

namespace treematch::apps {

struct EvalOptions {
  InputOptions input;
  std::string mapping;  ///< perm, rankfile or json, as `treematch map` writes them
  std::string hosts;    ///< host names of the machines (to place rankfile lines)
  bool json = false;
};

CLI::App* add_eval_command(CLI::App& app, EvalOptions& options);
int run_eval(const EvalOptions& options);

}  // namespace treematch::apps
