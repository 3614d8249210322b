// The balanced machine tree: validation, per-depth tables and distances between leaves.
#include "src/tree/topology.h"

#include <bit>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treematch {

namespace {

// The inverse OS table is dense when its size stays within this bound.
std::size_t dense_os_table_limit(Index leaves) {
  return std::max<std::size_t>(std::size_t{4} * static_cast<std::size_t>(leaves),
                               std::size_t{1} << 16);
}

std::string format_cost(double cost);

/// [h] = the sum of the h lowest link costs; throws when it overflows a double (a cost is then
/// inf: no mapping could be compared).
std::vector<double> cumulative_costs(const std::vector<TreeLevel>& levels) {
  const std::size_t d = levels.size();
  std::vector<double> cumulative(d + 1, 0.0);
  for (std::size_t h = 1; h <= d; ++h) {
    cumulative[h] = cumulative[h - 1] + levels[d - h].link_cost;
    // Distances are twice these sums: both must stay finite.
    if (!std::isfinite(2.0 * cumulative[h])) {
      throw std::invalid_argument("topology: the link costs of the " + std::to_string(h) +
                                  " lowest levels add up to " + format_cost(cumulative[h]) +
                                  ", beyond what a cost can hold; give costs below 1e300");
    }
  }
  return cumulative;
}

std::string format_cost(double cost) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), cost);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace

Topology::Topology(std::vector<TreeLevel> levels, std::vector<Index> leaf_os_index,
                   int machine_level) {
  if (machine_level < 0 || machine_level > static_cast<int>(levels.size())) {
    throw std::invalid_argument("topology: machine level " + std::to_string(machine_level) +
                                " is outside [0, " + std::to_string(levels.size()) + "]");
  }
  std::int64_t leaves = 1;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const TreeLevel& level = levels[i];
    const std::string where = "topology: level " + std::to_string(i) +
                              (level.name.empty() ? "" : " ('" + level.name + "')");
    if (level.arity < 1) {
      throw std::invalid_argument(where + " has arity " + std::to_string(level.arity) +
                                  "; every arity must be >= 1");
    }
    if (!std::isfinite(level.link_cost) || level.link_cost < 0.0) {
      throw std::invalid_argument(where + " has link cost " + format_cost(level.link_cost) +
                                  "; link costs must be finite and >= 0");
    }
    leaves *= level.arity;
    if (leaves > kMaxLeaves) {
      throw std::invalid_argument(
          "topology: more than " + std::to_string(kMaxLeaves) +
          " leaves (2^26; its tables alone would take gigabytes): describe the part of the "
          "machine the job uses");
    }
  }

  // Drop arity-1 levels; each one dropped above the machine boundary moves the boundary up.
  machine_level_ = machine_level;
  levels_.clear();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].arity == 1) {
      if (static_cast<int>(i) < machine_level) --machine_level_;
      continue;
    }
    levels_.push_back(std::move(levels[i]));
  }
  leaf_count_ = static_cast<Index>(leaves);

  const std::size_t d = levels_.size();
  leaves_below_.assign(d + 1, 1);
  for (std::size_t i = d; i-- > 0;) leaves_below_[i] = leaves_below_[i + 1] * levels_[i].arity;
  cumulative_cost_ = cumulative_costs(levels_);
  build_leaf_codes();

  const auto count = static_cast<std::size_t>(leaf_count_);
  if (leaf_os_index.empty()) {
    leaf_os_.resize(count);
    for (std::size_t leaf = 0; leaf < count; ++leaf) leaf_os_[leaf] = static_cast<Index>(leaf);
  } else {
    if (leaf_os_index.size() != count) {
      throw std::invalid_argument("topology: " + std::to_string(leaf_os_index.size()) +
                                  " leaf OS indexes given for " + std::to_string(count) +
                                  " leaves");
    }
    leaf_os_ = std::move(leaf_os_index);
  }
  Index largest = 0;
  present_count_ = 0;
  for (const Index os : leaf_os_) {
    if (os < -1) {
      throw std::invalid_argument("topology: negative leaf OS index " + std::to_string(os) +
                                  " (-1 marks a hole)");
    }
    if (os >= 0) ++present_count_;
    largest = std::max(largest, os);
  }
  if (present_count_ == 0) throw std::invalid_argument("topology: every position is a hole");
  index_holes();
  const auto duplicate = [](Index os, Index first, std::size_t second) {
    return std::invalid_argument("topology: leaves " + std::to_string(first) + " and " +
                                 std::to_string(second) + " share OS index " + std::to_string(os));
  };
  os_to_leaf_.clear();
  sparse_os_to_leaf_.clear();
  if (static_cast<std::size_t>(largest) < dense_os_table_limit(leaf_count_)) {
    os_to_leaf_.assign(static_cast<std::size_t>(largest) + 1, -1);
    for (std::size_t leaf = 0; leaf < count; ++leaf) {
      if (leaf_os_[leaf] < 0) continue;
      Index& slot = os_to_leaf_[static_cast<std::size_t>(leaf_os_[leaf])];
      if (slot != -1) throw duplicate(leaf_os_[leaf], slot, leaf);
      slot = static_cast<Index>(leaf);
    }
  } else {
    sparse_os_to_leaf_.reserve(static_cast<std::size_t>(present_count_));
    for (std::size_t leaf = 0; leaf < count; ++leaf) {
      if (leaf_os_[leaf] >= 0)
        sparse_os_to_leaf_.emplace_back(leaf_os_[leaf], static_cast<Index>(leaf));
    }
    std::sort(sparse_os_to_leaf_.begin(), sparse_os_to_leaf_.end());
    for (std::size_t i = 1; i < sparse_os_to_leaf_.size(); ++i) {
      if (sparse_os_to_leaf_[i].first == sparse_os_to_leaf_[i - 1].first) {
        throw duplicate(sparse_os_to_leaf_[i].first, sparse_os_to_leaf_[i - 1].second,
                        static_cast<std::size_t>(sparse_os_to_leaf_[i].second));
      }
    }
  }
}

