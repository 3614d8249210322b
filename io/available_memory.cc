// Reading MemAvailable and the control group's memory limit.
#include "io/available_memory.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// The first integer in `path` ("max" and unreadable files give nothing).
std::optional<std::int64_t> read_integer(const std::string& path) {
  std::ifstream in(path);
  std::int64_t value = 0;
  if (!(in >> value) || value < 0) return std::nullopt;
  return value;
}

/// MemAvailable of /proc/meminfo, in bytes.
std::optional<std::int64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

/// The limit of this process's control group less its usage: cgroup v2 ("0::/path" in
/// /proc/self/cgroup, memory.max and memory.current) or v1 (the "memory" controller's line,
/// memory.limit_in_bytes and memory.usage_in_bytes). An unlimited group gives nothing.
std::optional<AvailableMemory> cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::string limit_file;
    std::string usage_file;
    std::string name;
    if (controllers.empty()) {
      limit_file = "/sys/fs/cgroup" + path + "/memory.max";
      usage_file = "/sys/fs/cgroup" + path + "/memory.current";
      name = "cgroup memory.max";
    } else if (controllers == "memory") {
      limit_file = "/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes";
      usage_file = "/sys/fs/cgroup/memory" + path + "/memory.usage_in_bytes";
      name = "cgroup memory.limit_in_bytes";
    } else {
      continue;
    }
    const std::optional<std::int64_t> limit = read_integer(limit_file);
    // v1 writes "no limit" as a huge page-rounded number.
    if (!limit || *limit >= std::numeric_limits<std::int64_t>::max() / 2) continue;
    const std::int64_t usage = read_integer(usage_file).value_or(0);
    return AvailableMemory{std::max<std::int64_t>(0, *limit - usage), name};
  }
  return std::nullopt;
}

}  // namespace

std::optional<AvailableMemory> available_memory() {
  std::optional<AvailableMemory> least;
  if (const std::optional<std::int64_t> bytes = mem_available())
    least = AvailableMemory{*bytes, "MemAvailable"};
  if (const std::optional<AvailableMemory> group = cgroup_headroom()) {
    if (!least || group->bytes < least->bytes) least = group;
  }
  return least;
}

std::optional<AvailableMemory> parse_memory_limit(const std::string& text) {
  if (text == "auto") return std::nullopt;
  if (text == "none")
    return AvailableMemory{std::numeric_limits<std::int64_t>::max(), "--max-memory none"};
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(text.data(), end, value);
  int shift = 0;
  if (rest != end && rest + 1 == end) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(*rest)));
    const std::string units = "KMGT";
    const std::size_t at = units.find(unit);
    shift = at == std::string::npos ? -1 : 10 * static_cast<int>(at + 1);
  } else if (rest != end) {
    shift = -1;
  }
  if (error != std::errc() || value <= 0 || shift < 0 ||
      value > (std::numeric_limits<std::int64_t>::max() >> shift)) {
    throw InputError("--max-memory",
                     "'" + text.substr(0, 40) + "' is not auto, none or a size such as 512M or 8G");
  }
  return AvailableMemory{value << shift, "--max-memory"};
}

std::string format_bytes(std::int64_t bytes) {
  const double value = static_cast<double>(bytes);
  if (value >= 1024.0 * 1024 * 1024) return fmt::format("{:.1f} GiB", value / (1 << 30));
  return fmt::format("{:.1f} MiB", value / (1 << 20));
}

}  // namespace treematch::io
