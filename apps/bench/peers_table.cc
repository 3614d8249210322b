// The peers table: each preset's cost and time against the best peer, case by case.
#include "apps/bench/peers_table.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace treematch::bench {
namespace {

std::string cost_text(const ToolResult& t) {
  return t.ok() ? fmt::format("{:.6g}", t.cost.weighted) : std::string("-");
}

std::string time_text(const ToolResult& t) {
  return t.ok() ? fmt::format("{:.2f}", t.min_wall_seconds) : std::string("-");
}

/// Running geometric mean and worst case of one preset's cost / best peer.
struct PeerMeans {
  int cases = 0;
  int at_or_below = 0;
  double log_sum = 0.0;
  double worst = 0.0;
  std::string worst_case;
};

}  // namespace

const ToolResult* best_peer(const CaseResult& c) {
  const ToolResult* best = nullptr;
  for (const ToolResult* t : {&c.scotch, &c.scotch_cq, &c.scotch_b0, &c.viem, &c.sharedmap}) {
    if (!t->ok() || t->max_load > 1) continue;
    if (best == nullptr || t->cost.weighted < best->cost.weighted) best = t;
  }
  return best;
}

std::string peer_name(const CaseResult& c, const ToolResult* peer) {
  if (peer == &c.scotch) return "scotch";
  if (peer == &c.scotch_cq) return "scotch-cq";
  if (peer == &c.scotch_b0) return "scotch-b0";
  if (peer == &c.viem) return "viem";
  if (peer == &c.sharedmap) return "sharedmap";
  return "-";
}

std::string render_peers(const std::vector<CaseResult>& results) {
  std::vector<std::string> presets;
  for (const CaseResult& c : results) {
    for (const PresetResult& p : c.presets) {
      if (std::find(presets.begin(), presets.end(), p.preset) == presets.end())
        presets.push_back(p.preset);
    }
  }
  if (presets.empty()) return "";
  std::string out =
      fmt::format("{:<28} {:>6} | {:>11} {:>11} {:>11} {:>8} {:>11} {:>8} | {:<9}", "case", "p",
                  "Scotch", "Scotch -cq", "VieM", "VieM s", "SharedMap", "SM s", "best");
  for (const std::string& preset : presets)
    out += fmt::format(" | {:>8} {:>8}", fmt::format("{}/b", preset), "s/VieM");
  const std::size_t width = out.size();
  out += '\n';
  out.append(width, '-');
  out += '\n';
  std::map<std::string, PeerMeans> means;
  for (const CaseResult& c : results) {
    if (!c.error.empty()) continue;
    const ToolResult* peer = best_peer(c);
    out += fmt::format("{:<28} {:>6} | {:>11} {:>11} {:>11} {:>8} {:>11} {:>8} | {:<9}", c.name,
                       c.processes, cost_text(c.scotch), cost_text(c.scotch_cq), cost_text(c.viem),
                       time_text(c.viem), cost_text(c.sharedmap), time_text(c.sharedmap),
                       peer_name(c, peer));
    for (const std::string& preset : presets) {
      const auto it = std::find_if(c.presets.begin(), c.presets.end(),
                                   [&](const PresetResult& p) { return p.preset == preset; });
      if (it == c.presets.end() || !it->tool.ok()) {
        out += fmt::format(" | {:>8} {:>8}", "-", "-");
        continue;
      }
      std::string ratio = "-";
      if (peer != nullptr && peer->cost.weighted > 0.0) {
        const double r = it->tool.cost.weighted / peer->cost.weighted;
        ratio = fmt::format("{:.4f}", r);
        PeerMeans& m = means[preset];
        ++m.cases;
        m.at_or_below += r <= 1.0;
        m.log_sum += std::log(r);
        if (r > m.worst) {
          m.worst = r;
          m.worst_case = c.name;
        }
      }
      const std::string time =
          c.viem.ok() && c.viem.min_wall_seconds > 0.0
              ? fmt::format("{:.3f}", it->tool.min_wall_seconds / c.viem.min_wall_seconds)
              : "-";
      out += fmt::format(" | {:>8} {:>8}", ratio, time);
    }
    out += "\n";
  }
  for (const std::string& preset : presets) {
    const PeerMeans& m = means[preset];
    if (m.cases == 0) continue;
    out += fmt::format(
        "{:<8} cost / best peer: geometric mean {:.4f} over {} case(s), at or below it on {}, "
        "worst {:.4f} ({})\n",
        preset, std::exp(m.log_sum / m.cases), m.cases, m.at_or_below, m.worst, m.worst_case);
  }
  return out;
}

}  // namespace treematch::bench
