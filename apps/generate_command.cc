// `treematch generate hierarchical`: the noisy hierarchical matrix of benchmark case D1.
#include "apps/generate_command.h"

#include <chrono>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "io/input_error.h"
#include "io/matrix_stream.h"
#include "io/topology_reader.h"

namespace treematch::apps {

CLI::App* add_generate_command(CLI::App& app, GenerateOptions& options) {
  CLI::App* generate = app.add_subcommand(
      "generate",
      "write a synthetic matrix: hierarchical = 10^(depth - h) x (1 + noise x U[0,1)) between "
      "ranks whose common ancestor is h levels up, ranks on randomly permuted leaves");
  generate->add_option("KIND", options.kind, "hierarchical")
      ->required()
      ->check(CLI::IsMember({"hierarchical"}));
  generate->add_option("OUT", options.output, "file to write (atomically)")->required();
  generate
      ->add_option("--topology,-t", options.topology,
                   "the tree: hwloc synthetic string, tleaf or hwloc XML (as for map)")
      ->required();
  generate->add_option("--ranks", options.ranks, "number of ranks (default: one per leaf)")
      ->check(CLI::PositiveNumber);
  generate->add_option("--noise", options.noise, "relative noise: entries x (1 + noise x U[0,1))")
      ->capture_default_str();
  generate->add_option("--seed", options.seed, "seed of the rank permutation and of the noise")
      ->capture_default_str();
  generate->add_flag("--directed", options.directed,
                     "draw the noise of (i, j) and (j, i) independently (default: symmetric)");
  add_matrix_output_options(*generate, options.out);
  return generate;
}

int run_generate(const GenerateOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  io::MatrixWriteOptions write;
  const io::MatrixFormat format = resolve_output(options.out, options.output, write.hdf5);
  const Topology topology = io::read_topology(options.topology);
  if (options.ranks > topology.leaf_count()) {
    throw io::InputError("--ranks",
                         fmt::format("{} ranks but the topology {} has {} leaves", options.ranks,
                                     topology.shape(), topology.leaf_count()));
  }
  if (!(options.noise >= 0.0) || !std::isfinite(options.noise)) {
    throw io::InputError("--noise", fmt::format("{} is not a finite value >= 0", options.noise));
  }
  io::HierarchicalMatrixSpec spec;
  spec.ranks = options.ranks;
  spec.noise = options.noise;
  spec.seed = options.seed;
  spec.directed = options.directed;
  const Index n = io::hierarchical_matrix_order(topology, spec);
  const io::DenseRowProducer rows = io::hierarchical_matrix_rows(topology, spec);

  io::PendingFile pending(options.output);
  if (format == io::MatrixFormat::kHdf5Dense) {
    // Straight from the producer: no detour through sparse rows.
    io::write_matrix_hdf5_dense(pending.temporary(), n, rows, write.object, write.mode, write.hdf5);
  } else {
    const auto source = io::dense_producer_source(n, rows);
    io::write_matrix(pending.temporary(), format, *source, write);
  }
  pending.commit();
  std::cerr << fmt::format(
      "treematch generate: hierarchical, {} ranks on {}, noise {}, seed {}{} -> {} ({}{}), "
      "{:.3f} s\n",
      n, topology.shape(), options.noise, options.seed, options.directed ? ", directed" : "",
      options.output, io::matrix_format_name(format),
      io::is_hdf5(format) ? (write.hdf5.compress ? ", deflate" : ", uncompressed") : "",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace treematch::apps
