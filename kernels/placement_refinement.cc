// Placement swap refinement: proposals priced on a snapshot in parallel, replayed in a fixed order.
#include "kernels/placement_refinement.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

namespace treematch::kernels {
namespace {

/// An exchange is applied only if it gains more than this fraction of the cost it reprices, so
/// rounding noise never passes for an improvement.
constexpr double kRelativeGain = 1e-12;
/// The occupant of an empty leaf that is closed (PlacementSwapOptions::closed); -1 is empty.
constexpr Index kClosed = -2;

/// Leaves as packed digits (root level in the highest bits): two leaves meet at the height of the
/// highest bit where their codes differ. Every arity is >= 2 and there are < 2^31 leaves, so the
/// widths sum to at most 31 + depth <= 62 bits.
class LeafCodes {
 public:
  explicit LeafCodes(const LeafTree& tree) {
    const std::size_t depth = tree.arities.size();
    if (tree.distance.size() != depth + 1) {
      throw std::invalid_argument("refine_placement: " + std::to_string(tree.distance.size()) +
                                  " distances for a tree of depth " + std::to_string(depth) +
                                  "; give depth + 1");
    }
    std::int64_t leaves = 1;
    int bits = 0;
    std::vector<int> width(depth);
    for (std::size_t level = 0; level < depth; ++level) {
      const Index arity = tree.arities[level];
      if (arity < 2) throw std::invalid_argument("refine_placement: an arity is below 2");
      width[level] = std::bit_width(static_cast<std::uint32_t>(arity - 1));
      bits += width[level];
      leaves *= arity;
      if (leaves > (std::int64_t{1} << 31) - 1 || bits > 64)
        throw std::invalid_argument("refine_placement: the tree has too many leaves");
    }
    leaves_ = static_cast<Index>(leaves);
    block_ = depth == 0 ? 1 : tree.arities.back();
    distance_ = tree.distance;
    height_of_bit_.assign(64, 0);
    std::vector<int> shift(depth);
    int bit = 0;
    for (std::size_t level = depth; level-- > 0;) {
      shift[level] = bit;
      for (int w = 0; w < width[level]; ++w)
        height_of_bit_[at(Index{bit++})] = static_cast<std::uint8_t>(depth - level);
    }
    code_.resize(at(leaves_));
    for (Index leaf = 0; leaf < leaves_; ++leaf) {
      std::uint64_t code = 0;
      Index rest = leaf;
      for (std::size_t level = depth; level-- > 0;) {
        code |= static_cast<std::uint64_t>(rest % tree.arities[level]) << shift[level];
        rest /= tree.arities[level];
      }
      code_[at(leaf)] = code;
    }
  }

  [[nodiscard]] Index leaves() const { return leaves_; }
  /// Leaves under one bottom-level node.
  [[nodiscard]] Index block() const { return block_; }
  [[nodiscard]] std::uint64_t code(Index leaf) const { return code_[at(leaf)]; }
  [[nodiscard]] int height(std::uint64_t a, std::uint64_t b) const {
    const std::uint64_t differ = a ^ b;
    return differ == 0 ? 0 : height_of_bit_[at(Index{63 - std::countl_zero(differ)})];
  }
  [[nodiscard]] double distance(std::uint64_t a, std::uint64_t b) const {
    return distance_[static_cast<std::size_t>(height(a, b))];
  }
  /// The distance from any leaf of a block to `b`, taken as at least that of two siblings.
  [[nodiscard]] double distance_from_block(std::uint64_t block_leaf, std::uint64_t b) const {
    return distance_[static_cast<std::size_t>(std::max(1, height(block_leaf, b)))];
  }

