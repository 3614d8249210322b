// Renders treematch-bench's results as text tables and as JSON.
#include "apps/bench/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "apps/bench/simulation_report.h"

namespace treematch::bench {

PhaseSeconds ToolResult::fastest_phases() const {
  if (phases.empty() || phases.size() != wall_seconds.size()) return {};
  const auto fastest = std::min_element(wall_seconds.begin(), wall_seconds.end());
  return phases[static_cast<std::size_t>(fastest - wall_seconds.begin())];
}

double ToolResult::min_mapping_seconds() const {
  double best = 0.0;
  for (std::size_t i = 0; i < phases.size(); ++i)
    best = i == 0 ? phases[i].mapping : std::min(best, phases[i].mapping);
  return best;
}

std::optional<PowerFit> fit_power_law(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, double>> points;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i] > 0.0 && y[i] > 0.0) points.emplace_back(std::log(x[i]), std::log(y[i]));
  }
  if (points.size() < 2) return std::nullopt;
  double mx = 0.0;
  double my = 0.0;
  for (const auto& [lx, ly] : points) {
    mx += lx;
    my += ly;
  }
  mx /= static_cast<double>(points.size());
  my /= static_cast<double>(points.size());
  double sxx = 0.0;
  double sxy = 0.0;
  for (const auto& [lx, ly] : points) {
    sxx += (lx - mx) * (lx - mx);
    sxy += (lx - mx) * (ly - my);
  }
  if (sxx <= 0.0) return std::nullopt;
  PowerFit fit;
  fit.exponent = sxy / sxx;
  fit.coefficient = std::exp(my - fit.exponent * mx);
  fit.points = static_cast<int>(points.size());
  return fit;
}

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
  if (c.treematch_plain.attempted && !c.treematch_plain.ok()) {
    refs += notes.add(c.name + " treematch --no-refine: " + c.treematch_plain.failure);
  }
  if (!c.scotch.ok()) refs += notes.add(c.name + " scotch: " + c.scotch.failure);
  if (c.scotch_cq.attempted && !c.scotch_cq.ok() && c.scotch.ok())
    refs += notes.add(c.name + " scotch -cq: " + c.scotch_cq.failure);
  const auto overload_note = [&](const char* who, const ToolResult& tool) {
    if (!tool.ok() || tool.max_load <= 1) return;
    refs += notes.add(fmt::format("{} {}: {} of {} leaves hold more than one process (at most {})",
                                  c.name, who, tool.overloaded_leaves, c.leaves, tool.max_load));
  };
  const ToolResult& tm = c.treematch;
  if (tm.ok() && tm.reported_hop_bytes >= 0.0 &&
      std::abs(tm.reported_hop_bytes - tm.cost.hop_bytes) >
          1e-9 * std::max(1.0, std::abs(tm.cost.hop_bytes))) {
    refs += notes.add(
        fmt::format("{} treematch reported hop-bytes {:.10g}, evaluate_cost gives {:.10g}", c.name,
                    tm.reported_hop_bytes, tm.cost.hop_bytes));
  }
  overload_note("treematch", c.treematch);
  overload_note("scotch", c.scotch);
  overload_note("scotch -cq", c.scotch_cq);
  if (c.treematch.varied)
    refs += notes.add(c.name + " treematch printed different mappings across --repeat runs");
  if (c.scotch.varied)
    refs += notes.add(c.name + " scotch printed different mappings across --repeat runs");
  if (c.scotch_cq.varied)
    refs += notes.add(c.name + " scotch -cq printed different mappings across --repeat runs");
  for (const BaselineResult& b : c.baselines) {
    if (!b.ok() && b.name != "MPIPP.5") refs += notes.add(c.name + " " + b.name + ": " + b.skipped);
    if (b.ok() && b.name == "planted") {
      refs += notes.add(fmt::format(
          "{} planted mapping (each rank on the slot its row was generated for): hop-bytes "
          "{:.6g}{}",
          c.name, b.cost.hop_bytes,
          tm.ok() && b.cost.hop_bytes > 0.0
              ? fmt::format("; TM/planted = {:.5f}", tm.cost.hop_bytes / b.cost.hop_bytes)
              : std::string()));
    }
  }
  return refs;
}

}  // namespace

namespace {

double cost_of(const MappingCost& cost, CostKind kind) {
  return kind == CostKind::kWeighted ? cost.weighted : cost.hop_bytes;
}

/// The cheaper of the Scotch runs that succeeded (weighted cost decides), or null.
const ToolResult* best_scotch(const CaseResult& c, CostKind kind) {
  const ToolResult* best = nullptr;
  for (const ToolResult* sc : {&c.scotch, &c.scotch_cq}) {
    if (sc->ok() && (best == nullptr || cost_of(sc->cost, kind) < cost_of(best->cost, kind)))
      best = sc;
  }
  return best;
}

std::string load_cell(const ToolResult& t) {
  return t.ok() ? std::to_string(t.max_load) : std::string("-");
}

}  // namespace

