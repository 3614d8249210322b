// `treematch eval`: reads a mapping in perm form and prints its costs.
#include "apps/eval_command.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/link_loads_output.h"
#include "apps/map_command.h"
#include "io/input_error.h"
#include "io/mapping_reader.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"
#include "src/model/mapping_check.h"

namespace treematch::apps {

CLI::App* add_eval_command(CLI::App& app, EvalOptions& options) {
  CLI::App* eval =
      app.add_subcommand("eval",
                         "cost of a mapping: hop-bytes, link-cost-weighted, link loads and the "
                         "predicted communication time");
  add_input_options(*eval, options.input);
  eval->add_option("--mapping", options.mapping,
                   "a mapping as treematch map writes it: perm (line i = core of rank i), "
                   "rankfile or json")
      ->required();
  eval->add_option("--hosts", options.hosts,
                   "host names of the machines, a,b,c or a file (to read a rankfile's hosts)");
  eval->add_flag("--json", options.json, "print a JSON object instead of text");
  return eval;
}

int run_eval(const EvalOptions& options) {
  // The mapping may use any leaf of the tree, not only the first ones the processes would fill.
  InputOptions input = options.input;
  input.whole_tree = true;
  const Inputs inputs = load_inputs(input);
  const CommGraph& graph = inputs.whole_graph();
  io::MappingFileOptions file{inputs.numbering, parse_hosts(options.hosts)};
  if (file.hosts.empty()) file.hosts = inputs.hosts;
  const Mapping mapping = io::read_mapping(options.mapping, inputs.topology, file);
  // A mapping the launcher could not run is refused, not costed.
  const std::string problem = mapping_problem(mapping, graph.size(), inputs.topology,
                                              inputs.allowed_leaves, options.input.oversubscribe);
  if (!problem.empty()) throw io::InputError(options.mapping, problem);
  const MappingCost cost = evaluate_cost(graph, inputs.topology, mapping);
  const std::vector<double> by_height = traffic_by_height(graph, inputs.topology, mapping);
  const LinkLoads links = link_loads(graph, inputs.topology, inputs.links, mapping);
  if (options.json) {
    std::cout << nlohmann::json{{"hop_bytes", cost.hop_bytes},
                                {"weighted", cost.weighted},
                                {"traffic_by_height", by_height},
                                {"link_model", describe(inputs.links)},
                                {"links", link_loads_json(links, inputs.topology)}}
                     .dump()
              << '\n';
    return 0;
  }
  std::cout << fmt::format("hop-bytes {:.17g}\nweighted {:.17g}\n", cost.hop_bytes, cost.weighted);
  for (std::size_t h = 0; h < by_height.size(); ++h) {
    std::cout << fmt::format("traffic {} levels up {:.17g}\n", h, by_height[h]);
  }
  std::cout << "link model " << describe(inputs.links) << '\n'
            << link_loads_text(links, inputs.topology);
  return 0;
}

}  // namespace treematch::apps
