// `treematch convert`: any matrix format to any other, row block by row block, written atomically.
#include "apps/convert_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/cli_checks.h"
#include "apps/progress_display.h"
#include "apps/progress_row_source.h"
#include "io/input_error.h"
#include "io/matrix_reader.h"
#include "io/matrix_stream.h"
#include "io/ompi_monitoring_reader.h"
#include "kernels/utility.h"

namespace treematch::apps {
namespace {

using kernels::seconds_since;

std::string layout(io::MatrixFormat format, const io::Hdf5WriteOptions& hdf5) {
  if (!io::is_hdf5(format)) return io::matrix_format_name(format);
  return fmt::format("{}, {}", io::matrix_format_name(format),
                     hdf5.compress ? "deflate" : "uncompressed");
}

/// `convert --from ompi-monitoring DIR OUT.h5`: every traffic class, and their sum, in one file.
int run_convert_ompi_monitoring(const ConvertOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (!options.metric.empty()) {
    throw io::InputError("--metric",
                         "does not apply to --from ompi-monitoring: OUT gets size and "
                         "msg of every traffic class (map picks one with --metric)");
  }
  io::Hdf5WriteOptions hdf5;
  const io::MatrixFormat format = resolve_output(options.out, options.output, hdf5);
  if (format != io::MatrixFormat::kHdf5Csr) {
    throw io::InputError(
        options.output, std::string("--from ompi-monitoring writes HDF5 (/size, /msg and the "
                                    "groups /external, /internal, /onesided), not ") +
                            io::matrix_format_name(format) + "; name OUT *.h5 or give --format h5");
  }
  // Read and check every rank file before creating anything.
  const io::OmpiMonitoringPattern pattern = io::read_ompi_monitoring(options.input);
  io::PendingFile pending(options.output);
  io::write_ompi_monitoring_hdf5(pending.temporary(), pattern, hdf5);
  pending.commit();

  const auto traffic = [](const io::TrafficMatrices& m) {
    return fmt::format("{} B / {} msgs", m.total_bytes(), m.total_messages());
  };
  std::cerr << fmt::format(
      "treematch convert: {}.<rank>.prof -> {} ({}): {} ranks; external {}, internal {}, "
      "one-sided {}; /size and /msg = their sum ({} and {} entries); {} C lines not added "
      "(already in E/I); {:.3f} s\n",
      pattern.prefix, options.output, layout(format, hdf5), pattern.ranks,
      traffic(pattern.external), traffic(pattern.internal), traffic(pattern.onesided),
      pattern.total.size.targets.size(), pattern.total.msg.targets.size(), pattern.collective_lines,
      seconds_since(start));
  return 0;
}

}  // namespace

void add_matrix_output_options(CLI::App& command, MatrixOutputOptions& options) {
  command
      .add_option("--format", options.format,
                  "auto (from OUT's extension: .mat, .csv, .graph/.metis, .h5/.hdf5 = CSR) | mat | "
                  "csv | metis | h5 | h5-dense")
      ->capture_default_str();
  command.add_flag("--no-compress", options.no_compress,
                   "HDF5: write without deflate (larger file, faster dense reads)");
  command
      .add_option("--chunk-rows", options.chunk_rows,
                  "h5-dense: rows per chunk (default: whole rows, up to ~1 MiB per chunk)")
      ->check(at_least(1));
}

io::MatrixFormat resolve_output(const MatrixOutputOptions& options, const std::string& path,
                                io::Hdf5WriteOptions& hdf5) {
  const io::MatrixFormat format = io::parse_matrix_format(options.format, path);
  if (options.no_compress && !io::is_hdf5(format)) {
    throw io::InputError("--no-compress", std::string("applies to HDF5 output only, not ") +
                                              io::matrix_format_name(format));
  }
  if (options.chunk_rows > 0 && format != io::MatrixFormat::kHdf5Dense) {
    throw io::InputError("--chunk-rows", std::string("applies to --format h5-dense only, not ") +
                                             io::matrix_format_name(format) +
                                             " (CSR datasets use chunks of 2^17 entries)");
  }
  hdf5.compress = !options.no_compress;
  hdf5.chunk_rows = options.chunk_rows;
  return format;
}

CLI::App* add_convert_command(CLI::App& app, ConvertOptions& options) {
  CLI::App* convert = app.add_subcommand(
      "convert",
      "rewrite a communication matrix in another format (.mat, .csv, METIS, HDF5), or import "
      "the files of Open MPI's monitoring (--from ompi-monitoring)");
  convert
      ->add_option("IN", options.input,
                   "matrix to read (any format map reads); with --from ompi-monitoring, the "
                   "directory or prefix (DIR/prof) of the <prefix>.<rank>.prof files")
      ->required();
  convert->add_option("OUT", options.output, "file to write (atomically)")->required();
  convert->add_flag("--quiet,-q", options.quiet,
                    "no progress line (shown on a terminal when the run takes more than a second)");
  convert->add_option("--metric", options.metric,
                      "size | msg | avg when IN carries both (CSV pair, HDF5 /size + /msg); "
                      "both = write /size and /msg (HDF5 output only) [default: size]");
  convert
      ->add_option("--from", options.from,
                   "matrix | ompi-monitoring (the per-rank files of mpirun --mca "
                   "pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca "
                   "pml_monitoring_filename prof; OUT = HDF5 with /size and /msg = external + "
                   "internal + one-sided, and each class in /external, /internal, /onesided)")
      ->check(CLI::IsMember({"matrix", "ompi-monitoring"}))
      ->capture_default_str();
  add_matrix_output_options(*convert, options.out);
  convert->footer(
      "Rows are read and written a block at a time (dense text, CSV and METIS line by line, HDF5 "
      "by hyperslabs; HDF5 CSR grows chunked datasets), so memory stays far below the matrix "
      "size, except for METIS output: it needs the edge count first and a symmetric graph, so it "
      "loads the matrix and writes C + C^T for a directed C (said on stderr). The diagonal is "
      "dropped, as every reader does. OUT is written under a temporary name in its directory and "
      "renamed at the end; on any error nothing is left.");
  return convert;
}

int run_convert(const ConvertOptions& options) {
  if (options.from == "ompi-monitoring") return run_convert_ompi_monitoring(options);
  const auto start = std::chrono::steady_clock::now();
  ProgressDisplay progress("treematch convert", progress_wanted(options.quiet));
  progress.phase(options.input + " -> " + options.output);
  io::MatrixWriteOptions write;
  const io::MatrixFormat format = resolve_output(options.out, options.output, write.hdf5);
  const bool both = options.metric == "both";
  if (both && !io::is_hdf5(format)) {
    throw io::InputError("--metric", std::string("both writes /size and /msg, which only HDF5 "
                                                 "output holds (OUT is ") +
                                         io::matrix_format_name(format) + ")");
  }
  const io::Metric metric =
      both || options.metric.empty() ? io::Metric::kSize : io::parse_metric(options.metric);
  const bool has_both = io::has_both_metrics(options.input);
  if (both && !has_both) {
    throw io::InputError(options.input,
                         "carries a single metric (size); --metric both needs a pair of files "
                         "X.size.csv and X.count.csv or an HDF5 file with /size and /msg");
  }

  // Open the input before creating anything, so that a bad header fails early.
  std::unique_ptr<io::MatrixRowSource> first = io::open_matrix_source(options.input, metric);
  std::unique_ptr<io::MatrixRowSource> second;
  if (both) second = io::open_matrix_source(options.input, io::Metric::kMsg);

  io::PendingFile pending(options.output);
  io::WriteSummary summary;
  if (both) {
    write.object = "/size";
    ProgressRowSource sizes(*first, ProgressSpan{&progress, "size rows", 0.0, 0.5});
    summary = io::write_matrix(pending.temporary(), format, sizes, write);
    write.object = "/msg";
    write.mode = io::Hdf5WriteMode::kAppend;
    ProgressRowSource counts(*second, ProgressSpan{&progress, "msg rows", 0.5, 1.0});
    const io::WriteSummary msg = io::write_matrix(pending.temporary(), format, counts, write);
    summary.entries += msg.entries;
  } else {
    ProgressRowSource rows(*first, ProgressSpan{&progress, "rows"});
    summary = io::write_matrix(pending.temporary(), format, rows, write);
  }
  pending.commit();
  progress.stop();

  const std::string prefix = "treematch convert: ";
  if (has_both && options.metric.empty()) {
    std::cerr << prefix << "note: " << options.input
              << " carries size and msg; wrote size only (--metric msg|avg picks another, "
                 "--metric both keeps both in HDF5)\n";
  }
  if (summary.symmetrised) {
    std::cerr << prefix << "note: " << options.input
              << " is directed (C != C^T); METIS needs a symmetric graph, so C + C^T was written "
                 "(same mapping; costs computed from "
              << options.output << " are twice those from " << options.input << ")\n";
  }
  if (format == io::MatrixFormat::kMetis && !summary.integer_weights) {
    std::cerr << prefix
              << "note: some weights are not integers: treematch reads them, METIS "
                 "itself does not\n";
  }
  if (!io::extension_matches(format, options.output)) {
    std::cerr << prefix << "note: treematch will not recognise " << options.output << " as "
              << io::matrix_format_name(format) << " by its name; rename it to read it back\n";
  }
  std::cerr << fmt::format("{}{} -> {} ({}{}): {} ranks, {} entries, {:.3f} s\n", prefix,
                           options.input, options.output, layout(format, write.hdf5),
                           both ? ", /size and /msg" : "", summary.n, summary.entries,
                           seconds_since(start));
  return 0;
}

}  // namespace treematch::apps
