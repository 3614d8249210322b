// The project's own reader of hwloc synthetic descriptions, with hwloc as the fallback.
#include "io/synthetic_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "io/hwloc_topology.h"
#include "io/input_error.h"

namespace treematch::io {

namespace {

const char* const kSource = "--topology";

enum class Kind { kGroup, kNuma, kPackage, kDie, kCache, kCore, kPu };

struct LevelType {
  Kind kind = Kind::kGroup;
  int cache_depth = 0;       // 1..5 for caches
  bool instruction = false;  // an instruction cache (L1i, L2i, L3i)

  bool operator==(const LevelType&) const = default;
};

struct Level {
  LevelType type;
  Index arity = 1;
  std::optional<std::string> indexes;  // the indexes= attribute
};

// "Not handled here": parse_synthetic_without_hwloc returns it instead of throwing (the indexes
// reader throws it from deep inside; it never leaves this file).
struct Unsupported {
  std::string why;
};

/// A count for messages: exact below 10^15.
std::string fmt_count(double count) {
  if (count < 1e15) return std::to_string(static_cast<long long>(count));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", count);
  return text;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z');
}
bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

// hwloc accepts any case-insensitive prefix of a type name with at least `min` letters.
bool abbreviates(std::string_view word, std::string_view name, std::size_t min) {
  if (word.size() < min || word.size() > name.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(word[i]) != name[i]) return false;
  }
  return true;
}

std::optional<LevelType> parse_type(std::string_view word) {
  if (abbreviates(word, "group", 2)) return LevelType{Kind::kGroup};
  if (abbreviates(word, "numanode", 2) || abbreviates(word, "node", 2))
    return LevelType{Kind::kNuma};
  if (abbreviates(word, "package", 2) || abbreviates(word, "socket", 2)) {
    return LevelType{Kind::kPackage};
  }
  if (abbreviates(word, "die", 2)) return LevelType{Kind::kDie};
  if (abbreviates(word, "core", 2)) return LevelType{Kind::kCore};
  if (abbreviates(word, "pu", 2)) return LevelType{Kind::kPu};
  // Caches: "l3", "l1i", "l2d", "l2u", "l3cache", "l1icache", ...
  if (word.size() >= 2 && lower(word[0]) == 'l' && word[1] >= '1' && word[1] <= '5') {
    LevelType type{Kind::kCache, word[1] - '0', false};
    std::string_view rest = word.substr(2);
    if (!rest.empty() &&
        (lower(rest[0]) == 'i' || lower(rest[0]) == 'd' || lower(rest[0]) == 'u')) {
      type.instruction = lower(rest[0]) == 'i';
      rest.remove_prefix(1);
    }
    if (type.instruction && type.cache_depth > 3) return std::nullopt;
    if (rest.empty() || abbreviates(rest, "cache", 1)) return type;
  }
  return std::nullopt;
}

std::string level_name(const LevelType& type, int group_number) {
  switch (type.kind) {
    case Kind::kGroup:
      return std::string("Group").append(std::to_string(group_number));
    case Kind::kNuma:
      return "NUMANode";
    case Kind::kPackage:
      return "Package";
    case Kind::kDie:
      return "Die";
    case Kind::kCache:
      return std::string("L")
          .append(std::to_string(type.cache_depth))
          .append(type.instruction ? "iCache" : "Cache");
    case Kind::kCore:
      return "Core";
    case Kind::kPu:
      return "PU";
  }
  return "level";
}

// A memory size as hwloc reads it in "memory=" and "size=": digits and an optional unit.
bool is_memory_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0 || (digits > 1 && text[0] == '0')) return false;
  const std::string_view unit = text.substr(digits);
  if (unit.empty()) return true;
  if (unit.size() != 2 || lower(unit[1]) != 'b') return false;
  const char scale = lower(unit[0]);
  return scale == 't' || scale == 'g' || scale == 'm' || scale == 'k';
}

