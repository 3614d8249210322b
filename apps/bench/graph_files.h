// Input files for treematch and Scotch, and the reader of Scotch's mapping output.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/tree/topology.h"

namespace treematch::bench {

/// Writes `graph` as a TreeMatch dense text matrix (.mat): n rows of n values, entry (i, j) =
/// stored weight x graph.cost_scale(). The file is symmetric, so treematch reads it unchanged and
/// its costs equal those of the matrix `graph` was read from (a directed input C is written as
/// (C + C^T) / 2). Values are printed in the shortest form that reads back to the same double.
/// Throws std::runtime_error if the file cannot be written.
void write_dense_matrix(const std::string& path, const CommGraph& graph);

/// Writes `graph` as a METIS graph: header "n m 001" (m = undirected edges), then one line per
/// vertex of 1-based "neighbour weight" pairs, weights as in write_dense_matrix.
/// Throws std::runtime_error if the file cannot be written.
void write_metis_graph(const std::string& path, const CommGraph& graph);

/// How the matrix weights were turned into Scotch's integer edge loads.
struct ScotchWeights {
  double scale = 1.0;      ///< load = max(1, round(stored weight x scale))
  bool exact = true;       ///< every load equals its stored weight (integers, no scaling)
  long long load_sum = 0;  ///< sum of the loads over all arcs
  long long clamped = 0;   ///< arcs whose scaled weight rounded below 1 and were set to 1
};

/// Largest sum of arc loads written for Scotch. Debian's scotch_gmap uses 32-bit integers and
/// rejects a graph whose edge-load sum overflows them ("graphCheck: edge load sum overflow");
/// a factor 4 is kept as headroom for the gains and costs Scotch sums while mapping.
inline constexpr long long kScotchLoadSumLimit = 1LL << 29;

/// Writes `graph` as a Scotch source graph (.grf, base 0, edge loads, no vertex loads):
///   "0\n<n> <arcs>\n0 010\n" then per vertex "<degree> <load> <neighbour> <load> <neighbour> ...".
/// (The load comes before its neighbour; scotch's gtst rejects the other order.) Stored weights are
/// used as they are when they are all integers whose sum fits kScotchLoadSumLimit; otherwise they
/// are scaled so that their sum is kScotchLoadSumLimit, rounded, and raised to 1 where they round
/// to 0. Throws std::runtime_error if the file cannot be written.
ScotchWeights write_scotch_graph(const std::string& path, const CommGraph& graph);

/// Fills `values` (n entries) with row `row` of a dense matrix.
using DenseRowFill = std::function<void(Index row, std::span<double> values)>;

/// write_scotch_graph for a dense matrix, symmetric, given row by row (zeros and the diagonal are
/// skipped): two passes over the rows, one for the arc count and the load scale, one to write,
/// holding one row at a time. The same weights give the same file as write_scotch_graph.
ScotchWeights write_scotch_graph_dense(const std::string& path, Index n, const DenseRowFill& fill);

/// The Scotch "tleaf" target of the same shape and link costs as `topology`: "tleaf <depth> a0 c0
/// a1 c1 ...". Scotch takes integer costs: they are written as they are when they are all integers
/// up to 10^6, otherwise scaled so that the largest is 10^6, rounded, and a positive cost that
/// rounds to 0 written as 1. Throws std::invalid_argument for a one-leaf topology.
std::string scotch_tleaf(const Topology& topology);

/// A Scotch mapping as read back, and how evenly it filled the leaves.
struct ScotchMapping {
  Mapping mapping;
  Index max_load = 0;           ///< most processes on one leaf
  Index overloaded_leaves = 0;  ///< leaves holding more than one process
};

/// Reads scotch_gmap's output: a count line, then "<vertex> <terminal>" lines, one per vertex in
/// any order. Throws std::runtime_error naming the file for a bad count, a vertex missing, repeated
/// or out of range, or a terminal outside [0, terminals).
ScotchMapping read_scotch_mapping(const std::string& path, Index vertices, Index terminals);

/// Writes `text` to `path`; throws std::runtime_error on failure.
void write_text_file(const std::string& path, const std::string& text);

/// The whole file, or "" if it cannot be read.
std::string read_text_file(const std::string& path);

/// The last `bytes` of `text` after "...", or the whole text when it is no longer (a log's end).
std::string text_tail(const std::string& text, std::size_t bytes);

}  // namespace treematch::bench
