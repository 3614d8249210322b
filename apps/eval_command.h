// `treematch eval`: the cost of any mapping (hop-bytes and link-cost-weighted).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "apps/inputs.h"

namespace treematch::apps {

struct EvalOptions {
  InputOptions input;
  std::string mapping;
  bool json = false;
};

CLI::App* add_eval_command(CLI::App& app, EvalOptions& options);
int run_eval(const EvalOptions& options);

}  // namespace treematch::apps