std::optional<std::int64_t> parse_decimal(std::string_view text) {
  if (!all_digits(text)) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A number in an interleaving loop as hwloc reads it (strtol base 0), if it is plain decimal.
std::optional<std::int64_t> parse_loop_number(std::string_view text) {
  if (text.size() > 1 && text[0] == '0') {
    throw Unsupported{"interleaving number '" + std::string(text) +
                      "' starts with 0 (octal or hex)"};
  }
  return parse_decimal(text);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

InputError bad_indexes(const std::string& description, const std::string& indexes,
                       const std::string& problem) {
  return InputError(kSource, "cannot parse '" + excerpt(description, 60) +
                                 "': indexes=" + excerpt(indexes, 60) + " " + problem);
}

struct Loop {
  std::int64_t step = 1;
  std::int64_t nb = 1;
};

// The OS index of each PU in creation order, from the indexes= of the PU level, as hwloc computes
// it; stricter than hwloc, which silently ignores indexes that do not make sense.
std::vector<Index> pu_os_indexes(const std::vector<Level>& levels, const std::string& spec,
                                 const std::string& description) {
  // width[i] = objects on hwloc level i (0 = the root, i = levels[i - 1]).
  std::vector<std::int64_t> width(levels.size() + 1, 1);
  for (std::size_t i = 0; i < levels.size(); ++i) width[i + 1] = width[i] * levels[i].arity;
  const std::int64_t total = width.back();
  std::vector<std::int64_t> os(static_cast<std::size_t>(total), 0);

  if (spec.find_first_not_of("0123456789,") == std::string::npos) {
    // An explicit list, one OS index per PU.
    const std::vector<std::string_view> items = split(spec, ',');
    if (static_cast<std::int64_t>(items.size()) != total) {
      throw bad_indexes(description, spec,
                        "lists " + std::to_string(items.size()) + " OS indexes for " +
                            std::to_string(total) + " PUs");
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::optional<std::int64_t> value = parse_decimal(items[i]);
      if (!value || *value > std::numeric_limits<Index>::max()) {
        throw bad_indexes(description, spec,
                          "has an empty or too large entry at position " + std::to_string(i));
      }
      os[i] = *value;
    }
    std::vector<std::int64_t> sorted = os;
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
      throw bad_indexes(description, spec, "gives OS index " + std::to_string(*dup) + " twice");
    }
  } else {
    std::vector<Loop> loops;
    if (is_digit(spec[0])) {
      // Interleaving loops "step*count:step*count:...".
      for (const std::string_view item : split(spec, ':')) {
        const std::size_t star = item.find('*');
        const std::optional<std::int64_t> step =
            star == std::string_view::npos ? std::nullopt : parse_loop_number(item.substr(0, star));
        const std::optional<std::int64_t> nb = star == std::string_view::npos
                                                   ? std::nullopt
                                                   : parse_loop_number(item.substr(star + 1));
        if (!step || !nb || *step < 1 || *nb < 1 || *step > total || *nb > total) {
          throw bad_indexes(description, spec,
                            "has the loop '" + excerpt(item, 60) +
                                "'; expected step*count with both in [1, " + std::to_string(total) +
                                "]");
        }
        loops.push_back(Loop{*step, *nb});
      }
    } else {
      // Interleaving by levels "core:pack": each name is the first level of that type above the
      // PUs; its step is the PUs below one of its objects, its count its objects in the next
      // named level above it (or in the whole machine).
      std::vector<std::size_t> depths;
      for (const std::string_view name : split(spec, ':')) {
        const std::optional<LevelType> type = parse_type(name);
        if (!type) throw Unsupported{"interleaving level '" + excerpt(name, 60) + "'"};
        std::size_t depth = 0;
        for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
          if (levels[i].type == *type) {
            depth = i + 1;
            break;
          }
        }
        if (depth == 0) {
          throw bad_indexes(description, spec,
                            "names '" + excerpt(name, 60) + "', which is no level above the PUs");
        }
        if (std::find(depths.begin(), depths.end(), depth) != depths.end()) {
          throw bad_indexes(description, spec, "names level '" + excerpt(name, 60) + "' twice");
        }
        depths.push_back(depth);
      }
      for (const std::size_t depth : depths) {
        std::size_t parent = 0;
        for (const std::size_t other : depths) {
          if (other < depth && other > parent) parent = other;
        }
        loops.push_back(Loop{total / width[depth], width[depth] / width[parent]});
      }
    }
    // hwloc completes the loops with one innermost loop when that is all that is missing.
    std::int64_t covered = 1;
    std::int64_t min_step = total;
    for (const Loop& loop : loops) {
      covered = std::min(covered * loop.nb, total + 1);
      min_step = std::min(min_step, loop.step);
    }
    if (covered != total) {
      if (covered > total || min_step != total / covered) {
        throw bad_indexes(description, spec,
                          "does not interleave the " + std::to_string(total) + " PUs");
      }
      loops.push_back(Loop{1, total / covered});
    }
    std::int64_t multiplier = 1;
    for (const Loop& loop : loops) {
      for (std::int64_t j = 0; j < total; ++j) {
        os[static_cast<std::size_t>(j)] += ((j / loop.step) % loop.nb) * multiplier;
      }
      multiplier *= loop.nb;
    }
    std::vector<bool> seen(static_cast<std::size_t>(total), false);
    for (const std::int64_t value : os) {
      if (value >= total || seen[static_cast<std::size_t>(value)]) {
        throw bad_indexes(description, spec,
                          "does not give the " + std::to_string(total) +
                              " PUs distinct OS indexes in [0, " + std::to_string(total) + ")");
      }
      seen[static_cast<std::size_t>(value)] = true;
    }
  }
  return std::vector<Index>(os.begin(), os.end());
}

