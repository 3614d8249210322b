// The peak memory model: fitted constants per regime of the driver.
#include "src/driver/memory_estimate.h"

namespace treematch {
namespace {

// Least squares over measured peaks (ru_maxrss) of `treematch map`, HDF5 CSR and METIS inputs
// (src/README.md gives them): the walk on 27-point stencils of 65k to 1M ranks and on a 1M-rank
// ring, within -7% to +3% (S4, 10M ranks, not in the fit: +6%); the whole-graph regime's part per
// entry is the largest seen (S2 and S3 with `default`'s multilevel candidate: 40.8 B).
constexpr std::int64_t kFixedBytes = std::int64_t{36} << 20;  // libraries, thread pools
constexpr std::int64_t kBytesPerProcess = 80;                 // mapping, level arrays, leaves
constexpr std::int64_t kBytesPerEntryWalk = 31;        // rows read, symmetrised, the walk's levels
constexpr std::int64_t kBytesPerEntryWholeGraph = 41;  // + subgraphs, coarse levels, refinement
constexpr std::int64_t kBytesPerEntryRead = 12;        // an entry held: target and weight

// Under mpirun, rows in blocks: the largest rank's peak on S3 at R = 2 and 4 and S4 at R = 4
// (fast and default; src/README.md), rounded up so that no rank measured exceeds it (S3 at
// R = 4 +11%, S4 +1%).
constexpr std::int64_t kFixedBytesSpread = std::int64_t{100} << 20;  // MPI, levels gathered
constexpr std::int64_t kBytesPerProcessSpread = 21;  // row sums, candidates, the mapping
constexpr std::int64_t kBytesPerEntrySpread = 37;    // the block's rows, its levels, exchanges

/// Whether the driver runs anything on the whole matrix beside the walk (src/driver/treematch.cc
/// decides the same way).
bool holds_whole_graph_work(std::int64_t entries, const Context& ctx) {
  if (!ctx.driver.holds_whole_matrix(entries)) return false;
  const bool multilevel =
      (ctx.driver.lists(Strategy::kMultilevelTopDown) || ctx.driver.include_default) &&
      entries <= ctx.multilevel.max_entries;
  const bool greedy = (ctx.driver.lists(Strategy::kGreedyTopDown) || ctx.driver.include_default) &&
                      entries <= ctx.greedy_top_down.max_entries;
  return ctx.refinement.applies(entries) || multilevel || greedy;
}

}  // namespace

std::int64_t estimated_peak_bytes(std::int64_t processes, std::int64_t entries, const Context& ctx,
                                  int ranks) {
  const std::int64_t per_entry =
      holds_whole_graph_work(entries, ctx) ? kBytesPerEntryWholeGraph : kBytesPerEntryWalk;
  const std::int64_t whole = kFixedBytes + processes * kBytesPerProcess + entries * per_entry;
  if (ranks <= 1) return whole;
  // Small enough to be gathered on every rank: a whole run's need, and the rank's block.
  if (ctx.driver.holds_whole_matrix(entries)) return whole + entries * kBytesPerEntryRead / ranks;
  return kFixedBytesSpread + processes * kBytesPerProcessSpread +
         entries * kBytesPerEntrySpread / ranks;
}

}  // namespace treematch
