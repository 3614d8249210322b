// Reads Open MPI rankfiles ("rank 3=host slot=5"), such as `treematch map --format rankfile`
// writes, for `treematch eval` and `treematch bind`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/types.h"

namespace treematch::io {

/// One line "rank <r>=<host> slot=<n>".
struct RankfileLine {
  kernels::Index rank = 0;
  std::string host;
  kernels::Index slot = 0;
};

/// A rankfile's lines in rank order (ranks 0..p-1, each once) and what its header says.
struct Rankfile {
  std::vector<RankfileLine> ranks;
  /// From the header treematch writes: true when it asks for rmaps_rank_file_physical (slots
  /// are OS indexes), false when it says the slots are logical; unset without such a header.
  std::optional<bool> physical;
  /// From the header: true when it asks for --use-hwthread-cpus (slots count hardware threads).
  std::optional<bool> hardware_threads;
};

/// True when `text` looks like a rankfile: its first line that is neither blank nor a '#' comment
/// starts with "rank".
bool looks_like_rankfile(const std::string& text);

/// Parses rankfile text. Accepts '#' comment and blank lines, spaces around '=' and one slot
/// number per rank (the form treematch writes; Open MPI's socket:core lists and ranges are
/// refused with a message saying so). Throws InputError(source, "line 4: ...") for anything else,
/// a rank given twice or missing, or no rank at all.
Rankfile parse_rankfile(const std::string& text, const std::string& source);

}  // namespace treematch::io