// hwloc inserts objects by cpuset, so siblings end up ordered by the smallest OS index below
// them; reorders the creation-order leaves the same way, bottom-up.
void order_like_hwloc(const std::vector<Level>& levels, std::vector<Index>& os) {
  std::vector<Index> buffer(os.size());
  std::vector<std::size_t> order;
  std::size_t child_block = 1;
  for (std::size_t i = levels.size(); i-- > 0;) {
    const auto arity = static_cast<std::size_t>(levels[i].arity);
    const std::size_t parent_block = child_block * arity;
    if (arity > 1) {
      for (std::size_t parent = 0; parent < os.size(); parent += parent_block) {
        order.resize(arity);
        std::iota(order.begin(), order.end(), std::size_t{0});
        // Children are already sorted inside, so their first leaf is their smallest OS index.
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return os[parent + a * child_block] < os[parent + b * child_block];
        });
        for (std::size_t k = 0; k < arity; ++k) {
          std::copy_n(os.begin() + static_cast<std::ptrdiff_t>(parent + order[k] * child_block),
                      child_block,
                      buffer.begin() + static_cast<std::ptrdiff_t>(parent + k * child_block));
        }
      }
      os.swap(buffer);
    }
    child_block = parent_block;
  }
}

int machine_level(const std::vector<Level>& levels) {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const LevelType& type = levels[i].type;
    if (type.kind == Kind::kGroup) continue;
    const bool anchor = type.kind == Kind::kPackage || type.kind == Kind::kNuma ||
                        type.kind == Kind::kDie ||
                        (type.kind == Kind::kCache && type.cache_depth == 3 && !type.instruction);
    return anchor ? static_cast<int>(i) : 0;
  }
  return 0;
}

