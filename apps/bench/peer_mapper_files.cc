// The peers' machine strings, their METIS input with integer weights, and their output.
#include "apps/bench/peer_mapper_files.h"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace treematch::bench {

std::optional<PeerMachine> peer_machine(const Topology& topology, std::string& why) {
  if (topology.depth() == 0) {
    why = "n/a: a one-leaf tree";
    return std::nullopt;
  }
  if (topology.has_holes()) {
    why = "n/a: VieM and SharedMap take only full balanced trees";
    return std::nullopt;
  }
  // From the cores up: the arity of each level, and the distance from core 0 to the first core
  // of its next sibling group at that level.
  std::vector<long long> arities;
  std::vector<double> distances;
  Index group = 1;
  for (int depth = topology.depth() - 1; depth >= 0; --depth) {
    const Index arity = topology.levels()[static_cast<std::size_t>(depth)].arity;
    arities.push_back(arity);
    distances.push_back(topology.weighted_distance(0, group));
    group *= arity;
  }
  double largest = 0.0;
  bool integral = true;
  for (const double d : distances) {
    largest = std::max(largest, d);
    integral = integral && d == std::round(d);
  }
  const double scale = integral && largest <= 1e6 ? 1.0 : (largest > 0.0 ? 1e6 / largest : 1.0);
  PeerMachine machine;
  for (std::size_t l = 0; l < arities.size(); ++l) {
    const auto d = std::max(1LL, std::llround(distances[l] * scale));
    machine.hierarchy += fmt::format("{}{}", l == 0 ? "" : ":", arities[l]);
    machine.distances += fmt::format("{}{}", l == 0 ? "" : ":", d);
    machine.largest_distance = std::max(machine.largest_distance, d);
  }
  return machine;
}

PeerWeights write_peer_graph(const std::string& path, const CommGraph& graph,
                             long long largest_distance) {
  const kernels::CsrView csr = graph.view();
  const double cost_scale = graph.cost_scale();
  double sum = 0.0;
  bool integers = true;
  long long arcs = 0;
  for (const Weight w : csr.weights) {
    const double value = w * cost_scale;
    sum += value;
    integers = integers && value == std::floor(value);
    arcs += value != 0.0;
  }
  PeerWeights info;
  const double limit =
      static_cast<double>(kPeerObjectiveLimit) / static_cast<double>(largest_distance);
  if (!integers || sum > limit) {
    info.scale = sum > 0.0 ? limit / sum : 1.0;
    info.exact = false;
  }
  std::ofstream out(path);
  // "001", not "1": SharedMap reads the format field as three digits.
  out << csr.n << ' ' << arcs / 2 << " 001\n";
  for (Index i = 0; i < csr.n; ++i) {
    bool first = true;
    for (Offset e = csr.row_begin(i); e < csr.row_end(i); ++e) {
      const double value = csr.weights[static_cast<std::size_t>(e)] * cost_scale;
      if (value == 0.0) continue;
      const auto weight = std::max(1LL, std::llround(value * info.scale));
      out << (first ? "" : " ") << csr.targets[static_cast<std::size_t>(e)] + 1LL << ' ' << weight;
      first = false;
    }
    out << '\n';
  }
  if (!out) throw std::runtime_error(path + ": cannot write the peers' METIS graph");
  return info;
}

Mapping read_peer_mapping(const std::string& path, Index processes) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the mapper's output");
  Mapping mapping;
  mapping.leaf_of_rank.assign(static_cast<std::size_t>(processes), -1);
  std::vector<bool> used(static_cast<std::size_t>(processes), false);
  for (Index i = 0; i < processes; ++i) {
    long long core = -1;
    if (!(in >> core) || core < 0 || core >= processes || used[static_cast<std::size_t>(core)]) {
      throw std::runtime_error(
          fmt::format("{}:{}: expected a core in [0, {}) not given before, one per process", path,
                      i + 1, processes));
    }
    used[static_cast<std::size_t>(core)] = true;
    mapping.leaf_of_rank[static_cast<std::size_t>(i)] = static_cast<Index>(core);
  }
  return mapping;
}

}  // namespace treematch::bench
