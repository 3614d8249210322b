// Exchanges that move ranks off the hot links: exact norm and cost deltas on the two paths.
#include "src/refine/congestion_refinement.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/model/link_load.h"

namespace treematch {
namespace {

using kernels::Index;
using kernels::Offset;

/// A hot link: the uplink of `vertex` at `depth`, and its time.
struct HotLink {
  int depth = 0;
  Index vertex = 0;
  double seconds = 0.0;
};

/// An exchange priced: the norm's change (scaled, see Loads::term) and the weighted cost's.
struct Priced {
  Index leaf = -1;
  double norm_change = 0.0;
  double sum_change = 0.0;
};

/// The loads of every link, what each level's link costs and carries, and the mapping both ways.
class Loads {
 public:
  Loads(const CommGraph& graph, const Topology& tree, const LinkModel& links,
        std::vector<Index>& leaf_of_rank, std::span<const Index> allowed_leaves)
      : graph_(graph),
        tree_(tree),
        view_(graph.view()),
        leaf_of_rank_(leaf_of_rank),
        rank_on_leaf_(static_cast<std::size_t>(tree.leaf_count()), -1),
        allowed_(static_cast<std::size_t>(tree.leaf_count()), allowed_leaves.empty() ? 1 : 0),
        bytes_(uplink_bytes_by_level(graph, tree, Mapping{leaf_of_rank})) {
    const int depth = tree.depth();
    for (int d = 1; d <= depth; ++d) {
      const double bandwidth = links.links[static_cast<std::size_t>(d - 1)].bandwidth;
      inverse_bandwidth_.push_back(std::isinf(bandwidth) ? 0.0 : 1.0 / bandwidth);
      link_cost_.push_back(tree.levels()[static_cast<std::size_t>(d - 1)].link_cost);
    }
    for (const Index leaf : allowed_leaves) allowed_[static_cast<std::size_t>(leaf)] = 1;
    for (std::size_t rank = 0; rank < leaf_of_rank.size(); ++rank)
      rank_on_leaf_[static_cast<std::size_t>(leaf_of_rank[rank])] = static_cast<Index>(rank);
    const auto heights = static_cast<std::size_t>(depth) + 1;
    for (auto* volumes : {&a_near_a_, &a_near_b_, &b_near_a_, &b_near_b_}) volumes->resize(heights);
  }

  [[nodiscard]] const std::vector<std::vector<double>>& bytes() const { return bytes_; }
  [[nodiscard]] double seconds(int depth, Index vertex) const {
    return bytes_[static_cast<std::size_t>(depth - 1)][static_cast<std::size_t>(vertex)] *
           inverse_bandwidth_[static_cast<std::size_t>(depth - 1)];
  }
  [[nodiscard]] Index rank_on(Index leaf) const {
    return rank_on_leaf_[static_cast<std::size_t>(leaf)];
  }
  /// Whether a rank may move to `leaf`: an exchange with its rank, or a free allowed leaf.
  [[nodiscard]] bool may_take(Index leaf) const {
    return rank_on(leaf) >= 0 || allowed_[static_cast<std::size_t>(leaf)] != 0;
  }
  [[nodiscard]] Index leaf_of(Index rank) const {
    return leaf_of_rank_[static_cast<std::size_t>(rank)];
  }

  /// The weighted cost: every pair crossing a link pays its cost both ways.
  [[nodiscard]] double weighted() const {
    double sum = 0.0;
    for (std::size_t l = 0; l < bytes_.size(); ++l) {
      for (const double b : bytes_[l]) sum += 2.0 * link_cost_[l] * b;
    }
    return sum;
  }

  /// Times are divided by `busiest` in the norm's terms, so that their powers stay finite.
  void set_scale(double busiest) { scale_ = busiest > 0.0 ? 1.0 / busiest : 1.0; }