// Splits the description into levels, or says what it does not handle.
std::variant<std::vector<Level>, Unsupported> scan_levels(const std::string& text) {
  std::vector<Level> levels;
  std::size_t pos = 0;
  const std::size_t n = text.size();
  while (true) {
    while (pos < n && text[pos] == ' ') ++pos;
    if (pos == n) break;
    const std::size_t begin = pos;
    if (text[pos] == '(') {
      return Unsupported{levels.empty() ? "attributes of the root '(...)'"
                                        : "'(' at position " + std::to_string(pos) +
                                              " does not follow a number of objects"};
    }
    if (text[pos] == '[') return Unsupported{"attached memory objects '[...]'"};
    while (pos < n && is_alnum(text[pos])) ++pos;
    const std::string_view word(text.data() + begin, pos - begin);
    if (word.empty()) {
      return Unsupported{"unexpected character '" +
                         excerpt(std::string_view(text).substr(pos, 1), 60) + "' at position " +
                         std::to_string(pos)};
    }
    if (pos == n || text[pos] != ':') {
      return Unsupported{all_digits(word) ? "level '" + excerpt(word, 60) + "' has no type"
                                          : "expected ':' right after '" + excerpt(word, 60) + "'"};
    }
    const std::optional<LevelType> type = parse_type(word);
    if (!type) return Unsupported{"unknown object type '" + excerpt(word, 60) + "'"};
    const std::size_t arity_begin = ++pos;
    // hwloc reads the number as strtoul(base 0) does: 0x.. hexadecimal, 0.. octal.
    int base = 10;
    if (pos + 1 < n && text[pos] == '0' && (text[pos + 1] == 'x' || text[pos + 1] == 'X')) {
      base = 16;
      pos += 2;
    } else if (pos + 1 < n && text[pos] == '0' && is_digit(text[pos + 1])) {
      base = 8;
      pos += 1;
    }
    const std::size_t digits_begin = pos;
    while (pos < n && (is_digit(text[pos]) ||
                       (base == 16 && ((lower(text[pos]) >= 'a' && lower(text[pos]) <= 'f'))))) {
      ++pos;
    }
    const std::string_view arity_text(text.data() + arity_begin, pos - arity_begin);
    const std::string_view digits(text.data() + digits_begin, pos - digits_begin);
    if (digits.empty()) {
      return Unsupported{"missing the number of objects after '" + excerpt(word, 60) + ":'"};
    }
    std::int64_t number = 0;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), number, base);
    if (error != std::errc() || end != digits.data() + digits.size() ||
        number > std::numeric_limits<Index>::max()) {
      return Unsupported{"number of objects '" + excerpt(arity_text, 60) +
                         "' is not a number below 2^31"};
    }
    const std::optional<std::int64_t> arity = number;
    if (*arity == 0) return Unsupported{"level '" + excerpt(word, 60) + "' has 0 objects"};
    Level level{*type, static_cast<Index>(*arity), std::nullopt};
    if (pos < n && text[pos] == '(') {
      const std::size_t close = text.find(')', pos);
      if (close == std::string::npos) {
        return Unsupported{"missing ')' after '" + excerpt(word, 60) + "'"};
      }
      const std::string_view attributes(text.data() + pos + 1, close - pos - 1);
      for (const std::string_view item : split(attributes, ' ')) {
        const std::size_t equal = item.find('=');
        const std::string_view key = item.substr(0, equal);
        const std::string_view value =
            equal == std::string_view::npos ? std::string_view() : item.substr(equal + 1);
        const bool cache = type->kind == Kind::kCache;
        if (equal != std::string_view::npos && key == "indexes") {
          level.indexes = std::string(value);
        } else if (equal != std::string_view::npos &&
                   ((key == "memory" && !cache) || (key == "size" && cache)) &&
                   is_memory_size(value)) {
          // Memory sizes do not shape the tree.
        } else {
          return Unsupported{"attribute '" + excerpt(item, 60) + "' of '" + excerpt(word, 60) +
                             "'"};
        }
      }
      pos = close + 1;
    }
    if (pos < n && text[pos] != ' ') {
      return Unsupported{"expected a space after '" +
                         excerpt(std::string_view(text).substr(begin, pos - begin), 60) + "'"};
    }
    levels.push_back(std::move(level));
  }
  if (levels.empty()) return Unsupported{"no level"};
  // The rules hwloc enforces.
  if (levels.back().type.kind != Kind::kPu) return Unsupported{"the last level must be 'pu'"};
  const auto count = [&](Kind kind) {
    return std::count_if(levels.begin(), levels.end(),
                         [kind](const Level& level) { return level.type.kind == kind; });
  };
  if (count(Kind::kPu) > 1) return Unsupported{"several 'pu' levels"};
  if (count(Kind::kPackage) > 1) return Unsupported{"several package levels"};
  if (count(Kind::kNuma) > 1) return Unsupported{"several NUMA levels"};
  if (count(Kind::kCore) > 1) return Unsupported{"several core levels"};
  return levels;
}

}  // namespace

