// The corridor around a bisection's cut, its maximum flow (Dinic) and the minimum cut taken.
#include "src/partition/flow_refinement.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <limits>
#include <numeric>
#include <vector>

#include "kernels/utility.h"

namespace treematch {
namespace {

using kernels::at;
using kernels::CsrView;
using kernels::Index;
using kernels::Offset;
using kernels::Weight;

constexpr Index kNone = -1;

/// A flow network in arc lists: arc a and its reverse a ^ 1 are stored side by side.
class FlowNetwork {
 public:
  explicit FlowNetwork(Index nodes) : first_(at(nodes), kNone) {}

  /// An edge u - v of capacity `forward` from u to v and `backward` from v to u.
  void connect(Index u, Index v, Weight forward, Weight backward) {
    add_arc(u, v, forward);
    add_arc(v, u, backward);
  }

  /// Dinic's algorithm: blocking flows along shortest residual paths until t is cut off.
  void max_flow(Index s, Index t) {
    // Capacities are sums of doubles: residuals this small are rounding, not capacity.
    Weight total = 0.0;
    for (Weight c : capacity_) total += c;
    epsilon_ = 1e-12 * std::max(1.0, total);
    while (levels_from(s, t)) blocking_flow(s, t);
  }

  /// Whether each node is reached from s through arcs with residual capacity.
  [[nodiscard]] std::vector<char> reached_from(Index s) const {
    return search(s, /*forward=*/true);
  }
  /// Whether each node reaches t through arcs with residual capacity.
  [[nodiscard]] std::vector<char> reaching(Index t) const { return search(t, /*forward=*/false); }

  /// The strongly connected components of the residual network (Kosaraju, iteratively), numbered
  /// in topological order: no residual arc leads to a lower number.
  [[nodiscard]] std::vector<Index> residual_components() const {
    const std::size_t nodes = first_.size();
    std::vector<Index> finished;
    std::vector<char> seen(nodes, 0);
    std::vector<Index> next_arc = first_;
    std::vector<Index> stack;
    for (std::size_t root = 0; root < nodes; ++root) {
      if (seen[root]) continue;
      seen[root] = 1;
      stack.push_back(static_cast<Index>(root));
      while (!stack.empty()) {
        const Index u = stack.back();
        Index& a = next_arc[at(u)];
        if (a == kNone) {
          finished.push_back(u);
          stack.pop_back();
          continue;
        }
        const Index v = head_[at(a)];
        const bool open = capacity_[at(a)] > epsilon_ && !seen[at(v)];
        a = next_[at(a)];
        if (open) {
          seen[at(v)] = 1;
          stack.push_back(v);
        }
      }
    }
    // Latest finished first, through residual arcs backwards: each search is one component.
    std::vector<Index> component(nodes, kNone);
    Index count = 0;
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
      if (component[at(*it)] != kNone) continue;
      component[at(*it)] = count;
      stack.push_back(*it);
      while (!stack.empty()) {
        const Index u = stack.back();
        stack.pop_back();
        for (Index a = first_[at(u)]; a != kNone; a = next_[at(a)]) {
          const Index v = head_[at(a)];
          if (capacity_[at(a ^ 1)] > epsilon_ && component[at(v)] == kNone) {
            component[at(v)] = count;
            stack.push_back(v);
          }
        }
      }
      ++count;
    }
    return component;
  }

 private:
  void add_arc(Index from, Index to, Weight capacity) {
    head_.push_back(to);
    capacity_.push_back(capacity);
    next_.push_back(first_[at(from)]);
    first_[at(from)] = static_cast<Index>(head_.size() - 1);
  }

  [[nodiscard]] Index tail(Index arc) const { return head_[at(arc ^ 1)]; }

  /// Breadth-first distances from s in the residual network; whether t is reached.
  bool levels_from(Index s, Index t) {
    level_ = residual_distances(s, /*forward=*/true);
    return level_[at(t)] != kNone;
  }

  /// Augments along level-increasing paths (iteratively: corridors can be thousands deep) until
  /// none is left; a node found to lead nowhere is taken out of the level graph.
  void blocking_flow(Index s, Index t) {
    std::vector<Index> current = first_;
    std::vector<Index> path;  // arcs from s
    Index u = s;
    while (true) {
      if (u == t) {
        Weight pushed = std::numeric_limits<Weight>::infinity();
        for (Index a : path) pushed = std::min(pushed, capacity_[at(a)]);
        std::size_t saturated = path.size();
        for (std::size_t i = 0; i < path.size(); ++i) {
          capacity_[at(path[i])] -= pushed;
          capacity_[at(path[i] ^ 1)] += pushed;
          if (saturated == path.size() && capacity_[at(path[i])] <= epsilon_) saturated = i;
        }
        path.resize(saturated);
        u = path.empty() ? s : head_[at(path.back())];
        continue;
      }
      Index& a = current[at(u)];
      while (a != kNone &&
             !(capacity_[at(a)] > epsilon_ && level_[at(head_[at(a)])] == level_[at(u)] + 1)) {
        a = next_[at(a)];
      }
      if (a != kNone) {
        path.push_back(a);
        u = head_[at(a)];
        continue;
      }
      if (u == s) return;
      level_[at(u)] = kNone;
      const Index back = path.back();
      path.pop_back();
      u = tail(back);
      current[at(u)] = next_[at(current[at(u)])];
    }
  }

