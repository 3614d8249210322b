// What a mapping report shows, as plain data (no markup): inputs, costs, traffic per level, heat
// maps.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/cost.h"
#include "src/model/link_load.h"
#include "src/model/mapping.h"
#include "src/report/binned_matrix.h"
#include "src/tree/topology.h"

namespace treematch {

/// One row of the cost table: a mapping of the matrix and what it costs.
struct ReportCost {
  std::string name;         ///< "treematch", "packed", "round-robin", ...
  std::string description;  ///< what the mapping is, one phrase
  MappingCost cost;
  double seconds = 0.0;  ///< time to compute the mapping
  std::string skipped;   ///< why it was not computed (then `cost` is zero); empty otherwise
  std::optional<LinkLoads> links;  ///< its loads on the machine's links, when computed
};

/// The traffic whose two ends meet a given number of levels above the leaves, under two mappings.
struct LevelTraffic {
  int height = 0;                  ///< of the lowest common ancestor (0 = both on one leaf)
  std::string meets_in;            ///< name of that ancestor's level, "root" at the top
  Index nodes = 1;                 ///< nodes of that level in the tree
  int hops = 0;                    ///< tree edges between the two leaves
  double weighted_distance = 0.0;  ///< sum of the link costs on that path
  double reference = 0.0;          ///< volume under the reference mapping (the identity)
  double mapped = 0.0;             ///< volume under the mapping being reported
};

/// One row per height 0..topology.depth() (traffic_by_height of both mappings, which must be
/// valid for `topology`: see evaluate_cost). Level names come from topology.levels(); an unnamed
/// level is called "depth d". Throws what traffic_by_height throws.
std::vector<LevelTraffic> level_traffic(const CommGraph& graph, const Topology& topology,
                                        const Mapping& reference, const Mapping& mapped);

/// A labelled value of the report, already formatted for reading.
struct ReportField {
  std::string name;
  std::string value;
};

/// Everything the report page shows about one mapping run.
struct MappingReport {
  std::string title;
  std::vector<ReportField> inputs;   ///< matrix, sizes, topology description...
  std::vector<TreeLevel> levels;     ///< the topology's levels, root first
  int machine_level = 0;             ///< levels above one machine (Topology::machine_level)
  std::vector<ReportField> options;  ///< the options of the run
  std::string context;               ///< the effective Context (describe), one setting a line
  std::vector<std::pair<std::string, double>> seconds;  ///< phase name, wall seconds
  std::vector<ReportCost> costs;      ///< the reported mapping first, then the baselines
  std::string link_model;             ///< describe(LinkModel) of the links the loads are on
  std::string reference_name;         ///< the mapping behind LevelTraffic::reference
  std::string mapped_name;            ///< the mapping behind LevelTraffic::mapped and mapped_order
  std::vector<LevelTraffic> traffic;  ///< height 0 first
  BinnedMatrix rank_order;            ///< row/column = rank
  /// Ranks the identity puts on each leaf (--oversubscribe), so that node boundaries can be drawn
  /// in rank order too; 0 when the identity skips leaves (--cores) and no such lines exist.
  Index identity_ranks_per_leaf = 1;
  BinnedMatrix mapped_order;  ///< row/column = the leaf the rank was placed on
};

}  // namespace treematch
