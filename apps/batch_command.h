// `treematch batch`: many matrices mapped onto one topology, spread over MPI ranks, with a summary.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apps/map_command.h"

namespace treematch::apps {

struct BatchOptions {
  /// The mapping and placement options (--topology, --metric, --cores, --format, ...), as for
  /// `map`; map.input.matrix is set per pattern.
  MapOptions map;
  /// Matrix files, directories (every matrix file below, sorted by path), "@list" files (one path
  /// per line, relative to the list) and HDF5 files or "file.h5:/object" (every matrix object).
  std::vector<std::string> inputs;
  std::string out;       ///< output directory (created if missing)
  bool resume = false;   ///< keep the patterns that the summary already has as ok, with output
  bool progress = true;  ///< one line per finished pattern on stderr
};

/// Registers the `batch` subcommand and its options on `app`.
CLI::App* add_batch_command(CLI::App& app, BatchOptions& options);

/// Maps every pattern of options.inputs like `treematch map` (TreeMatch, packed, round-robin and
/// random costs) and writes, atomically, DIR/<name>.<format> per pattern and DIR/summary.csv and
/// DIR/summary.json, ordered like the inputs.
///
/// `comm` MPI_COMM_NULL (no MPI) or a single rank: sequential. Otherwise collective over `comm`:
/// rank 0 expands the inputs and hands the patterns out dynamically, largest first
/// (distributed::run_tasks, rank 0 working too); every result comes back to rank 0, which alone
/// writes files and prints progress. The outputs and the summary (timings aside) do not depend on
/// the number of ranks.
///
/// The placement (--topology, --network, --cores, ...) is loaded once, on every rank, before any
/// pattern is handed out: with --topology allocation the job's nodes are gathered collectively over
/// `comm` (MPI_COMM_NULL: this machine, or MPI_COMM_WORLD if MPI is initialised), and the outputs
/// name their hosts unless --hosts is given. Mapping a pattern then reads only its matrix.
///
/// A pattern that fails is recorded with a one-line error; the others complete. Returns, on every
/// rank, 0 when every pattern is ok and 1 otherwise. Throws io::InputError (on every rank, same
/// message) for what makes the whole batch impossible: a bad option value or --topology, --network
/// (given with another topology than allocation), --cores, no input, an --out that cannot be
/// created, a --resume summary made with other settings.
int run_batch(const BatchOptions& options, MPI_Comm comm);

}  // namespace treematch::apps