 private:
  Index leaves_ = 1;
  Index block_ = 1;
  std::vector<double> distance_;
  std::vector<std::uint8_t> height_of_bit_;
  std::vector<std::uint64_t> code_;
};

/// One exchange of the contents of two leaves, with what the snapshot had on them (-1 = empty).
struct Exchange {
  Index a = -1;
  Index b = -1;
  Index on_a = -1;
  Index on_b = -1;
};

/// A single exchange proposed by item `key`.
struct SwapProposal {
  double gain = 0.0;
  Index key = -1;
  Exchange exchange;
};

/// A chain of exchanges between two blocks, proposed for pair `key`.
struct PairProposal {
  double gain = 0.0;
  Index key = -1;
  std::vector<Exchange> chain;
};

/// What a worker reuses between the pairs it prices.
struct PairScratch {
  std::vector<Index> local;  ///< [item] = its index among the pair's leaves, valid when marked
  std::vector<Index> mark;   ///< [item] = the pair that last wrote `local`
  std::vector<double> link;  ///< (2k)^2: weight between the pair's leaves' items
  std::vector<double> gain;  ///< 2k: what moving each item to the other block alone gains
  std::vector<Index> item;
  std::vector<std::uint8_t> locked;
  std::vector<std::pair<Index, Index>> chain;
  std::vector<std::pair<double, Index>> blocks;  ///< single exchanges: candidate blocks
  std::vector<double> traffic;                   ///< block pairs: traffic to each block
  std::vector<Index> traffic_mark;
  std::vector<Index> touched;
};

class Placement {
 public:
  Placement(CsrView graph, const LeafTree& tree, std::vector<Index>& position,
            const PlacementSwapOptions& options)
      : m_(graph),
        stored_(std::min<Index>(graph.n, static_cast<Index>(graph.offsets.size()) - 1)),
        codes_(tree),
        options_(options),
        partners_(std::max(options.partners, 0)),
        position_(position),
        occupant_(at(codes_.leaves()), -1),
        code_(position.size()),
        moved_mark_(position.size(), 0),
        moved_code_(position.size(), 0) {
    if (position.size() != at(graph.n)) {
      throw std::invalid_argument("refine_placement: " + std::to_string(position.size()) +
                                  " positions for " + std::to_string(graph.n) + " items");
    }
    for (std::size_t v = 0; v < position.size(); ++v) {
      const Index leaf = position[v];
      if (leaf < 0 || leaf >= codes_.leaves() || occupant_[at(leaf)] != -1) {
        throw std::invalid_argument("refine_placement: item " + std::to_string(v) + " is on leaf " +
                                    std::to_string(leaf) + ", outside the tree or taken");
      }
      occupant_[at(leaf)] = static_cast<Index>(v);
      code_[v] = codes_.code(leaf);
    }
    if (!options.closed.empty() && options.closed.size() != at(codes_.leaves())) {
      throw std::invalid_argument("refine_placement: " + std::to_string(options.closed.size()) +
                                  " closed flags for " + std::to_string(codes_.leaves()) +
                                  " leaves");
    }
    if (!options.pinned.empty() && options.pinned.size() != position.size()) {
      throw std::invalid_argument("refine_placement: " + std::to_string(options.pinned.size()) +
                                  " pinned flags for " + std::to_string(position.size()) +
                                  " items");
    }
    for (std::size_t leaf = 0; leaf < options.closed.size(); ++leaf) {
      if (options.closed[leaf] != 0 && occupant_[leaf] == -1) occupant_[leaf] = kClosed;
    }
  }

  [[nodiscard]] Index blocks() const { return codes_.leaves() / codes_.block(); }
  [[nodiscard]] Index block_of(Index v) const { return position_[at(v)] / codes_.block(); }
  [[nodiscard]] bool pinned(Index v) const {
    return !options_.pinned.empty() && options_.pinned[at(v)] != 0;
  }
  [[nodiscard]] bool has_links(Index v) const {
    return v < stored_ && m_.row_begin(v) != m_.row_end(v);
  }
  [[nodiscard]] PairScratch make_scratch() const {
    PairScratch s;
    s.local.assign(at(m_.n), 0);
    s.mark.assign(at(m_.n), -1);
    s.traffic.assign(at(blocks()), 0.0);
    s.traffic_mark.assign(at(blocks()), -1);
    return s;
  }

  /// Marks the blocks of the items flagged in `moved` and of their neighbours.
  void mark_around(const std::vector<std::uint8_t>& moved, std::vector<std::uint8_t>& dirty) const {
    if (moved.size() != at(m_.n)) {
      throw std::invalid_argument("refine_placement: " + std::to_string(moved.size()) +
                                  " moved flags for " + std::to_string(m_.n) + " items");
    }
    for (Index v = 0; v < m_.n; ++v) {
      if (!moved[at(v)]) continue;
      dirty[at(block_of(v))] = 1;
      if (!has_links(v)) continue;
      for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e)
        dirty[at(block_of(m_.targets[at(e)]))] = 1;
    }
  }

