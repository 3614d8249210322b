// The regression guard: each preset's cost per instance against a committed baseline file.
#pragma once

#include <string>
#include <vector>

#include "apps/bench/report.h"

namespace treematch::bench {

/// One line of a baseline file: `instance preset cost digest` (the weighted cost to 17 digits,
/// the mapping's digest).
struct BaselineCost {
  std::string instance;
  std::string preset;
  double cost = 0.0;
  std::string digest;
};

/// A 64-bit FNV-1a of the mapping's leaves, in hexadecimal: equal mappings, equal digests.
std::string mapping_digest(const std::vector<Index>& leaf_of_rank);

/// How much a preset's cost may rise above its baseline before the guard fails: 0.5% for fast,
/// 0.01% for default and strong (their mappings should not move at all without a reason).
double allowed_rise(const std::string& preset);

/// Reads a baseline file: '#' starts a comment, blank lines are skipped. Throws
/// std::runtime_error naming the file and line of anything else that is not
/// `name preset cost digest`.
std::vector<BaselineCost> read_cost_baseline(const std::string& path);

/// Writes every preset cost of `results` (cases without an error, presets that mapped) to `path`,
/// after `header` (each of its lines as a '#' comment). Throws std::runtime_error on a write error.
void write_cost_baseline(const std::string& path, const std::vector<CaseResult>& results,
                         const std::string& header);

/// One line per problem: a preset cost above its baseline by more than allowed_rise (naming the
/// instance, preset, both costs and the rise), with `same_mappings` a mapping whose digest differs
/// from the baseline's (the thread-count check), a preset that failed, a case that could not run,
/// or an instance and preset the baseline does not hold. Empty = the guard passes.
std::vector<std::string> check_cost_baseline(const std::vector<BaselineCost>& baseline,
                                             const std::vector<CaseResult>& results,
                                             bool same_mappings = false);

}  // namespace treematch::bench
