// Unbalanced machine trees: leaf paths, the balanced superset with holes, joining node trees.
#include "src/tree/unbalanced_tree.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treematch {
namespace {

using kernels::at;

/// A shortest common supersequence of two level-name lists (longest common subsequence kept once).
std::vector<std::string> supersequence(const std::vector<std::string>& a,
                                       const std::vector<std::string>& b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  // common[i][j] = LCS length of a[i..] and b[j..].
  std::vector<std::vector<std::size_t>> common(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
    }
  }
  std::vector<std::string> out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n && j < m) {
    if (a[i] == b[j]) {
      out.push_back(a[i]);
      ++i;
      ++j;
    } else if (common[i + 1][j] >= common[i][j + 1]) {
      out.push_back(a[i++]);
    } else {
      out.push_back(b[j++]);
    }
  }
  out.insert(out.end(), a.begin() + static_cast<std::ptrdiff_t>(i), a.end());
  out.insert(out.end(), b.begin() + static_cast<std::ptrdiff_t>(j), b.end());
  return out;
}

std::vector<std::string> names_of(const std::vector<TreeLevel>& levels) {
  std::vector<std::string> names;
  names.reserve(levels.size());
  for (const TreeLevel& level : levels) names.push_back(level.name);
  return names;
}

/// Where each of `names` sits in `merged` (leftmost embedding; `names` is a subsequence).
std::vector<std::size_t> embedding(const std::vector<std::string>& names,
                                   const std::vector<std::string>& merged) {
  std::vector<std::size_t> where;
  std::size_t next = 0;
  for (const std::string& name : names) {
    while (next < merged.size() && merged[next] != name) ++next;
    if (next == merged.size()) throw std::logic_error("join_trees: level names do not embed");
    where.push_back(next++);
  }
  return where;
}

}  // namespace

UnbalancedTree::UnbalancedTree(std::vector<TreeLevel> levels, int machine_level)
    : levels_(std::move(levels)), machine_level_(machine_level) {
  if (machine_level < 0 || machine_level > static_cast<int>(levels_.size())) {
    throw std::invalid_argument("unbalanced tree: machine level " + std::to_string(machine_level) +
                                " is outside [0, " + std::to_string(levels_.size()) + "]");
  }
}

void UnbalancedTree::add_leaf(std::span<const Index> path, Index os, std::span<const Index> cpus) {
  if (path.size() != levels_.size()) {
    throw std::invalid_argument("unbalanced tree: a leaf path of " + std::to_string(path.size()) +
                                " levels in a tree of " + std::to_string(levels_.size()));
  }
  if (os < 0) throw std::invalid_argument("unbalanced tree: negative OS index");
  for (const Index digit : path) {
    if (digit < 0) throw std::invalid_argument("unbalanced tree: negative child index");
  }
  if (!os_.empty()) {
    const std::span<const Index> previous = this->path(leaf_count() - 1);
    if (!std::lexicographical_compare(previous.begin(), previous.end(), path.begin(), path.end())) {
      throw std::invalid_argument("unbalanced tree: leaf " + std::to_string(leaf_count()) +
                                  " does not come after the previous one in tree order");
    }
  }
  for (std::size_t i = 1; i < cpus.size(); ++i) {
    if (cpus[i] <= cpus[i - 1]) {
      throw std::invalid_argument("unbalanced tree: the cpus of a leaf are not increasing");
    }
  }
  digits_.insert(digits_.end(), path.begin(), path.end());
  os_.push_back(os);
  if (cpus.empty()) {
    cpus_.push_back(os);
  } else {
    cpus_.insert(cpus_.end(), cpus.begin(), cpus.end());
  }
  cpu_offsets_.push_back(static_cast<kernels::Offset>(cpus_.size()));
}

std::span<const Index> UnbalancedTree::path(Index leaf) const {
  const std::size_t width = levels_.size();
  return std::span<const Index>(digits_).subspan(at(leaf) * width, width);
}

std::span<const Index> UnbalancedTree::cpus(Index leaf) const {
  const auto begin = static_cast<std::size_t>(cpu_offsets_[at(leaf)]);
  const auto end = static_cast<std::size_t>(cpu_offsets_[at(leaf) + 1]);
  return std::span<const Index>(cpus_).subspan(begin, end - begin);
}