void Topology::index_holes() {
  logical_of_leaf_.clear();
  leaf_of_logical_.clear();
  if (present_count_ == leaf_count_) return;
  logical_of_leaf_.assign(leaf_os_.size(), -1);
  leaf_of_logical_.reserve(static_cast<std::size_t>(present_count_));
  for (std::size_t leaf = 0; leaf < leaf_os_.size(); ++leaf) {
    if (leaf_os_[leaf] < 0) continue;
    logical_of_leaf_[leaf] = static_cast<Index>(leaf_of_logical_.size());
    leaf_of_logical_.push_back(static_cast<Index>(leaf));
  }
}

std::vector<Index> Topology::present_leaves() const {
  if (!leaf_of_logical_.empty()) return leaf_of_logical_;
  std::vector<Index> all(static_cast<std::size_t>(leaf_count_));
  for (std::size_t leaf = 0; leaf < all.size(); ++leaf) all[leaf] = static_cast<Index>(leaf);
  return all;
}

Index Topology::leaf_of_logical(Index logical) const {
  if (logical < 0 || logical >= present_count_) return -1;
  return leaf_of_logical_.empty() ? logical : leaf_of_logical_[static_cast<std::size_t>(logical)];
}

std::span<const Index> Topology::cpus(Index leaf) const {
  const auto position = static_cast<std::size_t>(leaf);
  if (cpu_offsets_.empty()) {
    if (leaf_os_[position] < 0) return {};
    return std::span<const Index>(&leaf_os_[position], 1);
  }
  const auto begin = static_cast<std::size_t>(cpu_offsets_[position]);
  const auto end = static_cast<std::size_t>(cpu_offsets_[position + 1]);
  return std::span<const Index>(cpus_).subspan(begin, end - begin);
}

Topology Topology::with_leaf_cpus(std::vector<Offset> offsets, std::vector<Index> cpus) const {
  const auto count = static_cast<std::size_t>(leaf_count_);
  if (offsets.size() != count + 1 || offsets.front() != 0 ||
      offsets.back() != static_cast<Offset>(cpus.size())) {
    throw std::invalid_argument("topology: a cpu table of " + std::to_string(offsets.size()) +
                                " offsets for " + std::to_string(count) + " leaves");
  }
  bool plain = true;  // every row is {os index}: no table needed
  for (std::size_t leaf = 0; leaf < count; ++leaf) {
    const Offset begin = offsets[leaf];
    const Offset end = offsets[leaf + 1];
    if (end < begin) throw std::invalid_argument("topology: cpu table offsets decrease");
    if ((end == begin) != (leaf_os_[leaf] < 0)) {
      throw std::invalid_argument(
          "topology: position " + std::to_string(leaf) +
          (leaf_os_[leaf] < 0 ? " is a hole but has cpus" : " is a leaf without cpus"));
    }
    for (Offset e = begin; e < end; ++e) {
      const Index cpu = cpus[static_cast<std::size_t>(e)];
      if (cpu < 0 || (e > begin && cpu <= cpus[static_cast<std::size_t>(e - 1)])) {
        throw std::invalid_argument("topology: the cpus of leaf " + std::to_string(leaf) +
                                    " are not increasing non-negative OS indexes");
      }
    }
    if (end - begin > 1 ||
        (end == begin + 1 && cpus[static_cast<std::size_t>(begin)] != leaf_os_[leaf])) {
      plain = false;
    }
  }
  Topology copy = *this;
  if (plain) {
    copy.cpu_offsets_.clear();
    copy.cpus_.clear();
  } else {
    copy.cpu_offsets_ = std::move(offsets);
    copy.cpus_ = std::move(cpus);
  }
  return copy;
}

