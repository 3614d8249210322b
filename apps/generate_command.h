// `treematch generate`: writes synthetic communication matrices (the benchmarks' D1, G1, stencils).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apps/convert_command.h"

namespace treematch::apps {

struct GenerateOptions {
  std::string kind = "hierarchical";
  std::string output;
  std::string topology;
  int ranks = 0;  ///< 0 = one rank per leaf
  double noise = 0.1;
  std::uint64_t seed = 1;
  bool directed = false;
  bool quiet = false;  ///< no progress line on a terminal
  // geometric: see treematch::GeometricPatternSpec
  int points = 1 << 20;
  double degree = 8.0;
  int hotspots = 8;
  int dimensions = 2;
  std::string layout = "uniform";     ///< uniform | clustered
  std::string neighbours = "radius";  ///< radius | nearest
  double degree_exponent = 0.0;       ///< > 2: power-law degrees (radius only)
  // stencil: see treematch::StencilSpec
  std::string grid;                                  ///< NXxNYxNZ
  std::vector<double> weights{1000.0, 100.0, 10.0};  ///< face, edge, corner
  MatrixOutputOptions out;
};

CLI::App* add_generate_command(CLI::App& app, GenerateOptions& options);

/// Writes the matrix (HierarchicalPattern, make_geometric_pattern or make_stencil_27) to `output`
/// atomically; one summary line on stderr.
int run_generate(const GenerateOptions& options);

}  // namespace treematch::apps