Topology balanced_superset(const UnbalancedTree& tree) {
  if (tree.leaf_count() == 0) throw std::invalid_argument("unbalanced tree: no leaf");
  const auto depth = static_cast<std::size_t>(tree.depth());
  std::vector<TreeLevel> levels = tree.levels();
  for (const TreeLevel& level : levels) {
    if (level.arity < 1) throw std::invalid_argument("unbalanced tree: a level of arity < 1");
  }
  for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    const std::span<const Index> path = tree.path(leaf);
    for (std::size_t l = 0; l < depth; ++l)
      levels[l].arity = std::max(levels[l].arity, path[l] + 1);
  }
  // leaves_below[l] = positions under one node of depth l.
  std::vector<std::int64_t> below(depth + 1, 1);
  for (std::size_t l = depth; l-- > 0;) {
    below[l] = below[l + 1] * levels[l].arity;
    if (below[l] > kMaxLeaves) {
      throw std::invalid_argument(
          "unbalanced tree: its balanced superset would have more than 2^26 leaves");
    }
  }
  const auto positions = static_cast<std::size_t>(below[0]);
  std::vector<Index> os(positions, -1);
  std::vector<kernels::Offset> offsets(positions + 1, 0);
  std::vector<Index> cpus;
  std::size_t filled = 0;  // positions whose cpu row is written
  for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    const std::span<const Index> path = tree.path(leaf);
    std::int64_t position = 0;
    for (std::size_t l = 0; l < depth; ++l) position += path[l] * below[l + 1];
    const auto p = static_cast<std::size_t>(position);
    // Increasing paths give increasing positions.
    while (filled < p) offsets[++filled] = static_cast<kernels::Offset>(cpus.size());
    os[p] = tree.os_index(leaf);
    const std::span<const Index> row = tree.cpus(leaf);
    cpus.insert(cpus.end(), row.begin(), row.end());
    offsets[++filled] = static_cast<kernels::Offset>(cpus.size());
  }
  while (filled < positions) offsets[++filled] = static_cast<kernels::Offset>(cpus.size());
  const Topology balanced(std::move(levels), std::move(os), tree.machine_level());
  return balanced.with_leaf_cpus(std::move(offsets), std::move(cpus));
}

UnbalancedTree unbalanced_view(const Topology& topology) {
  UnbalancedTree view(topology.levels(), topology.machine_level());
  const auto depth = static_cast<std::size_t>(topology.depth());
  std::vector<Index> path(depth);
  for (Index leaf = 0; leaf < topology.leaf_count(); ++leaf) {
    if (!topology.is_present(leaf)) continue;
    for (std::size_t l = 0; l < depth; ++l) {
      path[l] = leaf / topology.leaves_below(static_cast<int>(l) + 1) % topology.levels()[l].arity;
    }
    view.add_leaf(path, topology.os_index(leaf), topology.cpus(leaf));
  }
  return view;
}

UnbalancedTree join_trees(const std::vector<TreeLevel>& top,
                          const std::vector<std::vector<Index>>& tops,
                          const std::vector<UnbalancedTree>& trees, Index& os_stride) {
  if (tops.size() != trees.size()) {
    throw std::invalid_argument("join_trees: " + std::to_string(tops.size()) + " places for " +
                                std::to_string(trees.size()) + " trees");
  }
  // Levels below the top: the trees' names merged, each level's cost from the first tree having it.
  std::vector<std::string> merged;
  for (const UnbalancedTree& tree : trees) merged = supersequence(merged, names_of(tree.levels()));
  std::vector<TreeLevel> levels = top;
  std::vector<bool> costed(merged.size(), false);
  std::vector<TreeLevel> lower(merged.size());
  for (std::size_t l = 0; l < merged.size(); ++l) lower[l].name = merged[l];
  std::vector<std::vector<std::size_t>> where(trees.size());
  std::int64_t largest = 0;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    where[i] = embedding(names_of(trees[i].levels()), merged);
    for (std::size_t j = 0; j < where[i].size(); ++j) {
      if (costed[where[i][j]]) continue;
      lower[where[i][j]].link_cost = trees[i].levels()[j].link_cost;
      costed[where[i][j]] = true;
    }
    for (Index leaf = 0; leaf < trees[i].leaf_count(); ++leaf) {
      largest = std::max<std::int64_t>(largest, trees[i].os_index(leaf));
      for (const Index cpu : trees[i].cpus(leaf)) largest = std::max<std::int64_t>(largest, cpu);
    }
  }
  levels.insert(levels.end(), lower.begin(), lower.end());
  const std::int64_t stride = largest + 1;
  if (stride * static_cast<std::int64_t>(trees.size()) > std::numeric_limits<Index>::max()) {
    throw std::invalid_argument("join_trees: " + std::to_string(trees.size()) + " trees of OS " +
                                "indexes up to " + std::to_string(largest) +
                                " exceed 2^31 - 1 distinct OS indexes");
  }
  os_stride = static_cast<Index>(stride);

  UnbalancedTree joined(std::move(levels), static_cast<int>(top.size()));
  std::vector<Index> path(top.size() + merged.size());
  std::vector<Index> cpus;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    if (tops[i].size() != top.size()) {
      throw std::invalid_argument("join_trees: tree " + std::to_string(i) +
                                  " hangs from a path of " + std::to_string(tops[i].size()) +
                                  " levels, not " + std::to_string(top.size()));
    }
    const auto base = static_cast<Index>(stride * static_cast<std::int64_t>(i));
    for (Index leaf = 0; leaf < trees[i].leaf_count(); ++leaf) {
      std::fill(path.begin(), path.end(), 0);
      std::copy(tops[i].begin(), tops[i].end(), path.begin());
      const std::span<const Index> own = trees[i].path(leaf);
      for (std::size_t j = 0; j < own.size(); ++j) path[top.size() + where[i][j]] = own[j];
      cpus.clear();
      for (const Index cpu : trees[i].cpus(leaf)) cpus.push_back(base + cpu);
      joined.add_leaf(path, base + trees[i].os_index(leaf), cpus);
    }
  }
  return joined;
}

}  // namespace treematch