Index Topology::leaf_of_os_index(Index os) const {
  if (!sparse_os_to_leaf_.empty()) {
    const auto it = std::lower_bound(sparse_os_to_leaf_.begin(), sparse_os_to_leaf_.end(),
                                     std::pair<Index, Index>{os, -1});
    return it != sparse_os_to_leaf_.end() && it->first == os ? it->second : -1;
  }
  if (os < 0 || static_cast<std::size_t>(os) >= os_to_leaf_.size()) return -1;
  return os_to_leaf_[static_cast<std::size_t>(os)];
}

int Topology::common_ancestor_height(Index a, Index b) const {
  assert(a >= 0 && a < leaf_count_ && b >= 0 && b < leaf_count_);
  if (!leaf_code_.empty()) {
    const std::uint64_t differ =
        leaf_code_[static_cast<std::size_t>(a)] ^ leaf_code_[static_cast<std::size_t>(b)];
    return differ == 0 ? 0
                       : height_of_bit_[static_cast<std::size_t>(63 - std::countl_zero(differ))];
  }
  // Two leaves share the ancestor at depth d when they fall in the same block of leaves_below(d).
  const int d = depth();
  int h = 0;
  while (a != b) {
    ++h;
    const Index block = leaves_below_[static_cast<std::size_t>(d - h)];
    if (a / block == b / block) break;
  }
  return h;
}

void Topology::build_leaf_codes() {
  const int d = depth();
  std::vector<int> width(static_cast<std::size_t>(d));
  int total = 0;
  for (int level = 0; level < d; ++level) {
    width[static_cast<std::size_t>(level)] = std::bit_width(
        static_cast<std::uint32_t>(levels_[static_cast<std::size_t>(level)].arity - 1));
    total += width[static_cast<std::size_t>(level)];
  }
  leaf_code_.clear();
  height_of_bit_.clear();
  if (total > 64) return;  // the division loop still answers
  height_of_bit_.assign(64, 0);
  std::vector<int> shift(static_cast<std::size_t>(d));
  int bit = 0;
  for (int level = d - 1; level >= 0; --level) {  // lowest level in the lowest bits
    shift[static_cast<std::size_t>(level)] = bit;
    for (int w = 0; w < width[static_cast<std::size_t>(level)]; ++w) {
      height_of_bit_[static_cast<std::size_t>(bit++)] = static_cast<std::uint8_t>(d - level);
    }
  }
  leaf_code_.resize(static_cast<std::size_t>(leaf_count_));
  for (Index leaf = 0; leaf < leaf_count_; ++leaf) {
    std::uint64_t code = 0;
    for (int level = 0; level < d; ++level) {
      const Index digit = leaf / leaves_below_[static_cast<std::size_t>(level) + 1] %
                          levels_[static_cast<std::size_t>(level)].arity;
      code |= static_cast<std::uint64_t>(digit) << shift[static_cast<std::size_t>(level)];
    }
    leaf_code_[static_cast<std::size_t>(leaf)] = code;
  }
}

double Topology::weighted_distance(Index a, Index b) const {
  // Up h links and down h links, the h lowest ones each way.
  return 2.0 * cumulative_cost_[static_cast<std::size_t>(common_ancestor_height(a, b))];
}

Topology Topology::with_machine_size(Index leaves) const {
  for (int d = 0; d <= depth(); ++d) {
    if (leaves_below(d) == leaves) {
      Topology copy = *this;
      copy.machine_level_ = d;
      return copy;
    }
  }
  std::string sizes;
  for (int d = depth(); d >= 0; --d) {
    if (!sizes.empty()) sizes += ", ";
    sizes += std::to_string(leaves_below(d));
  }
  throw std::invalid_argument("topology " + shape() + ": a machine of " + std::to_string(leaves) +
                              " leaves does not match a level boundary; valid sizes: " + sizes);
}

