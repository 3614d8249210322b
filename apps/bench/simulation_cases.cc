// The simulation cases: measured applications and shuffled halos on machines with a network.
#include "apps/bench/simulation_cases.h"

#include <string>

#include <fmt/format.h>

namespace treematch::bench {
namespace {

CaseSpec simulation_case(std::string name, std::string topology, Index node_size,
                         std::string description) {
  CaseSpec spec;
  spec.name = std::move(name);
  spec.in_default = false;
  spec.series = kSimulationSeries;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.node_size = node_size;
  spec.description = std::move(description);
  return spec;
}

CaseSpec halo(Index nx, Index ny, Index nz, const char* topology) {
  CaseSpec spec = simulation_case(
      fmt::format("sim-halo-{}", nx * ny * nz), topology, 16,
      fmt::format("27-point halo {}x{}x{} (faces 1 MB, edges 100 kB, corners 10 kB), ranks "
                  "shuffled, on {} with 16-core machines",
                  nx, ny, nz, topology));
  spec.matrix_source = MatrixSource::kStencil;
  spec.stencil.nx = nx;
  spec.stencil.ny = ny;
  spec.stencil.nz = nz;
  spec.stencil.shuffled = true;
  spec.simulation_byte_scale = 1000.0;  // the stencil's face weight 1000 -> 1 MB
  return spec;
}

}  // namespace

std::vector<CaseSpec> simulation_cases() {
  std::vector<CaseSpec> cases;
  for (const char* app : {"lulesh", "amg", "cg", "btmz"}) {
    CaseSpec spec = simulation_case(
        fmt::format("sim-{}-64", app), "tleaf 3 2 100 4 10 8 1", 8,
        fmt::format("MapLib's {} (64 ranks, bytes over the run) on 2 switches x 4 nodes x 8 cores",
                    app));
    spec.matrix = fmt::format("maplib/{}_comm_matrix.p2p.size.csv", app);
    cases.push_back(std::move(spec));
  }
  cases.push_back(halo(8, 8, 8, "tleaf 4 4 1000 8 100 2 10 8 1"));
  cases.push_back(halo(16, 8, 8, "tleaf 4 8 1000 8 100 2 10 8 1"));
  return cases;
}

}  // namespace treematch::bench
