// `treematch generate`: the noisy hierarchical matrix of benchmark case D1, the geometric G1,
// the 27-point stencils of S1 to S3.
#include "apps/generate_command.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "apps/cli_checks.h"
#include "apps/progress_display.h"
#include "apps/progress_row_source.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_writer.h"
#include "io/matrix_stream.h"
#include "io/topology_reader.h"
#include "kernels/utility.h"
#include "src/patterns/geometric_pattern.h"
#include "src/patterns/hierarchical_pattern.h"
#include "src/patterns/stencil_pattern.h"

namespace treematch::apps {
namespace {

/// The rows of a symmetric CommGraph held in memory, a block at a time.
class GraphRowSource final : public io::MatrixRowSource {
 public:
  explicit GraphRowSource(const CommGraph& graph) : graph_(graph.view()) {}
  [[nodiscard]] Index size() const override { return graph_.n; }
  [[nodiscard]] Offset expected_entries() const override {
    return graph_.offsets[static_cast<std::size_t>(graph_.n)];
  }
  Index append_rows(kernels::Csr& rows) override {
    const Index first = next_;
    while (next_ < graph_.n && next_ - first < io::kRowBlockRows) {
      for (Offset e = graph_.row_begin(next_); e < graph_.row_end(next_); ++e) {
        rows.targets.push_back(graph_.targets[static_cast<std::size_t>(e)]);
        rows.weights.push_back(graph_.weights[static_cast<std::size_t>(e)]);
      }
      rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
      ++next_;
    }
    return next_ - first;
  }

