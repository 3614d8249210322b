// How much memory this process may still take: the machine's and its control group's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace treematch::io {

/// Bytes free for this process, and where the figure comes from.
struct AvailableMemory {
  std::int64_t bytes = 0;
  std::string source;  ///< "MemAvailable", "cgroup memory.max", "--max-memory", ...
};

/// The least of the kernel's MemAvailable (/proc/meminfo) and, when this process's control group
/// sets a memory limit (cgroup v2 memory.max, v1 memory.limit_in_bytes: Slurm's and containers'
/// limits), that limit less the group's usage. Nothing when neither can be read.
std::optional<AvailableMemory> available_memory();

/// Parses --max-memory: "auto" (nothing: available_memory() decides), "none" (no check: the
/// largest value), or a size: an integer with an optional K, M, G or T suffix (powers of 1024).
/// Throws InputError("--max-memory", ...) otherwise.
std::optional<AvailableMemory> parse_memory_limit(const std::string& text);

/// "9.6 GiB", "512.0 MiB": a byte count for people.
std::string format_bytes(std::int64_t bytes);

}  // namespace treematch::io