  /// The norm and cost changes of exchanging the ranks on `leaf_a` (a rank) and `leaf_b` (a rank
  /// or free). With `apply`, the loads and the mapping change too.
  Priced price(Index leaf_a, Index leaf_b, bool apply) {
    const Index a = rank_on(leaf_a);
    const Index b = rank_on(leaf_b);
    const int top = tree_.common_ancestor_height(leaf_a, leaf_b);
    const double weight_a = volumes_by_height(a, b, leaf_a, leaf_b, a_near_a_, a_near_b_);
    const double weight_b =
        b < 0 ? 0.0 : volumes_by_height(b, a, leaf_a, leaf_b, b_near_a_, b_near_b_);
    Priced priced{leaf_b, 0.0, 0.0};
    double a_inside_a = 0.0, b_inside_a = 0.0, a_inside_b = 0.0, b_inside_b = 0.0;
    const int depth = tree_.depth();
    for (int k = 0; k < top; ++k) {
      const auto h = static_cast<std::size_t>(k);
      a_inside_a += a_near_a_[h];
      a_inside_b += a_near_b_[h];
      if (b >= 0) {
        b_inside_a += b_near_a_[h];
        b_inside_b += b_near_b_[h];
      }
      // The link above a's leaf, k levels up, loses a's edges leaving it and gains those that
      // stayed inside, and the reverse for b; symmetrically on b's side.
      const int d = depth - k;
      const Index below = tree_.leaves_below(d);
      const double change_a = 2.0 * a_inside_a - weight_a + weight_b - 2.0 * b_inside_a;
      const double change_b = 2.0 * b_inside_b - weight_b + weight_a - 2.0 * a_inside_b;
      priced.norm_change += shift(d, leaf_a / below, change_a, apply);
      priced.norm_change += shift(d, leaf_b / below, change_b, apply);
      priced.sum_change +=
          2.0 * link_cost_[static_cast<std::size_t>(d - 1)] * (change_a + change_b);
    }
    if (apply) {
      leaf_of_rank_[static_cast<std::size_t>(a)] = leaf_b;
      if (b >= 0) leaf_of_rank_[static_cast<std::size_t>(b)] = leaf_a;
      rank_on_leaf_[static_cast<std::size_t>(leaf_a)] = b;
      rank_on_leaf_[static_cast<std::size_t>(leaf_b)] = a;
    }
    return priced;
  }

  /// Volume of `rank` to the ranks outside the subtree of `vertex` at `depth`.
  [[nodiscard]] double volume_leaving(Index rank, int depth, Index vertex) const {
    const Index below = tree_.leaves_below(depth);
    double volume = 0.0;
    for (Offset e = view_.row_begin(rank); e < view_.row_end(rank); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      if (leaf_of(view_.targets[entry]) / below != vertex) volume += view_.weights[entry];
    }
    return volume;
  }

  [[nodiscard]] const kernels::CsrView& view() const { return view_; }

 private:
  /// near_a[h] / near_b[h]: volume of `rank` to its partners (but `other`) whose leaves meet
  /// leaf_a / leaf_b h levels up; returns the total.
  double volumes_by_height(Index rank, Index other, Index leaf_a, Index leaf_b,
                           std::vector<double>& near_a, std::vector<double>& near_b) const {
    std::fill(near_a.begin(), near_a.end(), 0.0);
    std::fill(near_b.begin(), near_b.end(), 0.0);
    double total = 0.0;
    for (Offset e = view_.row_begin(rank); e < view_.row_end(rank); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const Index partner = view_.targets[entry];
      if (partner == other) continue;  // their edge crosses the same links before and after
      const Index leaf = leaf_of(partner);
      const double volume = graph_.cost_scale() * view_.weights[entry];
      near_a[static_cast<std::size_t>(tree_.common_ancestor_height(leaf_a, leaf))] += volume;
      near_b[static_cast<std::size_t>(tree_.common_ancestor_height(leaf_b, leaf))] += volume;
      total += volume;
    }
    return total;
  }

  /// The norm term change of adding `change` bytes to the uplink of `vertex` at `depth`.
  double shift(int depth, Index vertex, double change, bool apply) {
    double& bytes = bytes_[static_cast<std::size_t>(depth - 1)][static_cast<std::size_t>(vertex)];
    const double after = std::max(0.0, bytes + change);
    const double delta = term(depth, after) - term(depth, bytes);
    if (apply) bytes = after;
    return delta;
  }

  [[nodiscard]] double term(int depth, double bytes) const {
    return std::pow(bytes * inverse_bandwidth_[static_cast<std::size_t>(depth - 1)] * scale_,
                    kCongestionNormP);
  }