std::string render_table(const std::vector<CaseResult>& results, CostKind kind) {
  Notes notes;
  const bool weighted = kind == CostKind::kWeighted;
  const auto line = [](const auto&... cells) {
    return fmt::format(
        "{:<12} {:>6} {:>8} {:>7} | {:>10} {:>10} {:>10} {:>10} {:>10} | {:>6} {:>6} {:>6} | "
        "{:>10} {:>10} {:>10} | {:>5} {:>5} {}\n",
        cells...);
  };
  std::string out =
      line("case", "p", "nnz", "leaves", "TM", "TM plain", "Sc", "Sc -cq", "Sc 1:1", "TM/Sc",
           "TM/1:1", "TM/pl", "packed", "RR", "MPIPP.5", "Sc ml", "cq ml", weighted ? "notes" : "");
  out += std::string(out.size() - 1, '-') + "\n";
  for (const CaseResult& c : results) {
    if (!c.error.empty()) {
      out += fmt::format("{:<12} {:>6} {:>8} {:>7} | not run {}\n", c.name,
                         c.processes > 0 ? std::to_string(c.processes) : "-",
                         c.entries > 0 ? std::to_string(c.entries) : "-",
                         c.leaves > 0 ? std::to_string(c.leaves) : "-",
                         weighted ? row_notes(c, notes) : "");
      continue;
    }
    const ToolResult& tm = c.treematch;
    const ToolResult& plain = c.treematch_plain;
    const ToolResult* sc = best_scotch(c, CostKind::kWeighted);
    out += line(
        c.name, c.processes, c.entries, c.leaves, tool_cell(tm, cost_of(tm.cost, kind)),
        tool_cell(plain, cost_of(plain.cost, kind)),
        tool_cell(c.scotch, cost_of(c.scotch.cost, kind)),
        tool_cell(c.scotch_cq, cost_of(c.scotch_cq.cost, kind)),
        tool_cell(c.scotch_b0, cost_of(c.scotch_b0.cost, kind)),
        tm.ok() && sc != nullptr ? ratio_cell(cost_of(tm.cost, kind), cost_of(sc->cost, kind))
                                 : "-",
        tm.ok() && c.scotch_b0.ok()
            ? ratio_cell(cost_of(tm.cost, kind), cost_of(c.scotch_b0.cost, kind))
            : "-",
        tm.ok() && plain.ok() ? ratio_cell(cost_of(tm.cost, kind), cost_of(plain.cost, kind)) : "-",
        baseline_cell(c, "packed", weighted), baseline_cell(c, "round-robin", weighted),
        baseline_cell(c, "MPIPP.5", weighted), load_cell(c.scotch), load_cell(c.scotch_cq),
        weighted ? row_notes(c, notes) : "");
  }
  if (!weighted) return out;
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

std::string render_times(const std::vector<CaseResult>& results) {
  const auto line = [](const auto&... cells) {
    return fmt::format(
        "{:<12} | {:>8} {:>8} | {:>8} {:>8} | {:>6} {:>6} | {:>8} {:>8} | {:>8} {:>8} {:>8} | "
        "{:>7} {:>7}\n",
        cells...);
  };
  std::string out = line("case", "TM s", "TM map", "plain s", "pl map", "wall", "map", "Sc s",
                         "Sc-cq s", "MPIPP.5", "packed", "RR", "TM MiB", "Sc MiB");
  out += std::string(out.size() - 1, '-') + "\n";
  const auto seconds = [](bool ok, double value) {
    return ok ? fmt::format("{:.3f}", value) : std::string("-");
  };
  const auto baseline_seconds = [](const CaseResult& c, const char* name) {
    const BaselineResult* b = find_baseline(c, name);
    return b != nullptr && b->ok() ? fmt::format("{:.3f}", b->seconds) : std::string("-");
  };
  for (const CaseResult& c : results) {
    if (!c.error.empty()) continue;
    const ToolResult& tm = c.treematch;
    const ToolResult& plain = c.treematch_plain;
    const bool both = tm.ok() && plain.ok();
    out += line(
        c.name, seconds(tm.ok(), tm.min_wall_seconds), seconds(tm.ok(), tm.min_mapping_seconds()),
        seconds(plain.ok(), plain.min_wall_seconds),
        seconds(plain.ok(), plain.min_mapping_seconds()),
        both ? ratio_cell(tm.min_wall_seconds, plain.min_wall_seconds) : "-",
        both ? ratio_cell(tm.min_mapping_seconds(), plain.min_mapping_seconds()) : "-",
        seconds(c.scotch.ok(), c.scotch.min_wall_seconds),
        seconds(c.scotch_cq.ok(), c.scotch_cq.min_wall_seconds), baseline_seconds(c, "MPIPP.5"),
        baseline_seconds(c, "packed"), baseline_seconds(c, "round-robin"),
        tm.ok() ? fmt::format("{:.1f}", tm.max_rss_mib) : "-",
        c.scotch.ok() ? fmt::format("{:.1f}", c.scotch.max_rss_mib) : "-");
  }
  return out;
}

std::string render_summary(const std::vector<CaseResult>& results) {
  std::string out;
  for (const CostKind kind : {CostKind::kWeighted, CostKind::kHopBytes}) {
    const char* label = kind == CostKind::kWeighted ? "weighted cost" : "hop-bytes";
    double log_tm = 0.0;
    double log_plain = 0.0;
    double log_default = 0.0;
    double log_cq = 0.0;
    double log_b0 = 0.0;
    int cases = 0;
    int cq_cases = 0;
    int b0_cases = 0;
    std::string worse_b0;
    std::string worse_scotch;
    std::string worse_identity;
    for (const CaseResult& c : results) {
      const ToolResult* sc = best_scotch(c, kind);
      if (!c.error.empty() || !c.treematch.ok() || !c.treematch_plain.ok() || sc == nullptr ||
          !c.scotch.ok())
        continue;
      const double tm = cost_of(c.treematch.cost, kind);
      const double best = cost_of(sc->cost, kind);
      if (tm <= 0.0 || best <= 0.0) continue;
      ++cases;
      log_tm += std::log(tm / best);
      log_plain += std::log(cost_of(c.treematch_plain.cost, kind) / best);
      log_default += std::log(tm / cost_of(c.scotch.cost, kind));
      if (c.scotch_cq.ok()) {
        ++cq_cases;
        log_cq += std::log(tm / cost_of(c.scotch_cq.cost, kind));
      }
      if (c.scotch_b0.ok()) {
        ++b0_cases;
        const double one_to_one = cost_of(c.scotch_b0.cost, kind);
        log_b0 += std::log(tm / one_to_one);
        if (tm > one_to_one * (1.0 + 1e-9))
          worse_b0 +=
              fmt::format("{}{} ({:.4f})", worse_b0.empty() ? "" : ", ", c.name, tm / one_to_one);
      }
      if (tm > best * (1.0 + 1e-9))
        worse_scotch +=
            fmt::format("{}{} ({:.4f})", worse_scotch.empty() ? "" : ", ", c.name, tm / best);
      const BaselineResult* packed = find_baseline(c, "packed");
      if (packed != nullptr && packed->ok() && tm > cost_of(packed->cost, kind) * (1.0 + 1e-9))
        worse_identity += (worse_identity.empty() ? "" : ", ") + c.name;
    }
    if (cases == 0) continue;
    out += fmt::format(
        "{}: geometric mean over {} case(s) of TM / best Scotch run = {:.4f} (TM without "
        "refinement: {:.4f}); TM / Scotch default = {:.4f}{}\n",
        label, cases, std::exp(log_tm / cases), std::exp(log_plain / cases),
        std::exp(log_default / cases),
        cq_cases > 0 ? fmt::format(", TM / Scotch -cq = {:.4f}", std::exp(log_cq / cq_cases))
                     : std::string());
    out += fmt::format("  costlier than the best Scotch run: {}\n",
                       worse_scotch.empty() ? "none" : worse_scotch);
    if (b0_cases > 0) {
      out += fmt::format(
          "  against Scotch one-to-one (-cq -b0): geometric mean over {} case(s) {:.4f}; "
          "costlier on: {}\n",
          b0_cases, std::exp(log_b0 / b0_cases), worse_b0.empty() ? "none" : worse_b0);
    }
    out += fmt::format("  costlier than the identity (packed): {}\n",
                       worse_identity.empty() ? "none" : worse_identity);
  }
  for (const CaseResult& c : results) {
    if (c.name != "S1" || !c.treematch.ok() || !c.treematch_plain.ok()) continue;
    out += fmt::format(
        "S1 refined / unrefined: whole command {:.3f} s / {:.3f} s = {:.2f}x, mapping phase "
        "{:.3f} s / {:.3f} s = {:.2f}x\n",
        c.treematch.min_wall_seconds, c.treematch_plain.min_wall_seconds,
        c.treematch.min_wall_seconds / c.treematch_plain.min_wall_seconds,
        c.treematch.min_mapping_seconds(), c.treematch_plain.min_mapping_seconds(),
        c.treematch.min_mapping_seconds() / c.treematch_plain.min_mapping_seconds());
  }
  return out;
}

std::string render_input_files(const std::vector<CaseResult>& results) {
  std::map<std::string, std::string> by_format;
  std::vector<std::string> order;
  for (const CaseResult& c : results) {
    if (c.matrix_file.empty()) continue;
    std::string& names = by_format[c.matrix_file];
    if (names.empty()) order.push_back(c.matrix_file);
    names += (names.empty() ? "" : ", ") + c.name;
  }
  std::string out;
  for (const std::string& format : order)
    out += fmt::format("  treematch read {}: {}\n", format, by_format[format]);
  return out;
}

std::string render_series(const std::vector<CaseResult>& results, const std::string& series) {
  std::vector<const CaseResult*> members;
  for (const CaseResult& c : results) {
    if (c.series == series) members.push_back(&c);
  }
  if (members.empty()) return "";
  std::string out = fmt::format(
      "{:<14} {:>7} {:>9} | {:>8} {:>8} | {:>7} {:>7} {:>8} {:>8} | {:>8} {:>8}\n", "case", "p",
      "nnz", "TM s", "ns/nnz", "read", "topo", "map", "ns/nnz", "TM MiB", "B/nnz");
  out += std::string(out.size() - 1, '-') + "\n";
  std::vector<double> nnz;
  std::vector<double> wall;
  std::vector<double> mapping;
  std::vector<double> read;
  std::vector<double> rss;
  for (const CaseResult* c : members) {
    const ToolResult& tm = c->treematch;
    if (!c->error.empty() || !tm.ok()) {
      out += fmt::format("{:<14} {:>7} {:>9} | not mapped ({})\n", c->name, c->processes,
                         c->entries, !c->error.empty() ? c->error : tm.failure);
      continue;
    }
    const PhaseSeconds phases = tm.fastest_phases();
    const auto e = static_cast<double>(c->entries);
    out += fmt::format(
        "{:<14} {:>7} {:>9} | {:>8.3f} {:>8.1f} | {:>7.3f} {:>7.3f} {:>8.3f} {:>8.1f} | {:>8.1f} "
        "{:>8.1f}\n",
        c->name, c->processes, c->entries, tm.min_wall_seconds, 1e9 * tm.min_wall_seconds / e,
        phases.read, phases.topology, phases.mapping, 1e9 * phases.mapping / e, tm.max_rss_mib,
        tm.max_rss_mib * 1024.0 * 1024.0 / e);
    nnz.push_back(e);
    wall.push_back(tm.min_wall_seconds);
    mapping.push_back(phases.mapping);
    read.push_back(phases.read);
    rss.push_back(tm.max_rss_mib);
  }
  const auto fit_text = [&](const char* what, const std::vector<double>& y) {
    const std::optional<PowerFit> fit = fit_power_law(nnz, y);
    return fit ? fmt::format("{} ~ nnz^{:.3f}", what, fit->exponent)
               : fmt::format("{}: too few points", what);
  };
  out +=
      fmt::format("fitted exponents (least squares on log-log over {} point(s)): {}; {}; {}; {}\n",
                  nnz.size(), fit_text("TM wall", wall), fit_text("mapping phase", mapping),
                  fit_text("read phase", read), fit_text("peak RSS", rss));
  return out;
}

namespace {

/// The cheaper Scotch run's name in the presets table and JSON.
std::string scotch_run_name(const CaseResult& c, const ToolResult* sc) {
  return sc == &c.scotch_cq ? "-cq" : "default";
}

/// A preset run's ratios (nullopt where one side is missing): cost / the cheaper of Scotch
/// default and -cq (weighted), whole-command time / that run's, cost / the optimum.
struct PresetRatios {
  const ToolResult* scotch = nullptr;  ///< the Scotch run compared with, or null
  std::optional<double> cost_vs_scotch;
  std::optional<double> time_vs_scotch;
  std::optional<double> cost_vs_optimum;
  std::optional<double> time_vs_eval;  ///< whole-command time / `treematch eval`'s
};

PresetRatios preset_ratios(const CaseResult& c, const ToolResult& tool) {
  PresetRatios r;
  if (!c.error.empty() || !tool.ok()) return r;
  r.scotch = best_scotch(c, CostKind::kWeighted);
  if (r.scotch != nullptr && r.scotch->cost.weighted > 0.0)
    r.cost_vs_scotch = tool.cost.weighted / r.scotch->cost.weighted;
  if (r.scotch != nullptr && r.scotch->min_wall_seconds > 0.0)
    r.time_vs_scotch = tool.min_wall_seconds / r.scotch->min_wall_seconds;
  if (c.optimum && c.optimum->weighted > 0.0)
    r.cost_vs_optimum = tool.cost.weighted / c.optimum->weighted;
  if (c.eval.ok() && c.eval.min_wall_seconds > 0.0)
    r.time_vs_eval = tool.min_wall_seconds / c.eval.min_wall_seconds;
  return r;
}

/// Geometric means of one preset's ratios over the cases where both sides exist.
struct PresetMeans {
  int scotch_cases = 0;  ///< cases with both a cost and a time ratio to Scotch
  double cost_vs_scotch = 0.0;
  double time_vs_scotch = 0.0;
  int optimum_cases = 0;
  double cost_vs_optimum = 0.0;
  int eval_cases = 0;  ///< cases with a time ratio to `treematch eval`
  double time_vs_eval = 0.0;
  double max_time_vs_eval = 0.0;
};

PresetMeans preset_means(const std::vector<CaseResult>& results, const std::string& preset) {
  PresetMeans m;
  for (const CaseResult& c : results) {
    for (const PresetResult& p : c.presets) {
      if (p.preset != preset) continue;
      const PresetRatios r = preset_ratios(c, p.tool);
      if (r.cost_vs_scotch && r.time_vs_scotch && *r.cost_vs_scotch > 0.0 &&
          *r.time_vs_scotch > 0.0) {
        ++m.scotch_cases;
        m.cost_vs_scotch += std::log(*r.cost_vs_scotch);
        m.time_vs_scotch += std::log(*r.time_vs_scotch);
      }
      if (r.cost_vs_optimum && *r.cost_vs_optimum > 0.0) {
        ++m.optimum_cases;
        m.cost_vs_optimum += std::log(*r.cost_vs_optimum);
      }
      if (r.time_vs_eval && *r.time_vs_eval > 0.0) {
        ++m.eval_cases;
        m.time_vs_eval += std::log(*r.time_vs_eval);
        m.max_time_vs_eval = std::max(m.max_time_vs_eval, *r.time_vs_eval);
      }
    }
  }
  if (m.scotch_cases > 0) {
    m.cost_vs_scotch = std::exp(m.cost_vs_scotch / m.scotch_cases);
    m.time_vs_scotch = std::exp(m.time_vs_scotch / m.scotch_cases);
  }
  if (m.optimum_cases > 0) m.cost_vs_optimum = std::exp(m.cost_vs_optimum / m.optimum_cases);
  if (m.eval_cases > 0) m.time_vs_eval = std::exp(m.time_vs_eval / m.eval_cases);
  return m;
}

/// The presets run, in the order of the first case that has them.
std::vector<std::string> preset_names(const std::vector<CaseResult>& results) {
  std::vector<std::string> names;
  for (const CaseResult& c : results) {
    for (const PresetResult& p : c.presets) {
      if (std::find(names.begin(), names.end(), p.preset) == names.end()) names.push_back(p.preset);
    }
  }
  return names;
}

std::string optional_ratio(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.3f}", *ratio) : std::string("-");
}

/// The rows of one set of thread counts and the first count's mapping-phase ratio to the others.
std::string render_thread_runs(const std::vector<ThreadRun>& runs) {
  std::string out = fmt::format("{:>7} | {:>8} {:>34} | {:>8} {:>8} | {}\n", "threads", "map s",
                                "(each run)", "TM s", "TM MiB", "mapping = first count's");
  out += std::string(out.size() - 1, '-') + "\n";
  for (const ThreadRun& run : runs) {
    const ToolResult& tm = run.tool;
    if (!tm.ok()) {
      out += fmt::format("{:>7} | FAILED: {}\n", run.threads, tm.failure);
      continue;
    }
    std::string each;
    for (const PhaseSeconds& p : tm.phases)
      each += fmt::format("{}{:.3f}", each.empty() ? "" : " ", p.mapping);
    out += fmt::format("{:>7} | {:>8.3f} {:>34} | {:>8.3f} {:>8.1f} | {}{}\n", run.threads,
                       tm.min_mapping_seconds(), "(" + each + ")", tm.min_wall_seconds,
                       tm.max_rss_mib, run.same_mapping ? "yes" : "NO",
                       tm.varied ? " (and varied across its own runs)" : "");
  }
  if (!runs.empty() && runs.front().tool.ok()) {
    const ThreadRun& first = runs.front();
    for (std::size_t i = 1; i < runs.size(); ++i) {
      const ThreadRun& other = runs[i];
      if (!other.tool.ok()) continue;
      out += fmt::format(
          "mapping phase t{}/t{} = {} (whole command: {})\n", first.threads, other.threads,
          ratio_cell(first.tool.min_mapping_seconds(), other.tool.min_mapping_seconds()),
          ratio_cell(first.tool.min_wall_seconds, other.tool.min_wall_seconds));
    }
  }
  return out;
}

}  // namespace