  /// Each item's `partners_` heaviest neighbours (weight descending, index ascending), -1 padded.
  void find_partners(bool parallel) {
    heaviest_.assign(at(m_.n) * at(Index{partners_}), -1);
    const auto fill = [&](std::vector<std::pair<Weight, Index>>& row, Index v) {
      if (v >= stored_) return;
      row.clear();
      for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e)
        row.emplace_back(-m_.weights[at(e)], m_.targets[at(e)]);
      const std::size_t keep = std::min(row.size(), at(Index{partners_}));
      std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(keep), row.end());
      for (std::size_t i = 0; i < keep; ++i)
        heaviest_[at(v) * at(Index{partners_}) + i] = row[i].second;
    };
    if (parallel) {
      tbb::enumerable_thread_specific<std::vector<std::pair<Weight, Index>>> rows;
      tbb::parallel_for(tbb::blocked_range<Index>(0, m_.n, 1024),
                        [&](const tbb::blocked_range<Index>& range) {
                          auto& row = rows.local();
                          for (Index v = range.begin(); v != range.end(); ++v) fill(row, v);
                        });
    } else {
      std::vector<std::pair<Weight, Index>> row;
      for (Index v = 0; v < m_.n; ++v) fill(row, v);
    }
  }

  /// v's best single exchange on the current placement, or an empty proposal.
  SwapProposal propose_swap(Index v, PairScratch& s) const {
    SwapProposal best;
    if (!has_links(v) || pinned(v)) return best;
    const Index k = codes_.block();
    const Index own = block_of(v);
    const std::uint64_t a = code_[at(v)];
    auto& blocks = s.blocks;
    blocks.clear();
    for (int i = 0; i < partners_; ++i) {
      const Index w = heaviest_[at(v) * at(Index{partners_}) + at(Index{i})];
      if (w < 0) break;
      const Index block = block_of(w);
      if (block == own || std::any_of(blocks.begin(), blocks.end(),
                                      [&](const auto& b) { return b.second == block; }))
        continue;
      blocks.emplace_back(0.0, block);
    }
    if (blocks.empty()) return best;
    // How much v alone gains in each block (as a sibling of whatever it finds there).
    double before = 0.0;
    for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e)
      before += m_.weights[at(e)] * codes_.distance(a, code_[at(m_.targets[at(e)])]);
    for (auto& [value, block] : blocks) {
      const std::uint64_t there = codes_.code(block * k);
      double after = 0.0;
      for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e) {
        after +=
            m_.weights[at(e)] * codes_.distance_from_block(there, code_[at(m_.targets[at(e)])]);
      }
      value = before - after;
    }
    const std::size_t keep = std::min(blocks.size(), at(Index{std::max(options_.blocks_tried, 1)}));
    std::partial_sort(blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(keep),
                      blocks.end(), [](const auto& x, const auto& y) {
                        return x.first != y.first ? x.first > y.first : x.second < y.second;
                      });
    // Exactly, per leaf: v's part is its block's value, less the link to the occupant u (which
    // keeps its length); u's part takes u's row.
    const double siblings = codes_.distance_from_block(a, a);
    for (std::size_t i = 0; i < keep; ++i) {
      const Index first = blocks[i].second * k;
      const double v_gain = blocks[i].first;
      for (Index leaf = first; leaf < first + k; ++leaf) {
        const Index u = occupant_[at(leaf)];
        if (u == kClosed || (u >= 0 && pinned(u))) continue;
        double gain = v_gain;
        double scale = before + (before - v_gain);
        if (u >= 0 && has_links(u)) {
          const std::uint64_t b = codes_.code(leaf);
          double u_before = 0.0;
          double u_after = 0.0;
          Weight link = 0.0;
          for (Offset e = m_.row_begin(u); e < m_.row_end(u); ++e) {
            const Index t = m_.targets[at(e)];
            if (t == v) {
              link = m_.weights[at(e)];
              continue;
            }
            const std::uint64_t c = code_[at(t)];
            u_before += m_.weights[at(e)] * codes_.distance(b, c);
            u_after += m_.weights[at(e)] * codes_.distance(a, c);
          }
          gain += u_before - u_after - link * (codes_.distance(a, b) - siblings);
          scale += u_before + u_after;
        }
        if (gain > kRelativeGain * scale && gain > best.gain)
          best = SwapProposal{gain, v, Exchange{position_[at(v)], leaf, v, u}};
      }
    }
    return best;
  }

  /// The blocks block x exchanges most traffic with (descending, then block index), at most
  /// options_.pair_partners of them, appended to `out`.
  void pair_partners_of(Index x, PairScratch& s, std::vector<Index>& out) const {
    const Index k = codes_.block();
    s.touched.clear();
    for (Index leaf = x * k; leaf < (x + 1) * k; ++leaf) {
      const Index v = occupant_[at(leaf)];
      if (v < 0 || !has_links(v)) continue;
      for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e) {
        const Index y = block_of(m_.targets[at(e)]);
        if (y == x) continue;
        if (s.traffic_mark[at(y)] != x) {
          s.traffic_mark[at(y)] = x;
          s.traffic[at(y)] = 0.0;
          s.touched.push_back(y);
        }
        s.traffic[at(y)] += m_.weights[at(e)];
      }
    }
    const std::size_t keep = blocks() <= options_.all_pairs_up_to
                                 ? s.touched.size()
                                 : std::min(s.touched.size(), at(Index{options_.pair_partners}));
    std::partial_sort(
        s.touched.begin(), s.touched.begin() + static_cast<std::ptrdiff_t>(keep), s.touched.end(),
        [&](Index y, Index z) {
          return s.traffic[at(y)] != s.traffic[at(z)] ? s.traffic[at(y)] > s.traffic[at(z)] : y < z;
        });
    out.insert(out.end(), s.touched.begin(), s.touched.begin() + static_cast<std::ptrdiff_t>(keep));
  }

  /// Kernighan-Lin between blocks x and y on the current placement: exchanges chained by gain,
  /// each leaf's item moving once, and the best prefix (empty when none gains).
  PairProposal propose_pair(Index key, Index x, Index y, PairScratch& s) const {
    const Index k = codes_.block();
    const std::size_t n2 = 2 * at(k);
    s.item.resize(n2);
    s.locked.assign(n2, 0);
    s.gain.assign(n2, 0.0);
    s.link.assign(n2 * n2, 0.0);
    for (std::size_t i = 0; i < n2; ++i) {
      const Index leaf =
          i < at(k) ? x * k + static_cast<Index>(i) : y * k + static_cast<Index>(i - at(k));
      const Index v = occupant_[at(leaf)];
      s.item[i] = v;
      // Nothing moves onto a closed leaf, nor off a pinned item's.
      if (v == kClosed || (v >= 0 && pinned(v))) s.locked[i] = 1;
      if (v >= 0) {
        s.local[at(v)] = static_cast<Index>(i);
        s.mark[at(v)] = key;
      }
    }
    const std::uint64_t code_x = codes_.code(x * k);
    const std::uint64_t code_y = codes_.code(y * k);
    const double apart =
        codes_.distance(code_x, code_y) - codes_.distance_from_block(code_x, code_x);
    for (std::size_t i = 0; i < n2; ++i) {
      const Index v = s.item[i];
      if (v < 0 || !has_links(v)) continue;
      const bool in_x = i < at(k);
      const std::uint64_t here = in_x ? code_x : code_y;
      const std::uint64_t there = in_x ? code_y : code_x;
      double gain = 0.0;
      for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e) {
        const Index t = m_.targets[at(e)];
        const Weight w = m_.weights[at(e)];
        if (s.mark[at(t)] == key) {
          const std::size_t j = at(s.local[at(t)]);
          s.link[i * n2 + j] += w;
          gain += (j < at(k)) == in_x ? -w * apart : w * apart;
        } else {
          const std::uint64_t c = code_[at(t)];
          gain += w * (codes_.distance(here, c) - codes_.distance(there, c));
        }
      }
      s.gain[i] = gain;
    }
    s.chain.clear();
    double total = 0.0;
    double best = 0.0;
    std::size_t best_length = 0;
    for (Index step = 0; step < k; ++step) {
      double step_gain = 0.0;
      std::size_t bi = n2;
      std::size_t bj = n2;
      for (std::size_t i = 0; i < at(k); ++i) {
        if (s.locked[i]) continue;
        for (std::size_t j = at(k); j < n2; ++j) {
          if (s.locked[j] || (s.item[i] < 0 && s.item[j] < 0)) continue;
          const double g = s.gain[i] + s.gain[j] - 2.0 * s.link[i * n2 + j] * apart;
          if (bi == n2 || g > step_gain) {
            step_gain = g;
            bi = i;
            bj = j;
          }
        }
      }
      if (bi == n2) break;
      s.locked[bi] = s.locked[bj] = 1;
      s.chain.emplace_back(static_cast<Index>(bi), static_cast<Index>(bj));
      total += step_gain;
      // bi leaves x, bj leaves y: the items left behind see them on the other side.
      for (std::size_t t = 0; t < n2; ++t) {
        if (s.locked[t]) continue;
        const double sign = t < at(k) ? 2.0 * apart : -2.0 * apart;
        s.gain[t] += sign * (s.link[t * n2 + bi] - s.link[t * n2 + bj]);
      }
      if (total > best) {
        best = total;
        best_length = s.chain.size();
      }
    }
    PairProposal proposal;
    if (best_length == 0) return proposal;
    proposal.gain = best;
    proposal.key = key;
    for (std::size_t c = 0; c < best_length; ++c) {
      const auto [i, j] = s.chain[c];
      proposal.chain.push_back(Exchange{x * k + i, y * k + (j - k), s.item[at(i)], s.item[at(j)]});
    }
    return proposal;
  }

  /// Applies the exchanges if the leaves still hold what the snapshot had and the exact gain on
  /// the current placement is positive; marks the blocks whose items must propose again.
  bool apply_if_gaining(std::span<const Exchange> chain, std::vector<std::uint8_t>& dirty) {
    for (const Exchange& x : chain) {
      if (occupant_[at(x.a)] != x.on_a || occupant_[at(x.b)] != x.on_b) return false;
    }
    ++epoch_;
    for (const Exchange& x : chain) {
      if (x.on_a >= 0) mark_moved(x.on_a, x.b);
      if (x.on_b >= 0) mark_moved(x.on_b, x.a);
    }
    double before = 0.0;
    double after = 0.0;
    for (const Exchange& x : chain) {
      for (const Index v : {x.on_a, x.on_b}) {
        if (v < 0 || !has_links(v)) continue;
        for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e) {
          const Index t = m_.targets[at(e)];
          const bool both = moved_mark_[at(t)] == epoch_;
          const double w = both ? 0.5 * m_.weights[at(e)] : m_.weights[at(e)];
          before += w * codes_.distance(code_[at(v)], code_[at(t)]);
          after +=
              w * codes_.distance(moved_code_[at(v)], both ? moved_code_[at(t)] : code_[at(t)]);
        }
      }
    }
    const double gain = before - after;
    if (!(gain > kRelativeGain * (before + after)) || gain <= 0.0) return false;
    const Index k = codes_.block();
    for (const Exchange& x : chain) {
      dirty[at(x.a / k)] = dirty[at(x.b / k)] = 1;
      occupant_[at(x.a)] = x.on_b;
      occupant_[at(x.b)] = x.on_a;
      for (const Index v : {x.on_a, x.on_b}) {
        if (v < 0) continue;
        position_[at(v)] = x.on_a == v ? x.b : x.a;
        code_[at(v)] = moved_code_[at(v)];
      }
    }
    for (const Exchange& x : chain) {
      for (const Index v : {x.on_a, x.on_b}) {
        if (v < 0 || !has_links(v)) continue;
        for (Offset e = m_.row_begin(v); e < m_.row_end(v); ++e)
          dirty[at(block_of(m_.targets[at(e)]))] = 1;
      }
    }
    return true;
  }

 private:
  void mark_moved(Index v, Index leaf) {
    moved_mark_[at(v)] = epoch_;
    moved_code_[at(v)] = codes_.code(leaf);
  }

  CsrView m_;
  Index stored_;
  LeafCodes codes_;
  PlacementSwapOptions options_;
  int partners_;
  std::vector<Index>& position_;
  std::vector<Index> occupant_;
  std::vector<std::uint64_t> code_;  ///< [item] = code of its leaf
  std::vector<Index> heaviest_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> moved_mark_;  ///< [item] = epoch_ while pricing a chain that moves it
  std::vector<std::uint64_t> moved_code_;  ///< [item] = where that chain puts it
};

