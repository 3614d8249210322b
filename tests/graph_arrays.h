// A CommGraph's stored arrays as a value, so tests can compare two graphs with ==.
#pragma once

#include <vector>

#include "src/model/comm_graph.h"

namespace treematch::testing {

/// The stored arrays and flags of a graph, comparable with ==.
struct GraphArrays {
  Index n = 0;
  std::vector<Offset> offsets;
  std::vector<Index> targets;
  std::vector<Weight> weights;
  bool symmetrised = false;
  bool operator==(const GraphArrays&) const = default;
};

inline GraphArrays arrays(const CommGraph& g) {
  const kernels::CsrView v = g.view();
  return {g.size(),
          {v.offsets.begin(), v.offsets.end()},
          {v.targets.begin(), v.targets.end()},
          {v.weights.begin(), v.weights.end()},
          g.was_symmetrised()};
}

}  // namespace treematch::testing