std::string render_presets(const std::vector<CaseResult>& results) {
  const std::vector<std::string> names = preset_names(results);
  if (names.empty()) return "";
  Notes notes;
  const auto line = [](const auto&... cells) {
    return fmt::format(
        "{:<12} {:<8} | {:>10} {:>7} {:>7} | {:>8} {:>7} {:<7} {:>7} | {:>8} | {:>8}{}\n",
        cells...);
  };
  std::string out = line("case", "preset", "cost", "/Sc", "/opt", "TM s", "/Sc s", "(Sc)", "/eval",
                         "map s", "MiB", " notes");
  out += std::string(out.size() - 1, '-') + "\n";
  for (const CaseResult& c : results) {
    if (!c.error.empty()) {
      out += fmt::format("{:<12} {:<8} | not run {}\n", c.name, "-",
                         notes.add(c.name + ": " + c.error));
      continue;
    }
    for (const PresetResult& p : c.presets) {
      const ToolResult& tm = p.tool;
      if (!tm.ok()) {
        out +=
            fmt::format("{:<12} {:<8} | FAIL {}\n", c.name, p.preset,
                        notes.add(fmt::format("{} --preset {}: {}", c.name, p.preset, tm.failure)));
        continue;
      }
      const PresetRatios r = preset_ratios(c, tm);
      std::string refs;
      if (tm.varied)
        refs += notes.add(fmt::format(
            "{} --preset {} printed different mappings across --repeat runs", c.name, p.preset));
      if (tm.max_load > 1)
        refs += notes.add(fmt::format("{} --preset {}: {} of {} leaves hold more than one process",
                                      c.name, p.preset, tm.overloaded_leaves, c.leaves));
      out += line(c.name, p.preset, cost_cell(tm.cost.weighted), optional_ratio(r.cost_vs_scotch),
                  optional_ratio(r.cost_vs_optimum), fmt::format("{:.3f}", tm.min_wall_seconds),
                  optional_ratio(r.time_vs_scotch),
                  r.scotch != nullptr ? scotch_run_name(c, r.scotch) : "-",
                  optional_ratio(r.time_vs_eval), fmt::format("{:.3f}", tm.min_mapping_seconds()),
                  fmt::format("{:.1f}", tm.max_rss_mib), refs.empty() ? "" : " " + refs);
    }
  }
  out += notes.render();
  std::string optima;
  for (const CaseResult& c : results) {
    if (c.optimum)
      optima += fmt::format("{}{} {:.6g}", optima.empty() ? "" : ", ", c.name, c.optimum->weighted);
  }
  if (!optima.empty()) out += "  optimum (nested blocks): " + optima + "\n";
  for (const std::string& preset : names) {
    const PresetMeans m = preset_means(results, preset);
    out += fmt::format(
        "{:<8} geometric means over {} case(s) with Scotch: cost / Scotch {}, time / "
        "Scotch {}{}{}\n",
        preset, m.scotch_cases, m.scotch_cases > 0 ? fmt::format("{:.4f}", m.cost_vs_scotch) : "-",
        m.scotch_cases > 0 ? fmt::format("{:.4f}", m.time_vs_scotch) : "-",
        m.optimum_cases > 0 ? fmt::format("; cost / optimum {:.4f} over {} case(s)",
                                          m.cost_vs_optimum, m.optimum_cases)
                            : std::string(),
        m.eval_cases > 0 ? fmt::format("; time / eval {:.2f} over {} case(s), at most {:.2f}",
                                       m.time_vs_eval, m.eval_cases, m.max_time_vs_eval)
                         : std::string());
  }
  return out;
}

