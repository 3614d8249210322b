// The input of a mapping run, wherever its rows live: this process (CommGraph) or MPI ranks.
#pragma once

#include <memory>

#include "src/model/comm_graph.h"
#include "src/model/cost.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"
#include "src/walk/level_matrix.h"

namespace treematch {

/// What the TreeMatch driver asks of its input matrix.
class MappingInput {
 public:
  virtual ~MappingInput() = default;

  /// Processes p.
  [[nodiscard]] virtual Index size() const = 0;
  /// Stored entries of the symmetric graph, over all ranks.
  [[nodiscard]] virtual Offset entries() const = 0;
  /// The first level's matrix, fresh for each walk (walks may share cut-down copies).
  [[nodiscard]] virtual std::unique_ptr<LevelMatrix> first_level() const = 0;
  /// evaluate_cost of `mapping` on `topology` (bit-identical wherever the rows live).
  [[nodiscard]] virtual MappingCost cost(const Topology& topology,
                                         const Mapping& mapping) const = 0;
  /// The whole graph in this process, for the phases that need every row (top-down mapping,
  /// swap refinement): a distributed input gathers it on first use.
  [[nodiscard]] virtual const CommGraph& whole() const = 0;
};

/// A CommGraph held by this process.
class LocalMappingInput final : public MappingInput {
 public:
  /// Views `graph`, which must outlive this object.
  explicit LocalMappingInput(const CommGraph& graph)
      : graph_(graph), links_(std::make_shared<LinkCache>()) {}

  [[nodiscard]] Index size() const override { return graph_.size(); }
  [[nodiscard]] Offset entries() const override { return graph_.nnz(); }
  [[nodiscard]] std::unique_ptr<LevelMatrix> first_level() const override {
    return std::make_unique<LocalLevelMatrix>(graph_.view(), links_);
  }
  [[nodiscard]] MappingCost cost(const Topology& topology, const Mapping& mapping) const override {
    return evaluate_cost(graph_, topology, mapping);
  }
  [[nodiscard]] const CommGraph& whole() const override { return graph_; }

 private:
  const CommGraph& graph_;
  std::shared_ptr<LinkCache> links_;
};

}  // namespace treematch
