// Heavy-edge matching and contraction, level after level.
#include "src/partition/coarsening.h"

#include <algorithm>
#include <utility>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_sort.h>

#include "kernels/parallel_tasks.h"
#include "kernels/utility.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::Csr;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

constexpr Index kNone = -1;

/// Heavy-edge matching: vertices in hashed order each take the unmatched neighbour with the
/// heaviest edge per unit of the neighbour's weight (so coarse weights stay even), within `cap`;
/// vertices without edges are paired in index order. With `part`, only vertices of one part pair up
/// (a V-cycle keeps the partition found so far). Fills level.coarse_of; returns the coarse count.
Index match(CoarseLevel& level, Load cap, std::uint64_t seed, const std::vector<Index>* part) {
  const CsrView g = level.g;
  std::vector<std::pair<std::uint64_t, Index>> order(at(g.n));
  for (Index v = 0; v < g.n; ++v)
    order[at(v)] = {kernels::splitmix64(seed ^ static_cast<std::uint64_t>(v)), v};
  // splitmix64 is a bijection, so the hashes differ and any sort gives this one order.
  tbb::parallel_sort(order.begin(), order.end());
  std::vector<Index> mate(at(g.n), kNone);
  for (const auto& [hash, u] : order) {
    if (mate[at(u)] != kNone) continue;
    Index best = kNone;
    double best_rating = 0.0;
    for (Offset e = g.row_begin(u); e < g.row_end(u); ++e) {
      const Index v = g.targets[at(e)];
      if (mate[at(v)] != kNone || level.weight[at(u)] + level.weight[at(v)] > cap) continue;
      if (part != nullptr && (*part)[at(u)] != (*part)[at(v)]) continue;
      const double rating = g.weights[at(e)] / static_cast<double>(level.weight[at(v)]);
      if (rating > best_rating || (rating == best_rating && best != kNone && v < best)) {
        best_rating = rating;
        best = v;
      }
    }
    if (best != kNone) {
      mate[at(u)] = best;
      mate[at(best)] = u;
    }
  }
  Index lonely = kNone;  // an edgeless vertex waiting for another
  for (Index v = 0; v < g.n; ++v) {
    if (mate[at(v)] != kNone || g.row_begin(v) != g.row_end(v)) continue;
    if (lonely != kNone && level.weight[at(v)] + level.weight[at(lonely)] <= cap &&
        (part == nullptr || (*part)[at(v)] == (*part)[at(lonely)])) {
      mate[at(v)] = lonely;
      mate[at(lonely)] = v;
      lonely = kNone;
    } else {
      lonely = v;
    }
  }
  level.coarse_of.assign(at(g.n), kNone);
  Index coarse = 0;
  for (Index v = 0; v < g.n; ++v) {
    if (level.coarse_of[at(v)] != kNone) continue;
    level.coarse_of[at(v)] = coarse;
    if (mate[at(v)] != kNone) level.coarse_of[at(mate[at(v)])] = coarse;
    ++coarse;
  }
  return coarse;
}

/// Which coarse row last saw a neighbour, and where its entry is.
struct Seen {
  Index row = kNone;
  Offset slot = 0;
};

/// Coarse row `c`: the coarse neighbours of its members `first` and `second` (kNone: none) in
/// order of first appearance (the first member's row, then the second's), each with the summed
/// weight of the edges to it, written from `size` on; returns the end. `seen` holds no entry of
/// row c yet.
Offset coarse_row(const CoarseLevel& fine, Index c, Index first, Index second,
                  std::vector<Seen>& seen, Index* targets, Weight* weights, Offset size) {
  const Index* const coarse_of = fine.coarse_of.data();
  for (Index v : {first, second}) {
    if (v == kNone) continue;
    for (Offset e = fine.g.row_begin(v); e < fine.g.row_end(v); ++e) {
      const Index t = coarse_of[at(fine.g.targets[at(e)])];
      if (t == c) continue;
      Seen& s = seen[at(t)];
      if (s.row == c) {
        weights[s.slot] += fine.g.weights[at(e)];
        continue;
      }
      s = Seen{c, size};
      targets[size] = t;
      weights[size] = fine.g.weights[at(e)];
      ++size;
    }
  }
  return size;
}