std::vector<SeriesPoint> series_points(const std::vector<CaseResult>& results,
                                       const std::string& series, const std::string& preset) {
  std::vector<SeriesPoint> points;
  for (const CaseResult& c : results) {
    if (c.series != series || !c.error.empty()) continue;
    for (const PresetResult& p : c.presets) {
      if (p.preset != preset || !p.tool.ok()) continue;
      const PresetRatios ratios = preset_ratios(c, p.tool);
      points.push_back(SeriesPoint{c.name, c.processes, c.entries, p.tool.min_wall_seconds,
                                   p.tool.min_mapping_seconds(), ratios.time_vs_eval,
                                   ratios.cost_vs_optimum});
    }
  }
  return points;
}

std::optional<Flatness> flatness(const std::vector<double>& per_entry) {
  if (per_entry.size() < 2) return std::nullopt;
  std::vector<double> sorted = per_entry;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  Flatness f;
  f.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  f.lowest = sorted.front() / f.median;
  f.highest = sorted.back() / f.median;
  f.flat = f.lowest >= 1.0 - kFlatTolerance && f.highest <= 1.0 + kFlatTolerance;
  return f;
}

std::string render_series_presets(const std::vector<CaseResult>& results,
                                  const std::string& series) {
  std::string out;
  for (const std::string& preset : preset_names(results)) {
    const std::vector<SeriesPoint> points = series_points(results, series, preset);
    if (points.empty()) continue;
    const auto line = [](const auto&... cells) {
      return fmt::format("{:<14} {:>9} {:>10} | {:>8} {:>7} | {:>8} {:>7} | {:>6} {:>6}\n",
                         cells...);
    };
    out += fmt::format("--preset {}:\n", preset);
    out += line("case", "p", "nnz", "TM s", "ns/nnz", "map s", "ns/nnz", "/eval", "/opt");
    std::vector<double> nnz;
    std::vector<double> wall;
    std::vector<double> mapping;
    for (const SeriesPoint& point : points) {
      out += line(point.case_name, point.processes, point.entries,
                  fmt::format("{:.3f}", point.wall_seconds),
                  fmt::format("{:.1f}", 1e9 * point.wall_per_entry()),
                  fmt::format("{:.3f}", point.mapping_seconds),
                  fmt::format("{:.1f}", 1e9 * point.mapping_per_entry()),
                  optional_ratio(point.time_vs_eval), optional_ratio(point.cost_vs_optimum));
      nnz.push_back(static_cast<double>(point.entries));
      wall.push_back(point.wall_seconds);
      mapping.push_back(point.mapping_seconds);
    }
    // "TM s per entry 0.73x to 1.93x its median (not within +-30%), ~ nnz^0.877"
    const auto summary = [&](const char* what, const std::vector<double>& seconds) {
      std::vector<double> per_entry;
      for (std::size_t i = 0; i < seconds.size(); ++i) per_entry.push_back(seconds[i] / nnz[i]);
      const std::optional<Flatness> f = flatness(per_entry);
      const std::string spread =
          f ? fmt::format("{} per entry {:.2f}x to {:.2f}x its median ({}within +-{:.0f}%)", what,
                          f->lowest, f->highest, f->flat ? "" : "not ", 100.0 * kFlatTolerance)
            : fmt::format("{}: one point", what);
      const std::optional<PowerFit> fit = fit_power_law(nnz, seconds);
      return spread + ", " + (fit ? fmt::format("~ nnz^{:.3f}", fit->exponent) : "-");
    };
    out += fmt::format("  {}; {}\n", summary("TM s", wall), summary("map s", mapping));
  }
  return out;
}

