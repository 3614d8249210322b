// Writes communication matrices in every format treematch reads, streaming rows.
#pragma once

#include <string>

#include "io/atomic_file.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_stream.h"
#include "io/matrix_text_reader.h"
#include "src/model/comm_graph.h"

namespace treematch::io {

/// The formats a matrix can be written in.
enum class MatrixFormat {
  kMat,        ///< TreeMatch dense text: n lines of n blank-separated values
  kCsv,        ///< dense comma-separated values, no header (MapLib)
  kMetis,      ///< METIS graph "n m 001", 1-based neighbour/weight pairs (symmetric)
  kHdf5Csr,    ///< HDF5 csr_matrix group (data, indices, indptr, shape)
  kHdf5Dense,  ///< HDF5 n x n float64 dataset
};

/// "auto" (from `path`'s extension: .mat, .csv, .graph/.metis/.aphid, .h5/.hdf5 -> CSR), "mat",
/// "csv", "metis", "h5" (CSR) or "h5-dense". Throws InputError("--format", ...) for an unknown name
/// and InputError(path, ...) when "auto" meets an extension it does not know.
MatrixFormat parse_matrix_format(const std::string& name, const std::string& path);

/// The --format name of `format` ("mat", "csv", "metis", "h5", "h5-dense").
const char* matrix_format_name(MatrixFormat format);

/// True for the two HDF5 formats.
bool is_hdf5(MatrixFormat format);

/// True when read_matrix() recognises `path` as `format` by its name alone (or, for HDF5, by its
/// content): e.g. false for CSV written to "x.txt", which would be read back as blank-separated.
bool extension_matches(MatrixFormat format, const std::string& path);

/// Where and how an HDF5 matrix is written.
struct MatrixWriteOptions {
  Hdf5WriteOptions hdf5;
  std::string object = "/matrix";  ///< the dataset or group written
  Hdf5WriteMode mode = Hdf5WriteMode::kTruncate;
};

/// What a writer wrote.
struct WriteSummary {
  Index n = 0;
  Offset entries = 0;  ///< non-zero off-diagonal entries written (METIS: counting both directions)
  bool symmetrised = false;     ///< METIS only: the input was directed, C + C^T was written
  bool integer_weights = true;  ///< METIS only: every weight is an integer (METIS itself needs it)
};

/// Writes every remaining row of `source` to `path` (in place: wrap it in a PendingFile for an
/// atomic output). Row blocks are written as they are read, except METIS (see
/// write_matrix_metis). Throws what the source throws (InputError for bad input), InputError(path,
/// "cannot write: ...") for a failed text write and Hdf5Error for a failed HDF5 call.
WriteSummary write_matrix(const std::string& path, MatrixFormat format, MatrixRowSource& source,
                          const MatrixWriteOptions& options = {});

/// Dense text, one line per row: zeros as "0", other values in the shortest form that reads back
/// to the same double; the diagonal (never kept by the readers) as 0.
WriteSummary write_matrix_text(const std::string& path, MatrixRowSource& source,
                               TextSeparator separator);

/// METIS needs a symmetric graph with its edge count in the header, so this one loads the whole
/// matrix as a CommGraph: a directed input C is written as C + C^T (summary.symmetrised), which
/// reads back as the same CommGraph up to CommGraph::was_symmetrised(). Weights are written in the
/// shortest form that reads back to the same double (treematch accepts non-integers, METIS does
/// not: see summary.integer_weights).
WriteSummary write_matrix_metis(const std::string& path, MatrixRowSource& source);
WriteSummary write_matrix_metis(const std::string& path, const CommGraph& graph);

}  // namespace treematch::io
