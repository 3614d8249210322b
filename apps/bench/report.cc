// Renders treematch-bench's results as text tables and as JSON.
#include "apps/bench/report.h"

#include <fmt/format.h>

namespace treematch::bench {
namespace {

std::string cost_cell(double value) {
  return fmt::format("{:.4g}", value);
}

const BaselineResult* find_baseline(const CaseResult& c, const std::string& name) {
  for (const BaselineResult& b : c.baselines) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::string baseline_cell(const CaseResult& c, const std::string& name, bool weighted) {
  const BaselineResult* b = find_baseline(c, name);
  if (b == nullptr || !b->ok()) return "-";
  return cost_cell(weighted ? b->cost.weighted : b->cost.hop_bytes);
}

std::string tool_cell(const ToolResult& t, double value) {
  if (!t.attempted) return "n/a";
  if (!t.ok()) return "FAIL";
  return cost_cell(value);
}

std::string ratio_cell(double a, double b) {
  if (b == 0.0) return a == 0.0 ? "1.000" : "inf";
  return fmt::format("{:.3f}", a / b);
}

/// Numbered notes under a table, referenced from the rows as [k].
class Notes {
 public:
  std::string add(const std::string& text) {
    lines_.push_back(text);
    return fmt::format("[{}]", lines_.size());
  }
  [[nodiscard]] std::string render() const {
    std::string out;
    for (std::size_t i = 0; i < lines_.size(); ++i)
      out += fmt::format("  [{}] {}\n", i + 1, lines_[i]);
    return out;
  }

 private:
  std::vector<std::string> lines_;
};

std::string row_notes(const CaseResult& c, Notes& notes) {
  std::string refs;
  if (!c.error.empty()) return notes.add(c.name + ": " + c.error);
  if (c.treematch.attempted && !c.treematch.ok()) {
    refs += notes.add(c.name + " treematch: " + c.treematch.failure);
  }
  if (!c.scotch.ok()) refs += notes.add(c.name + " scotch: " + c.scotch.failure);
  const auto overload_note = [&](const char* who, const ToolResult& tool) {
    if (!tool.ok() || tool.max_load <= 1) return;
    refs += notes.add(fmt::format("{} {}: {} of {} leaves hold more than one process (at most {})",
                                  c.name, who, tool.overloaded_leaves, c.leaves, tool.max_load));
  };
  overload_note("treematch", c.treematch);
  overload_note("scotch", c.scotch);
  if (c.treematch.varied)
    refs += notes.add(c.name + " treematch printed different mappings across --repeat runs");
  if (c.scotch.varied)
    refs += notes.add(c.name + " scotch printed different mappings across --repeat runs");
  for (const BaselineResult& b : c.baselines) {
    if (!b.ok() && b.name != "MPIPP.5") refs += notes.add(c.name + " " + b.name + ": " + b.skipped);
  }
  return refs;
}

}  // namespace

std::string render_table(const std::vector<CaseResult>& results) {
  Notes notes;
  std::string out = fmt::format(
      "{:<13} {:>6} {:>7} {:>6} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>10} {:>10} | {:>7} {:>7} "
      "{:>6} | {:>6} {:>6} "
      "| {:>5} {}\n",
      "case", "p", "nnz", "leaves", "TM hop-B", "Sc hop-B", "TM/Sc", "packed", "RR", "random",
      "MPIPP.5", "TM s", "Sc s", "TM/Sc", "TM MiB", "Sc MiB", "Sc ml", "notes");
  out += std::string(out.size() - 1, '-') + "\n";
  for (const CaseResult& c : results) {
    if (!c.error.empty()) {
      out += fmt::format("{:<13} {:>6} {:>7} {:>6} | not run {}\n", c.name,
                         c.processes > 0 ? std::to_string(c.processes) : "-",
                         c.entries > 0 ? std::to_string(c.entries) : "-",
                         c.leaves > 0 ? std::to_string(c.leaves) : "-", row_notes(c, notes));
      continue;
    }
    const ToolResult& tm = c.treematch;
    const ToolResult& sc = c.scotch;
    const bool both = tm.ok() && sc.ok();
    out += fmt::format(
        "{:<13} {:>6} {:>7} {:>6} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>10} {:>10} | {:>7} "
        "{:>7} {:>6} | {:>6} "
        "{:>6} | {:>5} {}\n",
        c.name, c.processes, c.entries, c.leaves, tool_cell(tm, tm.cost.hop_bytes),
        tool_cell(sc, sc.cost.hop_bytes),
        both ? ratio_cell(tm.cost.hop_bytes, sc.cost.hop_bytes) : "-",
        baseline_cell(c, "packed", false), baseline_cell(c, "round-robin", false),
        baseline_cell(c, "random", false), baseline_cell(c, "MPIPP.5", false),
        tm.ok() ? fmt::format("{:.3f}", tm.min_wall_seconds) : "-",
        sc.ok() ? fmt::format("{:.3f}", sc.min_wall_seconds) : "-",
        both ? ratio_cell(tm.min_wall_seconds, sc.min_wall_seconds) : "-",
        tm.ok() ? fmt::format("{:.1f}", tm.max_rss_mib) : "-",
        sc.ok() ? fmt::format("{:.1f}", sc.max_rss_mib) : "-",
        sc.ok() ? std::to_string(sc.max_load) : "-", row_notes(c, notes));
  }
  std::string scaled;
  for (const CaseResult& c : results) {
    if (c.error.empty() && c.scotch.attempted && !c.scotch_weights.exact)
      scaled += (scaled.empty() ? "" : ", ") + c.name;
  }
  out += notes.render();
  if (!scaled.empty()) {
    out +=
        "  Scotch edge loads are rounded integers (weights not integral or sum too large) for: " +
        scaled + "\n";
  }
  return out;
}

std::string render_weighted_table(const std::vector<CaseResult>& results) {
  std::string out = fmt::format(
      "{:<13} {:<34} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>10} {:>10}\n", "case",
      "topology (link costs)", "TM", "Scotch", "TM/Sc", "packed", "RR", "random", "MPIPP.5");
  out += std::string(out.size() - 1, '-') + "\n";
  for (const CaseResult& c : results) {
    if (!c.error.empty()) continue;
    const ToolResult& tm = c.treematch;
    const ToolResult& sc = c.scotch;
    std::string topo = c.topology_tleaf;
    if (topo.size() > 34) topo = topo.substr(0, 31) + "...";
    out +=
        fmt::format("{:<13} {:<34} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>10} {:>10}\n", c.name,
                    topo, tool_cell(tm, tm.cost.weighted), tool_cell(sc, sc.cost.weighted),
                    tm.ok() && sc.ok() ? ratio_cell(tm.cost.weighted, sc.cost.weighted) : "-",
                    baseline_cell(c, "packed", true), baseline_cell(c, "round-robin", true),
                    baseline_cell(c, "random", true), baseline_cell(c, "MPIPP.5", true));
  }
  return out;
}

namespace {

nlohmann::json cost_json(const MappingCost& cost) {
  return nlohmann::json{{"hop_bytes", cost.hop_bytes}, {"weighted", cost.weighted}};
}

nlohmann::json tool_json(const ToolResult& t) {
  nlohmann::json j{{"attempted", t.attempted}, {"ok", t.ok()}};
  if (!t.attempted || !t.ok()) j["failure"] = t.failure;
  if (!t.attempted) return j;
  j["command"] = t.command;
  j["wall_seconds"] = t.wall_seconds;
  j["min_wall_seconds"] = t.min_wall_seconds;
  j["max_rss_mib"] = t.max_rss_mib;
  j["log_tail"] = t.log_tail;
  if (t.ok()) {
    j["cost"] = cost_json(t.cost);
    j["max_load"] = t.max_load;
    j["overloaded_leaves"] = t.overloaded_leaves;
    j["mapping_varied_across_runs"] = t.varied;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const RunInfo& info, const std::vector<CaseResult>& results) {
  nlohmann::json run{
      {"treematch", info.treematch},
      {"scotch_gmap", info.scotch.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.scotch)},
      {"scotch_gmap_args", info.scotch_args},
      {"data_dir", info.data_dir},
      {"seed", info.seed},
      {"threads", info.threads},
      {"repeat", info.repeat},
      {"rss_floor_mib", info.rss_floor_mib},
      {"total_seconds", info.total_seconds}};
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : results) {
    nlohmann::json j{{"case", c.name}};
    if (!c.error.empty()) j["error"] = c.error;
    j["matrix"] = c.matrix_origin;
    j["topology"] = c.topology_spec;
    j["topology_tleaf"] = c.topology_tleaf;
    j["processes"] = c.processes;
    j["entries"] = c.entries;
    j["leaves"] = c.leaves;
    if (c.error.empty()) {
      j["matrix_file_for_treematch"] = c.matrix_file;
      j["scotch_target"] = c.scotch_target;
      j["scotch_edge_loads"] = {{"scale", c.scotch_weights.scale},
                                {"exact", c.scotch_weights.exact},
                                {"sum", c.scotch_weights.load_sum},
                                {"clamped_to_1", c.scotch_weights.clamped}};
      j["treematch"] = tool_json(c.treematch);
      j["scotch"] = tool_json(c.scotch);
      nlohmann::json baselines = nlohmann::json::object();
      for (const BaselineResult& b : c.baselines) {
        baselines[b.name] =
            b.ok() ? nlohmann::json{{"cost", cost_json(b.cost)}, {"seconds", b.seconds}}
                   : nlohmann::json{{"skipped", b.skipped}};
      }
      j["baselines"] = baselines;
    }
    cases.push_back(std::move(j));
  }
  return nlohmann::json{{"run", run}, {"cases", cases}};
}

}  // namespace treematch::bench
