// What --simulate prints and saves: simulated and predicted times per mapping, and how well the
// model's measures order the mappings like the simulator.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/bench/report.h"

namespace treematch::bench {

/// How well one measure (predicted time, congestion norm, weighted sum) orders the mappings like
/// one simulated time (the replay's, or the halo's communication).
struct OrderAgreement {
  std::string measure;
  std::string simulated;       ///< "replay" or "halo communication"
  double mean_per_case = 0.0;  ///< mean of each case's Spearman over its mappings
  int cases = 0;               ///< cases with a defined Spearman
  /// Spearman over every case's mappings at once, each value divided by the geometric mean of that
  /// measure over its case's mappings (so that cases of different scales pool).
  double pooled = 0.0;
  int pooled_pairs = 0;
};

/// The three measures' agreement with the simulated replay, then the predicted time's with the
/// halo's communication, over the cases that were simulated.
std::vector<OrderAgreement> order_agreements(const std::vector<CaseResult>& results);

/// Per simulated case, one row per mapping: weighted sum, congestion norm, predicted time,
/// simulated replay, halo loop and its communication, and the simulation's wall time; then the
/// case's Spearman(predicted, replay) and treematch congestion's replay against Scotch's and
/// treematch sum's. Then order_agreements. "" when no case was simulated.
std::string render_simulation(const std::vector<CaseResult>& results);

/// CaseResult::simulated as JSON (an array, one object per mapping).
nlohmann::json simulation_json(const CaseResult& result);

}  // namespace treematch::bench