/// The tree with the cores as leaves: the levels below the core level fold into each core's cpus.
Topology cores_as_leaves(std::vector<TreeLevel> tree, std::vector<Index> os, std::size_t core_level,
                         int machine, Index pus) {
  std::size_t threads = 1;  // PUs per core
  for (std::size_t i = core_level + 1; i < tree.size(); ++i)
    threads *= static_cast<std::size_t>(tree[i].arity);
  tree.resize(core_level + 1);
  if (os.empty()) {
    os.resize(static_cast<std::size_t>(pus));
    std::iota(os.begin(), os.end(), Index{0});
  }
  const std::size_t cores = os.size() / threads;
  std::vector<Index> core_os(cores);
  std::vector<kernels::Offset> offsets{0};
  std::vector<Index> cpus;
  cpus.reserve(os.size());
  for (std::size_t core = 0; core < cores; ++core) {
    const std::size_t begin = cpus.size();
    cpus.insert(cpus.end(), os.begin() + static_cast<std::ptrdiff_t>(core * threads),
                os.begin() + static_cast<std::ptrdiff_t>((core + 1) * threads));
    std::sort(cpus.begin() + static_cast<std::ptrdiff_t>(begin), cpus.end());
    core_os[core] = cpus[begin];
    offsets.push_back(static_cast<kernels::Offset>(cpus.size()));
  }
  return Topology(std::move(tree), std::move(core_os), machine)
      .with_leaf_cpus(std::move(offsets), std::move(cpus));
}

SyntheticParse parse_synthetic_without_hwloc(const std::string& description,
                                             const TopologyOptions& options) {
  auto scanned = scan_levels(description);
  if (auto* unsupported = std::get_if<Unsupported>(&scanned)) {
    return SyntheticParse{std::nullopt, std::move(unsupported->why)};
  }
  const std::vector<Level>& levels = std::get<std::vector<Level>>(scanned);

  std::int64_t leaves = 1;
  for (const Level& level : levels) {
    leaves *= level.arity;
    if (leaves > std::numeric_limits<Index>::max()) {
      throw InputError(kSource, "cannot parse '" + excerpt(description, 60) + "': more than " +
                                    std::to_string(std::numeric_limits<Index>::max()) + " PUs");
    }
  }
  std::vector<Index> os;
  if (levels.back().indexes) {
    // The OS index of every PU is computed (an interleaving says nothing about a part alone).
    constexpr std::int64_t kMostIndexed = std::int64_t{1} << 26;
    if (leaves > kMostIndexed) {
      throw InputError(kSource, "cannot parse '" + excerpt(description, 60) + "': indexes= on " +
                                    std::to_string(leaves) + " PUs; at most " +
                                    std::to_string(kMostIndexed) + " are numbered this way");
    }
    try {
      os = pu_os_indexes(levels, *levels.back().indexes, description);
    } catch (Unsupported& unsupported) {
      return SyntheticParse{std::nullopt, std::move(unsupported.why)};
    }
    order_like_hwloc(levels, os);
  }

  std::vector<TreeLevel> tree;
  int groups = 0;
  for (const Level& level : levels) {
    tree.push_back(TreeLevel{level.arity, 1.0, level_name(level.type, groups)});
    if (level.type.kind == Kind::kGroup) ++groups;
  }
  const auto core = std::find_if(levels.begin(), levels.end(),
                                 [](const Level& level) { return level.type.kind == Kind::kCore; });
  const bool cores = !options.hardware_threads && core != levels.end();
  if (options.leaves_needed > 0) {
    // The part a job of that many leaves uses, in PUs: whole cores, whole machines.
    std::int64_t threads = 1;
    if (cores) {
      for (auto level = core + 1; level != levels.end(); ++level) threads *= level->arity;
    }
    // Several machines (Group levels above): whole machines only.
    std::int64_t machine = 1;
    if (machine_level(levels) > 0) {
      for (std::size_t i = static_cast<std::size_t>(machine_level(levels)); i < levels.size(); ++i)
        machine *= levels[i].arity;
    }
    const std::int64_t unit =
        std::max(std::max<std::int64_t>(options.machine_leaves, 1) * threads, machine);
    tree = prefix_levels(std::move(tree), options.leaves_needed * threads, unit);
    std::int64_t kept = 1;
    for (const TreeLevel& level : tree) kept *= level.arity;
    if (!os.empty()) os.resize(static_cast<std::size_t>(kept));
    leaves = kept;
  }
  try {
    if (cores) {
      return SyntheticParse{cores_as_leaves(std::move(tree), std::move(os),
                                            static_cast<std::size_t>(core - levels.begin()),
                                            machine_level(levels), static_cast<Index>(leaves)),
                            {}};
    }
    return SyntheticParse{Topology(std::move(tree), std::move(os), machine_level(levels)), {}};
  } catch (const std::invalid_argument& error) {
    throw InputError(kSource, "cannot parse '" + excerpt(description, 60) + "': " + error.what());
  }
}