std::string render_threads(const ThreadsResult& threads) {
  if (!threads.error.empty()) return threads.case_name + ": not run: " + threads.error + "\n";
  std::string out = render_thread_runs(threads.runs);
  for (const PresetThreads& preset : threads.presets) {
    out += fmt::format("--preset {} (mapping = this preset's first count's):\n", preset.preset);
    out += render_thread_runs(preset.runs);
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
  if (!t.note.empty()) j["note"] = t.note;
  j["command"] = t.command;
  j["wall_seconds"] = t.wall_seconds;
  j["min_wall_seconds"] = t.min_wall_seconds;
  j["max_rss_mib"] = t.max_rss_mib;
  j["log_tail"] = t.log_tail;
  if (!t.phases.empty()) {
    nlohmann::json runs = nlohmann::json::array();
    for (const PhaseSeconds& p : t.phases)
      runs.push_back({{"read", p.read}, {"topology", p.topology}, {"mapping", p.mapping}});
    j["phase_seconds"] = runs;
  }
  if (t.reported_hop_bytes >= 0.0) j["reported_hop_bytes"] = t.reported_hop_bytes;
  if (t.ok()) {
    j["cost"] = cost_json(t.cost);
    j["max_load"] = t.max_load;
    j["overloaded_leaves"] = t.overloaded_leaves;
    j["mapping_varied_across_runs"] = t.varied;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const RunInfo& info, const std::vector<CaseResult>& results,
                       const ThreadsResult* threads) {
  nlohmann::json run{
      {"treematch", info.treematch},
      {"scotch_gmap", info.scotch.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.scotch)},
      {"scotch_gmap_args", info.scotch_args},
      {"data_dir", info.data_dir},
      {"seed", info.seed},
      {"threads", info.threads},
      {"repeat", info.repeat},
      {"rss_floor_mib", info.rss_floor_mib},
      {"total_seconds", info.total_seconds},
      {"scotch_max_processes", info.scotch_max_processes},
      {"scotch_dense", info.scotch_dense},
      {"unit_costs", info.unit_costs},
      {"bench_peak_rss_mib", info.bench_peak_rss_mib},
      {"load_average_start", info.load_start},
      {"load_average_end", info.load_end}};
  if (!info.presets.empty()) run["presets"] = info.presets;
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : results) {
    nlohmann::json j{{"case", c.name}};
    if (!c.series.empty()) j["series"] = c.series;
    if (!c.error.empty()) j["error"] = c.error;
    j["matrix"] = c.matrix_origin;
    j["topology"] = c.topology_spec;
    j["topology_tleaf"] = c.topology_tleaf;
    j["processes"] = c.processes;
    j["entries"] = c.entries;
    j["leaves"] = c.leaves;
    if (c.error.empty()) {
      j["matrix_file_for_treematch"] = c.matrix_file;
      j["write_seconds"] = c.write_seconds;
      j["scotch_target"] = c.scotch_target;
      j["scotch_edge_loads"] = {{"scale", c.scotch_weights.scale},
                                {"exact", c.scotch_weights.exact},
                                {"sum", c.scotch_weights.load_sum},
                                {"clamped_to_1", c.scotch_weights.clamped}};
      j["treematch"] = tool_json(c.treematch);
      j["treematch_no_refine"] = tool_json(c.treematch_plain);
      j["scotch"] = tool_json(c.scotch);
      j["scotch_cq"] = tool_json(c.scotch_cq);
      j["scotch_cq_b0"] = tool_json(c.scotch_b0);
      j["viem_strong"] = tool_json(c.viem);
      j["sharedmap_strong"] = tool_json(c.sharedmap);
      nlohmann::json baselines = nlohmann::json::object();
      for (const BaselineResult& b : c.baselines) {
        baselines[b.name] =
            b.ok() ? nlohmann::json{{"cost", cost_json(b.cost)}, {"seconds", b.seconds}}
                   : nlohmann::json{{"skipped", b.skipped}};
      }
      j["baselines"] = baselines;
      if (c.optimum) j["optimum_nested_blocks"] = cost_json(*c.optimum);
      if (c.eval.attempted) j["treematch_eval"] = tool_json(c.eval);
      if (c.treematch_congestion.attempted)
        j["treematch_congestion"] = tool_json(c.treematch_congestion);
      if (!c.simulated.empty()) j["simulated"] = simulation_json(c);
      if (!c.simulation_error.empty()) j["simulation_error"] = c.simulation_error;
      if (!c.presets.empty()) {
        nlohmann::json presets = nlohmann::json::object();
        for (const PresetResult& p : c.presets) {
          nlohmann::json r = tool_json(p.tool);
          r["min_mapping_seconds"] = p.tool.min_mapping_seconds();
          const PresetRatios ratios = preset_ratios(c, p.tool);
          const auto optional_json = [](const std::optional<double>& v) {
            return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
          };
          r["scotch_compared"] = ratios.scotch != nullptr
                                     ? nlohmann::json(scotch_run_name(c, ratios.scotch))
                                     : nlohmann::json(nullptr);
          r["cost_vs_scotch"] = optional_json(ratios.cost_vs_scotch);
          r["time_vs_scotch"] = optional_json(ratios.time_vs_scotch);
          r["cost_vs_optimum"] = optional_json(ratios.cost_vs_optimum);
          r["time_vs_eval"] = optional_json(ratios.time_vs_eval);
          if (!p.mapping_digest.empty()) r["mapping_digest"] = p.mapping_digest;
          presets[p.preset] = std::move(r);
        }
        j["presets"] = std::move(presets);
      }
    }
    cases.push_back(std::move(j));
  }
  nlohmann::json out{{"run", run}, {"cases", cases}};
  for (const std::string& preset : preset_names(results)) {
    const PresetMeans m = preset_means(results, preset);
    nlohmann::json means{{"scotch_cases", m.scotch_cases}, {"optimum_cases", m.optimum_cases}};
    means["cost_vs_scotch"] =
        m.scotch_cases > 0 ? nlohmann::json(m.cost_vs_scotch) : nlohmann::json(nullptr);
    means["time_vs_scotch"] =
        m.scotch_cases > 0 ? nlohmann::json(m.time_vs_scotch) : nlohmann::json(nullptr);
    means["cost_vs_optimum"] =
        m.optimum_cases > 0 ? nlohmann::json(m.cost_vs_optimum) : nlohmann::json(nullptr);
    out["preset_geometric_means"][preset] = std::move(means);
  }
  std::map<std::string, bool> series;
  for (const CaseResult& c : results) {
    if (!c.series.empty()) series[c.series] = true;
  }
  for (const auto& [name, present] : series) {
    std::vector<double> nnz;
    std::vector<double> wall;
    std::vector<double> mapping;
    for (const CaseResult& c : results) {
      if (c.series != name || !c.error.empty() || !c.treematch.ok()) continue;
      nnz.push_back(static_cast<double>(c.entries));
      wall.push_back(c.treematch.min_wall_seconds);
      mapping.push_back(c.treematch.fastest_phases().mapping);
    }
    const auto fit_json = [&](const std::vector<double>& y) {
      const std::optional<PowerFit> fit = fit_power_law(nnz, y);
      return fit ? nlohmann::json{{"exponent", fit->exponent},
                                  {"coefficient", fit->coefficient},
                                  {"points", fit->points}}
                 : nlohmann::json(nullptr);
    };
    out["series"][name] = {{"wall_vs_nnz", fit_json(wall)}, {"mapping_vs_nnz", fit_json(mapping)}};
    for (const std::string& preset : preset_names(results)) {
      nlohmann::json points = nlohmann::json::array();
      std::vector<double> wall_per_entry;
      for (const SeriesPoint& point : series_points(results, name, preset)) {
        points.push_back({{"case", point.case_name},
                          {"processes", point.processes},
                          {"entries", point.entries},
                          {"wall_seconds", point.wall_seconds},
                          {"mapping_seconds", point.mapping_seconds},
                          {"wall_ns_per_entry", 1e9 * point.wall_per_entry()},
                          {"mapping_ns_per_entry", 1e9 * point.mapping_per_entry()}});
        wall_per_entry.push_back(point.wall_per_entry());
      }
      const std::optional<Flatness> f = flatness(wall_per_entry);
      out["series"][name]["presets"][preset] = {
          {"points", std::move(points)},
          {"wall_per_entry_flat", f ? nlohmann::json(f->flat) : nlohmann::json(nullptr)}};
    }
  }
  if (threads != nullptr) {
    nlohmann::json t{{"case", threads->case_name}, {"repeat", threads->repeat}};
    if (!threads->error.empty()) t["error"] = threads->error;
    t["processes"] = threads->processes;
    t["entries"] = threads->entries;
    t["matrix_file_for_treematch"] = threads->matrix_file;
    const auto runs_json = [](const std::vector<ThreadRun>& runs) {
      nlohmann::json out_runs = nlohmann::json::array();
      for (const ThreadRun& count : runs) {
        nlohmann::json r = tool_json(count.tool);
        r["threads"] = count.threads;
        r["min_mapping_seconds"] = count.tool.min_mapping_seconds();
        r["same_mapping_as_first"] = count.same_mapping;
        out_runs.push_back(std::move(r));
      }
      return out_runs;
    };
    t["runs"] = runs_json(threads->runs);
    if (!threads->presets.empty()) {
      nlohmann::json presets = nlohmann::json::object();
      for (const PresetThreads& preset : threads->presets)
        presets[preset.preset] = runs_json(preset.runs);
      t["presets"] = std::move(presets);
    }
    out["threads"] = t;
  }
  return out;
}

}  // namespace treematch::bench
