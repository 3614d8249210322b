// k-way V-cycles: coarsen inside the parts, k-way FM from the coarsest level down, sizes exact at
// the finest, a cycle kept when the cut drops.
#include "src/partition/kway_vcycles.h"

#include <algorithm>
#include <utility>

#include "kernels/utility.h"
#include "src/partition/coarsening.h"
#include "src/partition/kway_fm.h"
#include "src/partition/multilevel_partition.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

/// Coarsening stops near this many vertices a part: as the pair refinement's V-cycles, which
/// coarsen two parts to PartitionContext::pair_coarsest = 16.
constexpr Index kCoarsestPerPart = 8;
/// An FM pass gives up after this many moves without a better state, not PartitionContext::
/// fm_stall + n / 100: each move requeues its neighbours, and a V-cycle's damage to undo is
/// local. On powerlaw-1024 with 16 V-cycles the command took 1.74 s with the preset's stall,
/// 1.17 s with 8 (no V-cycles: 1.0 s); on the corpus 16 V-cycles cost -0.60% in geometric mean
/// with the preset's stall, -0.47% with 8 (2026-12-01, apps/bench/README.md).
constexpr std::size_t kStall = 8;

/// FM passes at one level until a pass keeps nothing: the first from every vertex, each later one
/// from the vertices the last one moved and their neighbours (elsewhere the best moves are those
/// the last pass saw and left).
void refine_level(KwayFm& fm, CsrView g, int passes) {
  std::vector<Index> seeds(at(g.n));
  for (Index v = 0; v < g.n; ++v) seeds[at(v)] = v;
  std::vector<char> seeded(at(g.n), 0);
  std::vector<KwayMove> kept;
  for (int pass = 0; pass < passes; ++pass) {
    kept.clear();
    fm.pass(seeds, kept, kStall);
    if (kept.empty()) break;
    for (Index v : seeds) seeded[at(v)] = 0;
    seeds.clear();
    const auto seed = [&](Index v) {
      if (seeded[at(v)]) return;
      seeded[at(v)] = 1;
      seeds.push_back(v);
    };
    for (const auto& [v, from] : kept) {
      seed(v);
      for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) seed(g.targets[at(e)]);
    }
  }
}

/// Unit weights: while a part holds more than its size, its vertex whose move to a part holding
/// fewer than its size costs least moves there.
void force_sizes(CsrView g, const std::vector<Index>& part, KwayFm& fm) {
  const auto parts = static_cast<Index>(fm.parts());
  std::vector<Weight> connection(at(parts), 0.0);
  for (Index over = 0; over < parts; ++over) {
    while (fm.load(over) > fm.target(over)) {
      Index best_v = -1;
      Index best_to = -1;
      Weight best_gain = 0.0;
      for (Index v = 0; v < g.n; ++v) {
        if (part[at(v)] != over) continue;
        for (Offset e = g.row_begin(v); e < g.row_end(v); ++e)
          connection[at(part[at(g.targets[at(e)])])] += g.weights[at(e)];
        for (Index q = 0; q < parts; ++q) {
          const Weight gain = connection[at(q)] - connection[at(over)];
          if (fm.load(q) < fm.target(q) && (best_v == -1 || gain > best_gain)) {
            best_v = v;
            best_to = q;
            best_gain = gain;
          }
        }
        std::fill(connection.begin(), connection.end(), 0.0);
      }
      fm.move(best_v, best_to);
    }
  }
}

/// One V-cycle from `part`: its result, with the same sizes.
std::vector<Index> vcycle(CsrView graph, const std::vector<Index>& part,
                          const std::vector<Load>& size, Load cap, const PartitionContext& ctx) {
  const std::vector<CoarseLevel> levels = coarsen(graph, cap, ctx, &part);
  std::vector<Index> p = project_to_coarsest(levels, part);
  for (std::size_t l = levels.size(); l-- > 0;) {
    const CoarseLevel& level = levels[l];
    if (l + 1 < levels.size()) p = project_to_finer(level, p);
    // As the bisection's FM: moves within a vertex of this level, the best state within one of
    // the next finer level (the one that corrects it), exact at the finest.
    const Load tolerance = l == 0 ? 0 : levels[l - 1].max_weight;
    const Balance bounds{.slack = l == 0 ? 1 : std::max({level.max_weight, Load{2}, tolerance}),
                         .tolerance = tolerance};
    KwayFm fm(level.g, level.weight, size, bounds, p, ctx);
    refine_level(fm, level.g, ctx.fm_passes);
    if (l == 0 && fm.excess() > 0) {
      force_sizes(level.g, p, fm);
      refine_level(fm, level.g, ctx.fm_passes);
    }
  }
  return p;
}

}  // namespace

bool refine_kway_vcycles(CsrView graph, Index parts, std::vector<Index>& part, int cycles,
                         std::uint64_t seed, const PartitionContext& ctx) {
  if (cycles < 1 || !kway_fm_applies(graph, parts)) return false;
  const std::vector<Load> size = part_loads(part, parts);
  PartitionContext own = ctx;
  own.coarsest = std::max<Index>(2, kCoarsestPerPart * parts);
  // A coarse vertex at most half the smallest part, so that every part keeps several to move.
  const Load smallest = *std::min_element(size.begin(), size.end());
  const Load cap = std::max<Load>(1, std::min<Load>(smallest / 2, 2 * graph.n / own.coarsest));
  const Weight before = edge_cut(graph, part);
  Weight best_cut = before;
  std::vector<Index> best = part;
  const auto lowered = [&] { return best_cut < before - 1e-12 * std::max(1.0, before); };
  for (int cycle = 0; cycle < cycles + std::max(0, ctx.kway_more_vcycles); ++cycle) {
    if (cycle == cycles && !lowered()) break;  // the more cycles only where these found cuts
    own.seed = kernels::splitmix64(seed + static_cast<std::uint64_t>(cycle));
    std::vector<Index> trial = vcycle(graph, best, size, cap, own);
    const Weight cut = edge_cut(graph, trial);
    if (cut < best_cut - 1e-12 * std::max(1.0, best_cut)) {
      best = std::move(trial);
      best_cut = cut;
    }
  }
  if (!lowered()) return false;
  part = std::move(best);
  return true;
}

}  // namespace treematch