  /// Breadth-first distances (kNone: unreached) from `from` through arcs with residual
  /// capacity, or to it (`forward` false).
  [[nodiscard]] std::vector<Index> residual_distances(Index from, bool forward) const {
    std::vector<Index> distance(first_.size(), kNone);
    std::deque<Index> queue{from};
    distance[at(from)] = 0;
    while (!queue.empty()) {
      const Index u = queue.front();
      queue.pop_front();
      for (Index a = first_[at(u)]; a != kNone; a = next_[at(a)]) {
        // Backwards, v reaches u through the reverse arc v -> u.
        const Index residual = forward ? a : a ^ 1;
        const Index v = head_[at(a)];
        if (capacity_[at(residual)] > epsilon_ && distance[at(v)] == kNone) {
          distance[at(v)] = distance[at(u)] + 1;
          queue.push_back(v);
        }
      }
    }
    return distance;
  }

  [[nodiscard]] std::vector<char> search(Index from, bool forward) const {
    std::vector<char> seen;
    for (Index d : residual_distances(from, forward)) seen.push_back(d != kNone ? 1 : 0);
    return seen;
  }

  std::vector<Index> first_;
  std::vector<Index> next_;
  std::vector<Index> head_;
  std::vector<Weight> capacity_;
  std::vector<Index> level_;
  Weight epsilon_ = 0.0;
};

}  // namespace

std::vector<Index> flow_corridor(CsrView g, std::span<const Load> weight,
                                 const std::vector<Index>& side, Index s, Load room) {
  std::vector<Index> members;
  if (room <= 0) return members;
  std::vector<char> queued(at(g.n), 0);
  std::deque<Index> queue;
  for (Index v = 0; v < g.n; ++v) {
    if (side[at(v)] != s) continue;
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      if (side[at(g.targets[at(e)])] != s) {
        queue.push_back(v);
        queued[at(v)] = 1;
        break;
      }
    }
  }
  Load load = 0;
  while (!queue.empty()) {
    const Index v = queue.front();
    queue.pop_front();
    if (load + weight[at(v)] > room) break;
    load += weight[at(v)];
    members.push_back(v);
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[at(e)];
      if (side[at(u)] == s && !queued[at(u)]) {
        queued[at(u)] = 1;
        queue.push_back(u);
      }
    }
  }
  return members;
}

bool refine_by_flow(CsrView g, std::span<const Load> weight, Load target0, Load reach,
                    Bisection& b) {
  Load total = 0;
  for (Load w : weight) total += w;
  const Load load[2] = {b.load0, total - b.load0};
  const Load target[2] = {target0, total - target0};
  std::vector<Index> members[2];
  for (Index s = 0; s < 2; ++s) {
    members[s] = flow_corridor(g, weight, b.side, s, target[1 - s] + reach - load[1 - s]);
    if (members[s].empty()) return false;
  }
  std::vector<Index> local(at(g.n), kNone);
  std::vector<Index> vertex_of;
  for (const auto& m : members) {
    for (Index v : m) {
      local[at(v)] = static_cast<Index>(vertex_of.size());
      vertex_of.push_back(v);
    }
  }
  const Index corridor = static_cast<Index>(vertex_of.size());
  const Index source = corridor;
  const Index sink = corridor + 1;
  FlowNetwork network(corridor + 2);
  for (Index i = 0; i < corridor; ++i) {
    const Index v = vertex_of[at(i)];
    Weight to_side[2] = {0.0, 0.0};  // edges to the sides' vertices outside the corridor
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[at(e)];
      const Weight w = g.weights[at(e)];
      if (local[at(u)] == kNone) {
        to_side[at(b.side[at(u)])] += w;
      } else if (local[at(u)] > i) {
        network.connect(i, local[at(u)], w, w);
      }
    }
    if (to_side[0] > 0.0) network.connect(source, i, to_side[0], 0.0);
    if (to_side[1] > 0.0) network.connect(i, sink, to_side[1], 0.0);
  }
  network.max_flow(source, sink);
  // Side 0's part of a minimum cut is a set closed under residual arcs that holds the source
  // and not the sink: from the smallest (what the source reaches), add the components that do
  // not reach the sink, successors first, and keep the step nearest the target.
  std::vector<char> in_source = network.reached_from(source);
  const std::vector<char> to_sink = network.reaching(sink);
  const std::vector<Index> component = network.residual_components();
  Load load0 = b.load0;
  for (Index v : members[0]) load0 -= weight[at(v)];
  for (Index i = 0; i < corridor; ++i) load0 += in_source[at(i)] ? weight[at(vertex_of[at(i)])] : 0;
  std::vector<Index> order(at(corridor));  // corridor nodes, successors' components first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](Index x, Index y) { return component[at(x)] > component[at(y)]; });
  Load best_load0 = load0;
  std::size_t best_end = 0;  // order[0, best_end) joins side 0 where it does not already
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Index i = order[k];
    if (in_source[at(i)] || to_sink[at(i)]) continue;
    load0 += weight[at(vertex_of[at(i)])];
    const bool component_ends =
        k + 1 == order.size() || component[at(order[k + 1])] != component[at(i)];
    if (component_ends && std::abs(load0 - target0) < std::abs(best_load0 - target0)) {
      best_load0 = load0;
      best_end = k + 1;
    }
  }
  for (std::size_t k = 0; k < best_end; ++k) {
    if (!to_sink[at(order[k])]) in_source[at(order[k])] = 1;
  }
  bool changed = false;
  std::vector<Index> side = b.side;
  for (Index i = 0; i < corridor; ++i) {
    const Index s = in_source[at(i)] ? 0 : 1;
    Index& current = side[at(vertex_of[at(i)])];
    changed = changed || current != s;
    current = s;
  }
  if (!changed) return false;
  b.side = std::move(side);
  b.load0 = best_load0;
  b.cut = cut_of(g, b.side);
  b.settled = false;
  return true;
}

}  // namespace treematch
