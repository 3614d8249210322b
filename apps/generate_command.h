// `treematch generate`: writes synthetic communication matrices (the benchmarks' case D1).
#pragma once

#include <cstdint>
#include <string>

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
  MatrixOutputOptions out;
};

CLI::App* add_generate_command(CLI::App& app, GenerateOptions& options);

/// Writes the matrix (io::hierarchical_matrix_rows) to `output` atomically; one summary line on
/// stderr.
int run_generate(const GenerateOptions& options);

}  // namespace treematch::apps
