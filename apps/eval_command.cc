// `treematch eval`: reads a mapping in perm form and prints its costs.
#include "apps/eval_command.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/mapping_reader.h"
#include "src/cost.h"

namespace treematch::apps {

CLI::App* add_eval_command(CLI::App& app, EvalOptions& options) {
  CLI::App* eval =
      app.add_subcommand("eval", "cost of a mapping: hop-bytes and link-cost-weighted");
  add_input_options(*eval, options.input);
  eval->add_option("--mapping", options.mapping, "perm file: line i = leaf of rank i")->required();
  eval->add_flag("--json", options.json, "print a JSON object instead of text");
  return eval;
}

int run_eval(const EvalOptions& options) {
  const Inputs inputs = load_inputs(options.input);
  const Mapping mapping =
      io::read_mapping(options.mapping, inputs.topology, inputs.numbering, inputs.graph.size());
  const MappingCost cost = evaluate_cost(inputs.graph, inputs.topology, mapping);
  const std::vector<double> by_height = traffic_by_height(inputs.graph, inputs.topology, mapping);
  if (options.json) {
    std::cout << nlohmann::json{{"hop_bytes", cost.hop_bytes},
                                {"weighted", cost.weighted},
                                {"traffic_by_height", by_height}}
                     .dump()
              << '\n';
    return 0;
  }
  std::cout << fmt::format("hop-bytes {:.17g}\nweighted {:.17g}\n", cost.hop_bytes, cost.weighted);
  for (std::size_t h = 0; h < by_height.size(); ++h) {
    std::cout << fmt::format("traffic {} levels up {:.17g}\n", h, by_height[h]);
  }
  return 0;
}

}  // namespace treematch::apps