/// The graph between matched pairs. Large graphs build blocks of coarse rows as parallel tasks
/// (the top bisections would otherwise be serial), each thread into one scratch (its last-seen
/// rows and the block's entries) reused for all its blocks, each block kept at its size: blocks
/// sized by their members' entries and a last-seen array allocated per block took 323 MB and
/// 4 GB of zeroing at S3's first contraction. Each row is summed in the same order either way, so
/// the graph does not depend on the thread count.
CoarseLevel contract(const CoarseLevel& fine, Index coarse) {
  CoarseLevel out;
  out.weight.assign(at(coarse), 0);
  std::vector<Index> first(at(coarse), kNone);
  std::vector<Index> second(at(coarse), kNone);
  for (Index v = 0; v < fine.g.n; ++v) {
    const Index c = fine.coarse_of[at(v)];
    out.weight[at(c)] += fine.weight[at(v)];
    (first[at(c)] == kNone ? first[at(c)] : second[at(c)]) = v;
  }
  out.max_weight = *std::max_element(out.weight.begin(), out.weight.end());
  Csr& csr = out.owned;
  csr.n = coarse;
  csr.offsets.assign(at(coarse) + 1, 0);
  constexpr Index kRowsPerBlock = 4096;
  const Index blocks = (coarse + kRowsPerBlock - 1) / kRowsPerBlock;
  struct Block {
    std::vector<Offset> ends;  ///< row ends, relative to the block's first entry
    std::vector<Index> targets;
    std::vector<Weight> weights;
  };
  struct Scratch {
    std::vector<Seen> seen;
    std::vector<Index> targets;
    std::vector<Weight> weights;
  };
  std::vector<Block> rows(at(blocks));
  tbb::enumerable_thread_specific<Scratch> scratch_of_thread([coarse] {
    return Scratch{std::vector<Seen>(at(coarse)), {}, {}};
  });
  // Tasks only where there are several blocks: most contractions are of small subgraphs.
  const auto for_each_block = [blocks](const auto& body) {
    if (blocks > 1) {
      kernels::parallel_for_all(at(blocks), body);
    } else {
      body(0);
    }
  };
  for_each_block([&](std::size_t b) {
    Scratch& scratch = scratch_of_thread.local();
    const Index lo = static_cast<Index>(b) * kRowsPerBlock;
    const Index hi = std::min(coarse, lo + kRowsPerBlock);
    Offset bound = 0;
    for (Index c = lo; c < hi; ++c) {
      for (Index v : {first[at(c)], second[at(c)]})
        bound += v == kNone ? 0 : fine.g.row_end(v) - fine.g.row_begin(v);
    }
    if (scratch.targets.size() < at(bound)) {
      scratch.targets.resize(at(bound));
      scratch.weights.resize(at(bound));
    }
    Block& block = rows[b];
    Offset size = 0;
    for (Index c = lo; c < hi; ++c) {
      size = coarse_row(fine, c, first[at(c)], second[at(c)], scratch.seen, scratch.targets.data(),
                        scratch.weights.data(), size);
      block.ends.push_back(size);
    }
    block.targets.assign(scratch.targets.begin(), scratch.targets.begin() + size);
    block.weights.assign(scratch.weights.begin(), scratch.weights.begin() + size);
  });
  std::vector<Offset> base(at(blocks) + 1, 0);
  for (std::size_t b = 0; b < rows.size(); ++b)
    base[b + 1] = base[b] + static_cast<Offset>(rows[b].targets.size());
  csr.targets.resize(at(base.back()));
  csr.weights.resize(at(base.back()));
  for_each_block([&](std::size_t b) {
    Block& block = rows[b];
    const Index lo = static_cast<Index>(b) * kRowsPerBlock;
    for (std::size_t i = 0; i < block.ends.size(); ++i)
      csr.offsets[at(lo) + i + 1] = base[b] + block.ends[i];
    std::copy(block.targets.begin(), block.targets.end(), csr.targets.begin() + base[b]);
    std::copy(block.weights.begin(), block.weights.end(), csr.weights.begin() + base[b]);
    block = {};
  });
  out.g = csr.view();
  return out;
}

/// The label of each of the `coarse` vertices of the next coarser level, from `fine`'s (the
/// members of a coarse vertex share one).
std::vector<Index> project_to_coarser(const CoarseLevel& fine, Index coarse,
                                      const std::vector<Index>& labels) {
  std::vector<Index> next(at(coarse));
  for (Index v = 0; v < fine.g.n; ++v) next[at(fine.coarse_of[at(v)])] = labels[at(v)];
  return next;
}

}  // namespace

Index coarsening_stop(const PartitionContext& ctx) {
  return std::max<Index>(2, ctx.coarsest);
}

std::vector<CoarseLevel> coarsen(CsrView graph, Load cap, const PartitionContext& ctx,
                                 const std::vector<Index>* part) {
  std::vector<CoarseLevel> levels(1);
  levels[0].g = graph;
  levels[0].weight.assign(at(graph.n), 1);
  std::vector<Index> coarse_part;
  while (levels.back().g.n > coarsening_stop(ctx)) {
    const Index n = levels.back().g.n;
    const Index coarse = match(levels.back(), cap, ctx.seed + levels.size(), part);
    // Matching stalls: it must merge at least 10% of the vertices, and one on tiny graphs.
    if (coarse > n - std::max<Index>(1, n / 10)) break;
    if (part != nullptr) {
      coarse_part = project_to_coarser(levels.back(), coarse, *part);
      part = &coarse_part;
    }
    levels.push_back(contract(levels.back(), coarse));
  }
  return levels;
}

std::vector<Index> project_to_coarsest(const std::vector<CoarseLevel>& levels,
                                       const std::vector<Index>& part) {
  std::vector<Index> coarse(part);
  for (std::size_t l = 0; l + 1 < levels.size(); ++l)
    coarse = project_to_coarser(levels[l], levels[l + 1].g.n, coarse);
  return coarse;
}

std::vector<Index> project_to_finer(const CoarseLevel& fine, const std::vector<Index>& coarse) {
  std::vector<Index> labels(at(fine.g.n));
  for (Index v = 0; v < fine.g.n; ++v) labels[at(v)] = coarse[at(fine.coarse_of[at(v)])];
  return labels;
}

}  // namespace treematch