Topology Topology::with_oversubscription(Index arity) const {
  if (arity < 1) {
    throw std::invalid_argument("topology: oversubscription factor " + std::to_string(arity) +
                                " must be >= 1");
  }
  if (arity == 1) return *this;
  if (static_cast<std::int64_t>(leaf_count_) * arity > std::numeric_limits<Index>::max()) {
    throw std::invalid_argument("topology: " + std::to_string(leaf_count_) + " leaves x " +
                                std::to_string(arity) + " processes exceeds 2^31 - 1 leaves");
  }
  std::vector<TreeLevel> levels = levels_;
  levels.push_back(TreeLevel{arity, 0.0, "oversubscription"});
  std::vector<Index> os;
  os.reserve(static_cast<std::size_t>(leaf_count_) * static_cast<std::size_t>(arity));
  for (const Index real : leaf_os_) {
    for (Index k = 0; k < arity; ++k) os.push_back(real < 0 ? -1 : real * arity + k);
  }
  Topology virtual_tree(std::move(levels), std::move(os), machine_level_);
  virtual_tree.machine_os_stride_ = machine_os_stride_ * arity;
  if (cpu_offsets_.empty()) return virtual_tree;
  std::vector<Offset> offsets{0};
  std::vector<Index> cpus;
  for (Index leaf = 0; leaf < leaf_count_; ++leaf) {
    const std::span<const Index> row = this->cpus(leaf);
    for (Index k = 0; k < arity; ++k) {
      cpus.insert(cpus.end(), row.begin(), row.end());
      offsets.push_back(static_cast<Offset>(cpus.size()));
    }
  }
  return virtual_tree.with_leaf_cpus(std::move(offsets), std::move(cpus));
}

void Topology::check_per_level_count(std::size_t given, const std::string& what) const {
  if (given == levels_.size()) return;
  std::string levels;
  for (std::size_t i = levels_.size(); i-- > 0;) {
    if (!levels.empty()) levels += ", ";
    levels += std::to_string(levels_[i].arity) +
              (levels_[i].name.empty() ? "" : " (" + levels_[i].name + ")");
  }
  throw std::invalid_argument(
      "topology " + shape() + ": " + std::to_string(given) + " " + what + " given for " +
      std::to_string(levels_.size()) +
      " levels; give one per level, bottom-up (arities from the leaves: " + levels + ")");
}

std::string level_name(const std::vector<TreeLevel>& levels, int depth) {
  const std::string& name = levels[static_cast<std::size_t>(depth - 1)].name;
  return name.empty() ? "depth " + std::to_string(depth) : name;
}

Topology Topology::with_link_costs(const std::vector<double>& bottom_up) const {
  check_per_level_count(bottom_up.size(), "link costs");
  std::vector<TreeLevel> levels = levels_;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double cost = bottom_up[levels.size() - 1 - i];
    if (!std::isfinite(cost) || cost < 0.0) {
      throw std::invalid_argument("topology: link cost " + format_cost(cost) +
                                  "; link costs must be finite and >= 0");
    }
    levels[i].link_cost = cost;
  }
  // Only the costs change: positions, OS indexes and cpus stay.
  Topology copy = *this;
  copy.cumulative_cost_ = cumulative_costs(levels);
  copy.levels_ = std::move(levels);
  return copy;
}

bool Topology::uniform_link_costs() const {
  return std::all_of(levels_.begin(), levels_.end(), [&](const TreeLevel& level) {
    return level.link_cost == levels_.front().link_cost;
  });
}

std::string Topology::to_tleaf() const {
  std::string text = "tleaf " + std::to_string(levels_.size());
  for (const TreeLevel& level : levels_) {
    text += ' ' + std::to_string(level.arity) + ' ' + format_cost(level.link_cost);
  }
  return text;
}

std::string Topology::shape() const {
  if (levels_.empty()) return "1";
  std::string text;
  for (const TreeLevel& level : levels_) {
    if (!text.empty()) text += 'x';
    text += std::to_string(level.arity);
  }
  return text;
}

std::vector<TreeLevel> prefix_levels(std::vector<TreeLevel> levels, std::int64_t needed,
                                     std::int64_t unit) {
  const std::size_t n = levels.size();
  // below[i] = leaves under one node of depth i, saturated (products of huge arities overflow).
  constexpr std::int64_t kCap = std::int64_t{1} << 62;
  std::vector<std::int64_t> below(n + 1, 1);
  for (std::size_t i = n; i-- > 0;) {
    const auto arity = static_cast<std::int64_t>(std::max<Index>(levels[i].arity, 1));
    below[i] = below[i + 1] > kCap / arity ? kCap : below[i + 1] * arity;
  }
  needed = std::max<std::int64_t>(needed, 1);
  if (below[0] <= needed) return levels;
  std::size_t i = 0;
  // One child suffices here: keep child 0 only.
  while (i < n && below[i + 1] >= needed && below[i + 1] >= unit) levels[i++].arity = 1;
  // The first children that hold them, whole subtrees of at least `unit` leaves.
  if (i < n && below[i + 1] >= unit) {
    const std::int64_t children = (needed + below[i + 1] - 1) / below[i + 1];
    levels[i].arity = static_cast<Index>(std::min<std::int64_t>(levels[i].arity, children));
  }
  return levels;
}

}  // namespace treematch
