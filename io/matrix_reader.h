// Reads a communication matrix from any supported file format into the CommGraph model.
#pragma once

#include <string>

#include "src/comm_graph.h"

namespace treematch::io {

/// Which quantity to map on when the input carries both bytes and message counts.
enum class Metric { kSize, kMsg, kAvg };

/// Parses "size" | "msg" | "avg"; throws InputError otherwise.
Metric parse_metric(const std::string& text);

/// Reads `path`, choosing the format from its extension / content:
///   *.mat (or any other text): TreeMatch dense text, one row per line, blank/whitespace separated;
///   *.csv: dense comma-separated rows (MapLib); a "*.size.csv"/"*.count.csv" sibling pair gives
///   the
///          metrics size and msg;
///   *.APHiD, *.graph, *.metis: METIS graph (header "n m [fmt]", 1-based neighbour/weight pairs);
///   *.h5, *.hdf5: dataset /matrix (dense 2-D) or group /matrix (CSR: data, indices, indptr,
///          attribute shape); or /size and /msg for both metrics.
/// Throws InputError("<path>", "<what is wrong>") for every malformed input.
CommGraph read_matrix(const std::string& path, Metric metric = Metric::kSize);

}  // namespace treematch::io
