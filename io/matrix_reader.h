// Reads a communication matrix from any supported file format into the CommGraph model.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "src/model/comm_graph.h"

namespace treematch::io {

/// Which quantity to map on when the input carries both bytes and message counts.
enum class Metric { kSize, kMsg, kAvg };

/// What a matrix file's header tells before any row is read.
struct MatrixHeader {
  Index order = 0;  ///< n: the processes
  /// The stored entries, when the format states them (HDF5 CSR, METIS; at most n^2 for an HDF5
  /// dense dataset); the dense text formats do not.
  std::optional<Offset> entries;
};

/// Called by a reader with the header as soon as the file gives it, before any row (or any array
/// of n entries) is read: a caller that knows how many processes it can place, or how much memory
/// a mapping may take, refuses a matrix too large at once, without reading it. Throws to refuse.
using HeaderCheck = std::function<void(const MatrixHeader& header)>;

/// Parses "size" | "msg" | "avg"; throws InputError otherwise.
Metric parse_metric(const std::string& text);

/// Reads `path`, choosing the format from its extension / content:
///   *.mat (or any other text): TreeMatch dense text, one row per line, blank/whitespace separated;
///   *.csv: dense comma-separated rows (MapLib); a "*.size.csv"/"*.count.csv" sibling pair gives
///   the
///          metrics size and msg;
///   *.APHiD, *.graph, *.metis: METIS graph (header "n m [fmt]", 1-based neighbour/weight pairs);
///   *.h5, *.hdf5: dataset /matrix (dense 2-D) or group /matrix (CSR: data, indices, indptr,
///          attribute shape); or /size and /msg for both metrics;
///   FILE.h5:/OBJECT: the same inside the group OBJECT (OBJECT/size and OBJECT/msg, or
///          OBJECT/matrix), or the matrix OBJECT itself (size only); see split_hdf5_object.
/// Throws InputError("<path>", "<what is wrong>") for every malformed input (a matrix of order 0
/// included: it has no ranks to map). `check`, if given, is called with the order before any row is
/// read (see HeaderCheck).
CommGraph read_matrix(const std::string& path, Metric metric = Metric::kSize,
                      const HeaderCheck& check = {});

/// Where one metric of an HDF5 input lives, for readers that share the rows between MPI ranks.
struct Hdf5MatrixLocation {
  std::string path;    ///< the file
  std::string object;  ///< the dataset or CSR group
};

/// The HDF5 object holding `metric` of `given` ("run.h5" or "run.h5:/GROUP"); nothing when
/// `given` is not HDF5 or the metric is avg (a ratio of two objects). Throws InputError like
/// read_matrix when the object is missing.
std::optional<Hdf5MatrixLocation> locate_hdf5_matrix(const std::string& given, Metric metric);

}  // namespace treematch::io
