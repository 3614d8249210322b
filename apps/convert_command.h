// `treematch convert`: rewrites a communication matrix in another format, streaming row blocks.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "io/matrix_writers.h"

namespace treematch::apps {

/// How a matrix file is written (shared by convert and generate).
struct MatrixOutputOptions {
  std::string format = "auto";  ///< auto | mat | csv | metis | h5 | h5-dense
  bool no_compress = false;
  int chunk_rows = 0;  ///< h5-dense only; 0 = whole rows up to ~1 MiB
};

/// Registers --format, --no-compress and --chunk-rows on `command`.
void add_matrix_output_options(CLI::App& command, MatrixOutputOptions& options);

/// The format of `path` and the HDF5 layout the options ask for. Throws io::InputError for an
/// unknown format, and for --no-compress or --chunk-rows with a format they do not apply to.
io::MatrixFormat resolve_output(const MatrixOutputOptions& options, const std::string& path,
                                io::Hdf5WriteOptions& hdf5);

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string from = "matrix";  ///< matrix | ompi-monitoring (IN = directory or file prefix)
  std::string metric;           ///< size | msg | avg | both; empty = size
  bool quiet = false;           ///< no progress line on a terminal
  MatrixOutputOptions out;
};

CLI::App* add_convert_command(CLI::App& app, ConvertOptions& options);

/// Reads `input` row block by row block and writes `output` under a temporary name, renamed over
/// `output` at the end (removed on any error). Prints one summary line, and notes, on stderr.
/// With from = "ompi-monitoring", reads the rank files of an Open MPI monitoring run instead and
/// writes every traffic class to the HDF5 file `output` (see io::write_ompi_monitoring_hdf5).
int run_convert(const ConvertOptions& options);

}  // namespace treematch::apps
