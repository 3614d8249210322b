#include "apps/bench/simulation_report.h"

#include <cmath>
#include <functional>
#include <tuple>

#include <fmt/format.h>

#include "apps/bench/rank_correlation.h"

namespace treematch::bench {
namespace {

using Measure = std::function<double(const SimulatedMapping&)>;

/// The simulated mappings of a case that gave a time.
std::vector<const SimulatedMapping*> simulated_ok(const CaseResult& c) {
  std::vector<const SimulatedMapping*> ok;
  for (const SimulatedMapping& s : c.simulated) {
    if (s.failure.empty()) ok.push_back(&s);
  }
  return ok;
}

/// values / their geometric mean (all must be > 0; else returned as they are).
std::vector<double> normalised(std::vector<double> values) {
  double log_sum = 0.0;
  for (const double v : values) {
    if (!(v > 0.0)) return values;
    log_sum += std::log(v);
  }
  const double mean = std::exp(log_sum / static_cast<double>(values.size()));
  for (double& v : values) v /= mean;
  return values;
}

const SimulatedMapping* find(const CaseResult& c, const std::string& name) {
  for (const SimulatedMapping& s : c.simulated) {
    if (s.name == name && s.failure.empty()) return &s;
  }
  return nullptr;
}

std::string ratio_text(const SimulatedMapping* a, const SimulatedMapping* b) {
  return a && b && b->replay_seconds > 0.0
             ? fmt::format("{:.4f}", a->replay_seconds / b->replay_seconds)
             : std::string("n/a");
}

}  // namespace

std::vector<OrderAgreement> order_agreements(const std::vector<CaseResult>& results) {
  const Measure predicted = [](const SimulatedMapping& s) { return s.predicted; };
  const Measure replay = [](const SimulatedMapping& s) { return s.replay_seconds; };
  const Measure halo = [](const SimulatedMapping& s) { return s.halo_communication_seconds; };
  const std::tuple<const char*, Measure, const char*, Measure> pairs[] = {
      {"predicted", predicted, "replay", replay},
      {"congestion", [](const SimulatedMapping& s) { return s.congestion; }, "replay", replay},
      {"weighted", [](const SimulatedMapping& s) { return s.weighted; }, "replay", replay},
      {"predicted", predicted, "halo communication", halo}};
  std::vector<OrderAgreement> agreements;
  for (const auto& [name, measure, target_name, target] : pairs) {
    OrderAgreement a;
    a.measure = name;
    a.simulated = target_name;
    std::vector<double> pooled_x;
    std::vector<double> pooled_y;
    double sum = 0.0;
    for (const CaseResult& c : results) {
      const std::vector<const SimulatedMapping*> ok = simulated_ok(c);
      std::vector<double> x;
      std::vector<double> y;
      for (const SimulatedMapping* s : ok) {
        x.push_back(measure(*s));
        y.push_back(target(*s));
      }
      if (const std::optional<double> rho = spearman(x, y)) {
        sum += *rho;
        ++a.cases;
      }
      if (x.size() < 2) continue;
      for (const double v : normalised(x)) pooled_x.push_back(v);
      for (const double v : normalised(y)) pooled_y.push_back(v);
    }
    if (a.cases > 0) a.mean_per_case = sum / a.cases;
    a.pooled = spearman(pooled_x, pooled_y).value_or(0.0);
    a.pooled_pairs = static_cast<int>(pooled_x.size());
    agreements.push_back(a);
  }
  return agreements;
}

std::string render_simulation(const std::vector<CaseResult>& results) {
  std::string out;
  for (const CaseResult& c : results) {
    if (c.simulated.empty() && c.simulation_error.empty()) continue;
    out += fmt::format("{} ({} ranks)\n", c.name, c.processes);
    if (!c.simulation_error.empty()) {
      out += "  not simulated: " + c.simulation_error + "\n";
      continue;
    }
    out +=
        fmt::format("  {:<22}{:>14}{:>14}{:>14}{:>14}{:>14}{:>14}{:>10}\n", "mapping", "weighted",
                    "congestion s", "predicted s", "replay s", "halo s", "halo comm s", "sim s");
    std::vector<double> predicted;
    std::vector<double> replay;
    for (const SimulatedMapping& s : c.simulated) {
      if (!s.failure.empty()) {
        out += fmt::format("  {:<22}FAILED: {}\n", s.name, s.failure);
        continue;
      }
      out +=
          fmt::format("  {:<22}{:>14.6g}{:>14.6g}{:>14.6g}{:>14.6g}{:>14.6g}{:>14.6g}{:>10.1f}\n",
                      s.name, s.weighted, s.congestion, s.predicted, s.replay_seconds,
                      s.halo_seconds, s.halo_communication_seconds, s.wall_seconds);
      predicted.push_back(s.predicted);
      replay.push_back(s.replay_seconds);
    }
    const std::optional<double> rho = spearman(predicted, replay);
    const SimulatedMapping* congestion = find(c, "treematch-congestion");
    out += fmt::format(
        "  Spearman(predicted, replay) {}; replay of treematch-congestion / scotch {}, / "
        "treematch-sum {}\n",
        rho ? fmt::format("{:.3f}", *rho) : std::string("n/a (ties)"),
        ratio_text(congestion, find(c, "scotch")),
        ratio_text(congestion, find(c, "treematch-sum")));
  }
  if (out.empty()) return out;
  out +=
      "Order agreement with the simulation (Spearman; pooled: every case's mappings, each "
      "value divided by its case's geometric mean):\n";
  for (const OrderAgreement& a : order_agreements(results)) {
    out += fmt::format(
        "  {:<10} vs {:<18} mean per case {:.3f} over {} case(s); pooled {:.3f} over {} "
        "mappings\n",
        a.measure, a.simulated, a.mean_per_case, a.cases, a.pooled, a.pooled_pairs);
  }
  return out;
}

nlohmann::json simulation_json(const CaseResult& result) {
  nlohmann::json mappings = nlohmann::json::array();
  for (const SimulatedMapping& s : result.simulated) {
    nlohmann::json j{{"mapping", s.name},
                     {"weighted", s.weighted},
                     {"congestion_seconds", s.congestion},
                     {"predicted_seconds", s.predicted},
                     {"simulation_wall_seconds", s.wall_seconds}};
    if (s.failure.empty()) {
      j["replay_seconds"] = s.replay_seconds;
      j["halo_seconds"] = s.halo_seconds;
      j["halo_communication_seconds"] = s.halo_communication_seconds;
    } else {
      j["failure"] = s.failure;
    }
    mappings.push_back(std::move(j));
  }
  return mappings;
}

}  // namespace treematch::bench