/// Runs `make(index, scratch)` for every index in [0, count), in parallel or not; results in order.
template <typename Result, typename Make>
std::vector<Result> propose_all(const Placement& placement, Index count, bool parallel,
                                Make&& make) {
  std::vector<Result> out(at(count));
  if (parallel) {
    tbb::enumerable_thread_specific<PairScratch> scratch(
        [&placement] { return placement.make_scratch(); });
    tbb::parallel_for(tbb::blocked_range<Index>(0, count, 16),
                      [&](const tbb::blocked_range<Index>& range) {
                        PairScratch& local = scratch.local();
                        for (Index i = range.begin(); i != range.end(); ++i)
                          out[at(i)] = make(i, local);
                      });
  } else {
    PairScratch local = placement.make_scratch();
    for (Index i = 0; i < count; ++i) out[at(i)] = make(i, local);
  }
  return out;
}

template <typename P>
void sort_by_gain(std::vector<P>& proposals) {
  std::erase_if(proposals, [](const P& p) { return p.key < 0; });
  std::sort(proposals.begin(), proposals.end(), [](const P& x, const P& y) {
    return x.gain != y.gain ? x.gain > y.gain : x.key < y.key;
  });
}

PlacementSwapStats refine(CsrView graph, const LeafTree& tree, std::vector<Index>& position,
                          const PlacementSwapOptions& options, bool parallel) {
  PlacementSwapStats stats;
  Placement placement(graph, tree, position, options);
  if (graph.n < 1 || tree.arities.size() < 2) return stats;
  const bool singles = options.partners > 0;
  const bool pairs = options.pair_partners > 0 && tree.arities.back() <= options.pair_max_block;
  if (!singles && !pairs) return stats;
  if (singles) placement.find_partners(parallel);
  const Index blocks = placement.blocks();
  std::vector<std::uint8_t> dirty(at(blocks), options.moved.empty() ? 1 : 0);
  if (!options.moved.empty()) placement.mark_around(options.moved, dirty);
  std::vector<std::uint8_t> next(at(blocks), 0);
  std::vector<Index> active;
  for (int round = 0; round < options.rounds; ++round) {
    long long applied = 0;
    std::fill(next.begin(), next.end(), 0);
    // 1. Single exchanges proposed by the items of the blocks touched last round.
    if (singles) {
      active.clear();
      for (Index v = 0; v < graph.n; ++v) {
        if (dirty[at(placement.block_of(v))] && placement.has_links(v)) active.push_back(v);
      }
      std::vector<SwapProposal> proposals = propose_all<SwapProposal>(
          placement, static_cast<Index>(active.size()), parallel,
          [&](Index i, PairScratch& s) { return placement.propose_swap(active[at(i)], s); });
      sort_by_gain(proposals);
      for (const SwapProposal& p : proposals) {
        if (placement.apply_if_gaining(std::span<const Exchange>(&p.exchange, 1), next)) {
          ++stats.moves;
          ++applied;
        } else {
          next[at(placement.block_of(p.key))] = 1;  // outrun by another exchange: try again
        }
      }
    }
    // 2. Kernighan-Lin chains between each touched block and the blocks it talks to most.
    if (pairs) {
      std::vector<std::pair<Index, Index>> pair_list;
      {
        PairScratch s = placement.make_scratch();
        std::vector<Index> partners;
        for (Index x = 0; x < blocks; ++x) {
          if (!dirty[at(x)] && !next[at(x)]) continue;
          partners.clear();
          placement.pair_partners_of(x, s, partners);
          for (const Index y : partners) pair_list.emplace_back(std::min(x, y), std::max(x, y));
        }
      }
      std::sort(pair_list.begin(), pair_list.end());
      pair_list.erase(std::unique(pair_list.begin(), pair_list.end()), pair_list.end());
      std::vector<PairProposal> proposals = propose_all<PairProposal>(
          placement, static_cast<Index>(pair_list.size()), parallel, [&](Index i, PairScratch& s) {
            return placement.propose_pair(i, pair_list[at(i)].first, pair_list[at(i)].second, s);
          });
      sort_by_gain(proposals);
      for (const PairProposal& p : proposals) {
        if (placement.apply_if_gaining(p.chain, next)) {
          ++stats.pair_passes;
          stats.pair_moves += static_cast<long long>(p.chain.size());
          ++applied;
        }
      }
    }
    stats.rounds = round + 1;
    stats.converged = applied == 0;
    if (applied == 0) break;
    std::swap(dirty, next);
  }
  if (!stats.converged) {
    for (Index v = 0; v < graph.n; ++v) {
      if (dirty[at(placement.block_of(v))]) stats.unsettled.push_back(v);
    }
  }
  return stats;
}

}  // namespace

PlacementSwapStats refine_placement(CsrView graph, const LeafTree& tree,
                                    std::vector<Index>& position,
                                    const PlacementSwapOptions& options) {
  return refine(graph, tree, position, options, /*parallel=*/true);
}

PlacementSwapStats refine_placement_seq(CsrView graph, const LeafTree& tree,
                                        std::vector<Index>& position,
                                        const PlacementSwapOptions& options) {
  return refine(graph, tree, position, options, /*parallel=*/false);
}

}  // namespace treematch::kernels