/// The PUs of a description as hwloc would build them: the product of every arity, read as
/// hwloc does with strtoull (base 0) after a type's ':' or at the start of a typeless word, up to
/// the first character that is not part of the number; hwloc then goes on with the next level
/// even without a space ("pack:0x2188pu:1" is 8584 packages of one PU; found by the fuzzer: 20 s).
/// Attributes in parentheses or brackets ("(indexes=core:pack)", "[numa(memory=1GB)]") are skipped.
/// Nothing when no arity can be read at all.
std::optional<double> estimated_pus(const std::string& description) {
  double product = 1.0;
  bool any = false;
  int nesting = 0;
  for (std::size_t i = 0; i < description.size();) {
    const char c = description[i];
    if (c == '(' || c == '[') ++nesting;
    if ((c == ')' || c == ']') && nesting > 0) --nesting;
    const bool after_type = c == ':';
    const bool typeless_word =
        (i == 0 || description[i - 1] == ' ') && std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (nesting == 0 && (after_type || typeless_word)) {
      const char* start = description.c_str() + i + (after_type ? 1 : 0);
      char* stop = nullptr;
      const unsigned long long value = std::strtoull(start, &stop, 0);
      if (stop != start) {
        product *= static_cast<double>(value);
        any = true;
        i = static_cast<std::size_t>(stop - description.c_str());
        continue;
      }
    }
    ++i;
  }
  if (!any) return std::nullopt;
  return product;
}

Topology read_synthetic(const std::string& description, const TopologyOptions& options) {
  // hwloc reads a C string: past a NUL byte it would build another machine than the one checked
  // here (found by the fuzzer: "11111\0..." handed 11111 PUs to hwloc, 96 s).
  if (const auto bad = std::find_if(description.begin(), description.end(),
                                    [](char c) {
                                      const auto byte = static_cast<unsigned char>(c);
                                      return byte < 0x20 || byte > 0x7e;
                                    });
      bad != description.end()) {
    throw InputError(kSource, "cannot parse '" + excerpt(description, 60) + "': byte " +
                                  std::to_string(bad - description.begin()) +
                                  " is not printable text");
  }
  SyntheticParse parse = parse_synthetic_without_hwloc(description, options);
  if (parse.topology) return std::move(*parse.topology);
  // hwloc builds a synthetic machine object by object, seconds per 10^4 PUs: beyond a small
  // machine, only the forms read above are accepted (they cost nothing).
  constexpr double kMostForHwloc = 4096.0;
  if (const std::optional<double> pus = estimated_pus(description); pus && *pus > kMostForHwloc) {
    throw InputError(kSource, "cannot parse '" + excerpt(description, 60) + "': " +
                                  parse.unsupported + "; hwloc would build its " + fmt_count(*pus) +
                                  " PUs one by one (at most 4096 are left to it): write the "
                                  "description in the form treematch reads itself");
  }
  try {
    return read_hwloc_synthetic(description, kSource, options);
  } catch (const InputError& error) {
    std::string hwloc_says = error.what();
    const std::string prefix = std::string(kSource) + ": ";
    if (hwloc_says.rfind(prefix, 0) == 0) hwloc_says.erase(0, prefix.size());
    throw InputError(kSource, "cannot parse '" + excerpt(description, 60) +
                                  "': " + parse.unsupported + "; hwloc: " + hwloc_says);
  }
}

}  // namespace treematch::io
