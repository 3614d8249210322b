// Reading, writing and checking the baseline of preset costs per corpus instance.
#include "apps/bench/cost_baseline.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace treematch::bench {

double allowed_rise(const std::string& preset) {
  return preset == "fast" ? 0.005 : 0.0001;
}

std::string mapping_digest(const std::vector<Index>& leaf_of_rank) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const Index leaf : leaf_of_rank) {
    auto value = static_cast<std::uint64_t>(static_cast<std::int64_t>(leaf));
    for (int byte = 0; byte < 8; ++byte, value >>= 8) {
      hash ^= value & 0xffU;
      hash *= 1099511628211ULL;
    }
  }
  return fmt::format("{:016x}", hash);
}

std::vector<BaselineCost> read_cost_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the baseline file");
  std::vector<BaselineCost> baseline;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = line.substr(0, line.find('#'));
    std::istringstream fields(text);
    BaselineCost entry;
    std::string extra;
    if (!(fields >> entry.instance)) continue;  // blank or comment
    if (!(fields >> entry.preset >> entry.cost >> entry.digest) || (fields >> extra) ||
        !(entry.cost >= 0.0)) {
      throw std::runtime_error(
          fmt::format("{}:{}: expected 'instance preset cost digest' with a cost >= 0, got '{}'",
                      path, number, line));
    }
    baseline.push_back(entry);
  }
  return baseline;
}

void write_cost_baseline(const std::string& path, const std::vector<CaseResult>& results,
                         const std::string& header) {
  std::ofstream out(path);
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) out << "# " << line << '\n';
  for (const CaseResult& c : results) {
    if (!c.error.empty()) continue;
    for (const PresetResult& p : c.presets) {
      if (p.tool.ok()) {
        out << fmt::format("{} {} {:.17g} {}\n", c.name, p.preset, p.tool.cost.weighted,
                           p.mapping_digest);
      }
    }
  }
  if (!out) throw std::runtime_error(path + ": cannot write the baseline file");
}

std::vector<std::string> check_cost_baseline(const std::vector<BaselineCost>& baseline,
                                             const std::vector<CaseResult>& results,
                                             bool same_mappings) {
  std::vector<std::string> problems;
  for (const CaseResult& c : results) {
    if (!c.error.empty()) {
      problems.push_back(fmt::format("{}: not run: {}", c.name, c.error));
      continue;
    }
    for (const PresetResult& p : c.presets) {
      if (!p.tool.ok()) {
        problems.push_back(
            fmt::format("{} {}: mapping failed: {}", c.name, p.preset, p.tool.failure));
        continue;
      }
      const auto it = std::find_if(baseline.begin(), baseline.end(), [&](const BaselineCost& b) {
        return b.instance == c.name && b.preset == p.preset;
      });
      if (it == baseline.end()) {
        problems.push_back(fmt::format("{} {}: not in the baseline (cost {:.17g})", c.name,
                                       p.preset, p.tool.cost.weighted));
        continue;
      }
      const double cost = p.tool.cost.weighted;
      const double limit = it->cost * (1.0 + allowed_rise(p.preset));
      if (cost > limit) {
        problems.push_back(fmt::format(
            "{} {}: cost {:.10g} is {:+.4f}% above the baseline {:.10g} (allowed {:.2f}%)", c.name,
            p.preset, cost, 100.0 * (cost / it->cost - 1.0), it->cost,
            100.0 * allowed_rise(p.preset)));
      }
      if (same_mappings && p.mapping_digest != it->digest) {
        problems.push_back(fmt::format("{} {}: mapping {} differs from the baseline's {}", c.name,
                                       p.preset, p.mapping_digest, it->digest));
      }
    }
  }
  return problems;
}

}  // namespace treematch::bench