 private:
  kernels::CsrView graph_;
  Index next_ = 0;
};

/// Writes a pattern held in memory to `output` atomically.
void write_graph(const CommGraph& graph, const std::string& output, io::MatrixFormat format,
                 const io::MatrixWriteOptions& write, ProgressDisplay& progress) {
  io::PendingFile pending(output);
  GraphRowSource rows(graph);
  ProgressRowSource source(rows, ProgressSpan{&progress, "writing"});
  io::write_matrix(pending.temporary(), format, source, write);
  pending.commit();
}

/// Says how much a dense hierarchical matrix will take before writing it, when that is more than
/// 1 GB: every entry is written (noisy values take 18-19 characters of text each).
void announce_large_output(Index n, io::MatrixFormat format, const GenerateOptions& options) {
  const double entries = static_cast<double>(n) * static_cast<double>(n);
  const double text = options.noise > 0.0 ? 19.0 : 3.0;
  double per_entry = 0.0;
  switch (format) {
    case io::MatrixFormat::kMat:
    case io::MatrixFormat::kCsv:
      per_entry = text;
      break;
    case io::MatrixFormat::kMetis:
      per_entry = text + static_cast<double>(std::to_string(n).size()) + 1.0;
      break;
    case io::MatrixFormat::kHdf5Csr:
      per_entry = 16.0;  // value and column index, before compression
      break;
    case io::MatrixFormat::kHdf5Dense:
      per_entry = 8.0;
      break;
  }
  const double bytes = entries * per_entry;
  if (bytes <= 1e9) return;
  std::cerr << fmt::format(
      "treematch generate: writing about {:.1f} GB{} ({} x {} entries, {}) to {}\n", bytes / 1e9,
      io::is_hdf5(format) ? " before compression" : "", n, n, io::matrix_format_name(format),
      options.output);
}

int run_geometric(const GenerateOptions& options, io::MatrixFormat format,
                  const io::MatrixWriteOptions& write, std::chrono::steady_clock::time_point start,
                  ProgressDisplay& progress) {
  GeometricPatternSpec spec;
  spec.ranks = options.ranks > 0 ? options.ranks : 4096;
  spec.points = options.points;
  spec.degree = options.degree;
  spec.hotspots = options.hotspots;
  spec.dimensions = options.dimensions;
  spec.layout = options.layout == "clustered" ? PointLayout::kClustered : PointLayout::kUniform;
  spec.neighbours =
      options.neighbours == "nearest" ? NeighbourRule::kNearest : NeighbourRule::kRadius;
  spec.degree_exponent = options.degree_exponent;
  spec.seed = options.seed;
  if (spec.points < spec.ranks) {
    throw io::InputError("--points", fmt::format("{} points cannot make {} parts (--ranks)",
                                                 spec.points, spec.ranks));
  }
  if (!(spec.degree > 0.0) || !std::isfinite(spec.degree)) {
    throw io::InputError("--degree", fmt::format("{} is not a finite value > 0", spec.degree));
  }
  if (spec.neighbours == NeighbourRule::kNearest &&
      (std::lround(spec.degree) < 1 || std::lround(spec.degree) >= spec.points)) {
    throw io::InputError("--degree", fmt::format("nearest: k = {} must be in [1, points)",
                                                 std::lround(spec.degree)));
  }
  if (spec.degree_exponent != 0.0 &&
      (!(spec.degree_exponent > 2.0) || !std::isfinite(spec.degree_exponent) ||
       spec.neighbours != NeighbourRule::kRadius)) {
    throw io::InputError(
        "--degree-exponent",
        fmt::format("{} is not a finite value > 2 with --neighbours radius", spec.degree_exponent));
  }
  progress.step("drawing the points and cutting them into parts", -1.0);
  const CommGraph graph = make_geometric_pattern(spec);
  write_graph(graph, options.output, format, write, progress);
  std::cerr << fmt::format(
      "treematch generate: geometric, {} ranks from {} points (degree {}, {} hotspots), seed {}: "
      "{} entries -> {} ({}), {:.3f} s\n",
      spec.ranks, spec.points, spec.degree, spec.hotspots, spec.seed, graph.nnz(), options.output,
      io::matrix_format_name(format), kernels::seconds_since(start));
  return 0;
}

/// The box of `--grid` ("128x128x64"): three sides of at least 1.
StencilSpec parse_grid(const std::string& grid) {
  StencilSpec spec;
  Index* sides[] = {&spec.nx, &spec.ny, &spec.nz};
  std::string_view rest(grid);
  for (int i = 0; i < 3; ++i) {
    const std::size_t cut = i < 2 ? rest.find('x') : rest.size();
    const std::string_view side = rest.substr(0, cut);
    Index value = 0;
    const auto [end, error] = std::from_chars(side.data(), side.data() + side.size(), value);
    if (cut == std::string_view::npos || side.empty() || error != std::errc() ||
        end != side.data() + side.size() || value < 1) {
      throw io::InputError("--grid", fmt::format("'{}' is not NXxNYxNZ (three sides >= 1, e.g. "
                                                 "128x128x64)",
                                                 grid));
    }
    *sides[i] = value;
    rest.remove_prefix(i < 2 ? cut + 1 : cut);
  }
  return spec;
}

int run_stencil(const GenerateOptions& options, io::MatrixFormat format,
                const io::MatrixWriteOptions& write, std::chrono::steady_clock::time_point start,
                ProgressDisplay& progress) {
  if (options.grid.empty()) throw io::InputError("--grid", "generate stencil needs the grid");
  StencilSpec spec = parse_grid(options.grid);
  if (options.weights.size() != 3) {
    throw io::InputError("--weights", fmt::format("{} values given; it takes face,edge,corner",
                                                  options.weights.size()));
  }
  for (const double weight : options.weights) {
    if (!(weight >= 0.0) || !std::isfinite(weight)) {
      throw io::InputError("--weights", fmt::format("{} is not a finite value >= 0", weight));
    }
  }
  spec.face = options.weights[0];
  spec.edge = options.weights[1];
  spec.corner = options.weights[2];
  spec.seed = options.seed;
  progress.step("building the stencil", -1.0);
  CommGraph graph;
  try {
    graph = make_stencil_27(spec);
  } catch (const std::invalid_argument& e) {  // more cells than an Index holds
    throw io::InputError("--grid", e.what());
  }
  write_graph(graph, options.output, format, write, progress);
  std::cerr << fmt::format(
      "treematch generate: stencil {}x{}x{} (27-point, weights {} {} {}), seed {}: {} entries -> "
      "{} ({}), {:.3f} s\n",
      spec.nx, spec.ny, spec.nz, spec.face, spec.edge, spec.corner, spec.seed, graph.nnz(),
      options.output, io::matrix_format_name(format), kernels::seconds_since(start));
  return 0;
}

}  // namespace

CLI::App* add_generate_command(CLI::App& app, GenerateOptions& options) {
  CLI::App* generate = app.add_subcommand(
      "generate",
      "write a synthetic matrix: hierarchical = 10^(depth - h) x (1 + noise x U[0,1)) between "
      "ranks whose common ancestor is h levels up, ranks on randomly permuted leaves; geometric "
      "= edges cut between the parts of a random geometric graph split by recursive coordinate "
      "bisection into parts of equal work, ranks in random order; stencil = a 3-D 27-point "
      "stencil, ranks in random order");
  generate->add_option("KIND", options.kind, "hierarchical | geometric | stencil")
      ->required()
      ->check(CLI::IsMember({"hierarchical", "geometric", "stencil"}));
  generate->add_option("OUT", options.output, "file to write (atomically)")->required();
  generate->add_option("--topology,-t", options.topology,
                       "hierarchical: the tree (hwloc synthetic string, tleaf or hwloc XML)");
  generate
      ->add_option("--ranks", options.ranks,
                   "number of ranks (hierarchical: default one per leaf; geometric: parts, "
                   "default 4096)")
      ->check(at_least(1));
  generate->add_option("--points", options.points, "geometric: points of the geometric graph")
      ->check(at_least(1))
      ->capture_default_str();
  generate->add_option("--degree", options.degree, "geometric: expected neighbours of a point")
      ->capture_default_str();
  generate
      ->add_option("--hotspots", options.hotspots,
                   "geometric: regions of 20x work, where parts are small (0 = uniform)")
      ->check(at_least(0))
      ->capture_default_str();
  generate->add_option("--dimensions", options.dimensions, "geometric: 2 (square) or 3 (cube)")
      ->check(CLI::IsMember({2, 3}))
      ->capture_default_str();
  generate
      ->add_option("--layout", options.layout,
                   "geometric: uniform points, or clustered (70% in 24 Gaussian towns)")
      ->check(CLI::IsMember({"uniform", "clustered"}))
      ->capture_default_str();
  generate
      ->add_option("--neighbours", options.neighbours,
                   "geometric: radius (closer than r, --degree expected neighbours) or nearest "
                   "(each point to its --degree nearest)")
      ->check(CLI::IsMember({"radius", "nearest"}))
      ->capture_default_str();
  generate
      ->add_option("--degree-exponent", options.degree_exponent,
                   "geometric, radius: > 2 gives power-law degrees of this exponent (points "
                   "weighted, reach scaled by both weights); 0 = none")
      ->capture_default_str();
  generate->add_option("--grid", options.grid,
                       "stencil: the box of processes, NXxNYxNZ (e.g. 128x128x64)");
  generate
      ->add_option("--weights", options.weights,
                   "stencil: face,edge,corner: the volume to a neighbour across a face, an edge, "
                   "a corner")
      ->delimiter(',')
      ->capture_default_str();
  generate->add_option("--noise", options.noise, "relative noise: entries x (1 + noise x U[0,1))")
      ->capture_default_str();
  generate
      ->add_option("--seed", options.seed,
                   "seed of the rank permutation (cells' order for stencil) and of the noise")
      ->capture_default_str();
  generate->add_flag(
      "--quiet,-q", options.quiet,
      "no progress line (shown on a terminal when the run takes more than a second)");
  generate->add_flag("--directed", options.directed,
                     "draw the noise of (i, j) and (j, i) independently (default: symmetric)");
  add_matrix_output_options(*generate, options.out);
  return generate;
}

int run_generate(const GenerateOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ProgressDisplay progress("treematch generate", progress_wanted(options.quiet));
  progress.phase("generating " + options.kind + " into " + options.output);
  io::MatrixWriteOptions write;
  const io::MatrixFormat format = resolve_output(options.out, options.output, write.hdf5);
  if (options.kind == "geometric") return run_geometric(options, format, write, start, progress);
  if (options.kind == "stencil") return run_stencil(options, format, write, start, progress);
  if (options.topology.empty()) {
    throw io::InputError("--topology", "generate hierarchical needs the tree (--topology)");
  }
  const Topology topology = io::read_topology(options.topology);
  if (options.ranks > topology.leaf_count()) {
    throw io::InputError("--ranks",
                         fmt::format("{} ranks but the topology {} has {} leaves", options.ranks,
                                     topology.shape(), topology.leaf_count()));
  }
  if (!(options.noise >= 0.0) || !std::isfinite(options.noise)) {
    throw io::InputError("--noise", fmt::format("{} is not a finite value >= 0", options.noise));
  }
  HierarchicalPatternSpec spec;
  spec.ranks = options.ranks;
  spec.noise = options.noise;
  spec.seed = options.seed;
  spec.directed = options.directed;
  spec.variant = HierarchicalVariant::kGenerate;
  const HierarchicalPattern pattern(topology, spec);
  const Index n = pattern.size();
  const io::DenseRowProducer rows = [&pattern](Index row, std::span<double> values) {
    pattern.fill_row(row, values);
  };
  announce_large_output(n, format, options);

  io::PendingFile pending(options.output);
  const ProgressSpan writing{&progress, "writing"};
  if (format == io::MatrixFormat::kHdf5Dense) {
    // Straight from the producer: no detour through sparse rows.
    const io::DenseRowProducer counted = [&](Index row, std::span<double> values) {
      report_rows(writing, row, n);
      rows(row, values);
    };
    io::write_matrix_hdf5_dense(pending.temporary(), n, counted, write.object, write.mode,
                                write.hdf5);
  } else {
    const auto dense = io::dense_producer_source(n, rows);
    ProgressRowSource source(*dense, writing);
    io::write_matrix(pending.temporary(), format, source, write);
  }
  pending.commit();
  progress.stop();
  std::cerr << fmt::format(
      "treematch generate: hierarchical, {} ranks on {}, noise {}, seed {}{} -> {} ({}{}), "
      "{:.3f} s\n",
      n, topology.shape(), options.noise, options.seed, options.directed ? ", directed" : "",
      options.output, io::matrix_format_name(format),
      io::is_hdf5(format) ? (write.hdf5.compress ? ", deflate" : ", uncompressed") : "",
      kernels::seconds_since(start));
  return 0;
}

}  // namespace treematch::apps