  const CommGraph& graph_;
  const Topology& tree_;
  kernels::CsrView view_;
  std::vector<Index>& leaf_of_rank_;
  std::vector<Index> rank_on_leaf_;
  std::vector<char> allowed_;  ///< leaves a rank may be placed on
  std::vector<std::vector<double>> bytes_;
  std::vector<double> inverse_bandwidth_;
  std::vector<double> link_cost_;
  double scale_ = 1.0;
  std::vector<double> a_near_a_, a_near_b_, b_near_a_, b_near_b_;
};

/// The links at kCongestionHotShare of the busiest one or more, busiest first, leaves' links
/// left out (their load is their rank's volume wherever it sits).
std::vector<HotLink> hot_links(const Loads& loads, const Topology& tree) {
  double busiest = 0.0;
  for (int d = 1; d < tree.depth(); ++d) {
    const auto links = static_cast<Index>(loads.bytes()[static_cast<std::size_t>(d - 1)].size());
    for (Index v = 0; v < links; ++v) busiest = std::max(busiest, loads.seconds(d, v));
  }
  std::vector<HotLink> hot;
  if (busiest == 0.0) return hot;
  for (int d = 1; d < tree.depth(); ++d) {
    const auto links = static_cast<Index>(loads.bytes()[static_cast<std::size_t>(d - 1)].size());
    for (Index v = 0; v < links; ++v) {
      const double seconds = loads.seconds(d, v);
      if (seconds >= kCongestionHotShare * busiest) hot.push_back(HotLink{d, v, seconds});
    }
  }
  std::sort(hot.begin(), hot.end(), [](const HotLink& x, const HotLink& y) {
    if (x.seconds != y.seconds) return x.seconds > y.seconds;
    return x.depth != y.depth ? x.depth < y.depth : x.vertex < y.vertex;
  });
  if (static_cast<Index>(hot.size()) > kCongestionLinksPerPass)
    hot.resize(static_cast<std::size_t>(kCongestionLinksPerPass));
  return hot;
}

/// The ranks below `link` sending the most across it, most first (ties: lower rank).
std::vector<Index> heaviest_senders(const Loads& loads, const Topology& tree, const HotLink& link) {
  const Index below = tree.leaves_below(link.depth);
  std::vector<std::pair<double, Index>> senders;
  for (Index leaf = link.vertex * below; leaf < (link.vertex + 1) * below; ++leaf) {
    const Index rank = loads.rank_on(leaf);
    if (rank < 0) continue;
    const double volume = loads.volume_leaving(rank, link.depth, link.vertex);
    if (volume > 0.0) senders.emplace_back(-volume, rank);
  }
  const auto kept = std::min<std::size_t>(senders.size(), kCongestionRanksPerLink);
  std::partial_sort(senders.begin(), senders.begin() + static_cast<std::ptrdiff_t>(kept),
                    senders.end());
  std::vector<Index> ranks;
  for (std::size_t i = 0; i < kept; ++i) ranks.push_back(senders[i].second);
  return ranks;
}

/// The leaves priced around `partner_leaf`: its smallest subtree of at least
/// kCongestionTargetLeaves leaves, not above `depth`, at most 8 x that many nearest leaves.
std::pair<Index, Index> neighbourhood(const Topology& tree, Index partner_leaf, int depth) {
  int d = tree.depth();
  while (d > depth && tree.leaves_below(d) < kCongestionTargetLeaves) --d;
  const Index below = tree.leaves_below(d);
  const Index first = partner_leaf / below * below;
  const Index window = 8 * kCongestionTargetLeaves;
  const Index begin = std::max(first, partner_leaf - window / 2);
  return {begin, std::min(first + below, begin + window)};
}

/// Leaves under the least loaded links of `link`'s level (kCongestionCoolLinks of them, coolest
/// first): in each, the free allowed leaves and those whose ranks send the least out of it, at most
/// kCongestionRanksPerLink. Where the partners' neighbourhoods are as loaded as the hot link
/// (a pattern spread evenly), load moves to these.
std::vector<Index> cool_leaves(const Loads& loads, const Topology& tree, const HotLink& link) {
  const auto links =
      static_cast<Index>(loads.bytes()[static_cast<std::size_t>(link.depth - 1)].size());
  std::vector<std::pair<double, Index>> coolest;
  for (Index v = 0; v < links; ++v) {
    if (v != link.vertex) coolest.emplace_back(loads.seconds(link.depth, v), v);
  }
  const auto kept = std::min<std::size_t>(coolest.size(), kCongestionCoolLinks);
  std::partial_sort(coolest.begin(), coolest.begin() + static_cast<std::ptrdiff_t>(kept),
                    coolest.end());
  const Index below = tree.leaves_below(link.depth);
  std::vector<Index> leaves;
  for (std::size_t c = 0; c < kept; ++c) {
    const Index vertex = coolest[c].second;
    std::vector<std::pair<double, Index>> quiet;  // (volume leaving, leaf); free leaves send 0
    for (Index leaf = vertex * below; leaf < (vertex + 1) * below; ++leaf) {
      if (!loads.may_take(leaf)) continue;
      const Index rank = loads.rank_on(leaf);
      quiet.emplace_back(rank < 0 ? 0.0 : loads.volume_leaving(rank, link.depth, vertex), leaf);
    }
    const auto taken = std::min<std::size_t>(quiet.size(), kCongestionRanksPerLink);
    std::partial_sort(quiet.begin(), quiet.begin() + static_cast<std::ptrdiff_t>(taken),
                      quiet.end());
    for (std::size_t q = 0; q < taken; ++q) leaves.push_back(quiet[q].second);
  }
  return leaves;
}

/// One rank's best exchange towards its heaviest partners across `link`, or with the quiet leaves
/// `cool`, applied if it lowers the norm within the budget. Returns whether it moved.
bool move_rank(Loads& loads, const Topology& tree, const HotLink& link, Index rank,
               const std::vector<Index>& cool, double& weighted, double budget) {
  const Index below = tree.leaves_below(link.depth);
  const Index leaf_a = loads.leaf_of(rank);
  std::vector<std::pair<double, Index>> partners;  // (-volume, partner) across the link
  const kernels::CsrView& view = loads.view();
  for (Offset e = view.row_begin(rank); e < view.row_end(rank); ++e) {
    const auto entry = static_cast<std::size_t>(e);
    const Index partner = view.targets[entry];
    if (loads.leaf_of(partner) / below != link.vertex)
      partners.emplace_back(-view.weights[entry], partner);
  }
  const auto tried = std::min<std::size_t>(partners.size(), kCongestionPartners);
  std::partial_sort(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(tried),
                    partners.end());
  Priced best;
  const auto consider = [&](Index leaf) {
    if (leaf == leaf_a || !loads.may_take(leaf)) return;
    const Priced priced = loads.price(leaf_a, leaf, /*apply=*/false);
    if (weighted + priced.sum_change > budget) return;
    // Strictly better by more than rounding: the norm's terms are scaled to about 1.
    if (priced.norm_change < best.norm_change && priced.norm_change < -1e-9) best = priced;
  };
  for (std::size_t p = 0; p < tried; ++p) {
    const Index partner = partners[p].second;
    const auto [begin, end] = neighbourhood(tree, loads.leaf_of(partner), link.depth);
    for (Index leaf = begin; leaf < end; ++leaf) consider(leaf);
    // The partner's heaviest own partners across the link: ranks on the other side of the same
    // boundary, whose exchange with `rank` moves the boundary instead of crossing it.
    std::vector<std::pair<double, Index>> boundary;  // (-volume, leaf)
    for (Offset e = view.row_begin(partner); e < view.row_end(partner); ++e) {
      const auto entry = static_cast<std::size_t>(e);
      const Index leaf = loads.leaf_of(view.targets[entry]);
      if (leaf / below != link.vertex) boundary.emplace_back(-view.weights[entry], leaf);
    }
    const auto near = std::min<std::size_t>(boundary.size(), kCongestionTargetLeaves);
    std::partial_sort(boundary.begin(), boundary.begin() + static_cast<std::ptrdiff_t>(near),
                      boundary.end());
    for (std::size_t b = 0; b < near; ++b) consider(boundary[b].second);
  }
  for (const Index leaf : cool) consider(leaf);
  if (best.leaf < 0) return false;
  weighted += loads.price(leaf_a, best.leaf, /*apply=*/true).sum_change;
  return true;
}

}  // namespace

CongestionStats lower_congestion(const CommGraph& graph, const Topology& tree,
                                 const LinkModel& links, std::vector<Index>& leaf_of_rank,
                                 const ObjectiveContext& ctx,
                                 std::span<const Index> allowed_leaves) {
  if (links.links.size() != static_cast<std::size_t>(tree.depth())) {
    throw std::invalid_argument("lower_congestion: the link model has " +
                                std::to_string(links.links.size()) + " levels, the tree " +
                                std::to_string(tree.depth()));
  }
  CongestionStats stats;
  Loads loads(graph, tree, links, leaf_of_rank, allowed_leaves);
  stats.norm_before = congestion_norm(loads.bytes(), links);
  stats.weighted_before = loads.weighted();
  double weighted = stats.weighted_before;
  const double budget = stats.weighted_before * (1.0 + ctx.sum_tolerance);
  for (int pass = 0; pass < ctx.passes && tree.depth() > 1; ++pass) {
    ++stats.passes;
    const std::vector<HotLink> hot = hot_links(loads, tree);
    if (hot.empty()) break;
    loads.set_scale(hot.front().seconds);
    Index moved = 0;
    for (const HotLink& link : hot) {
      const std::vector<Index> cool = cool_leaves(loads, tree, link);
      for (const Index rank : heaviest_senders(loads, tree, link)) {
        // An earlier exchange may have moved it out from under the link.
        if (loads.leaf_of(rank) / tree.leaves_below(link.depth) != link.vertex) continue;
        if (move_rank(loads, tree, link, rank, cool, weighted, budget)) ++moved;
      }
    }
    stats.moves += moved;
    if (moved == 0) break;
  }
  const std::vector<std::vector<double>> after =
      uplink_bytes_by_level(graph, tree, Mapping{leaf_of_rank});
  stats.norm_after = congestion_norm(after, links);
  stats.weighted_after = weighted;
  return stats;
}

}  // namespace treematch
