// The case list of treematch-bench and how each case's matrix and topology are obtained.
#include "apps/bench/bench_cases.h"

#include <filesystem>
#include <stdexcept>

#include "io/matrix_reader.h"
#include "io/topology_reader.h"

namespace treematch::bench {
namespace {

namespace fs = std::filesystem;

CaseSpec file_case(std::string name, std::string matrix, TopologySource source,
                   std::string topology) {
  CaseSpec spec;
  spec.name = std::move(name);
  spec.matrix = std::move(matrix);
  spec.topology_source = source;
  spec.topology = std::move(topology);
  return spec;
}

CaseSpec stencil_case(std::string name, bool in_default, Index nx, Index ny, Index nz,
                      std::string topology) {
  CaseSpec spec;
  spec.name = std::move(name);
  spec.in_default = in_default;
  spec.matrix_source = MatrixSource::kStencil;
  spec.stencil.nx = nx;
  spec.stencil.ny = ny;
  spec.stencil.nz = nz;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  return spec;
}

std::string data_path(const std::string& data_dir, const std::string& relative) {
  const fs::path path = fs::path(data_dir) / relative;
  if (!fs::exists(path)) throw std::runtime_error("missing data file " + path.string());
  return path.string();
}

}  // namespace

std::vector<CaseSpec> all_cases() {
  std::vector<CaseSpec> cases;
  const std::string pacos = "pacos/examples/";
  for (const char* size : {"16", "32", "64", "128", "512", "3375"}) {
    const std::string s(size);
    // 64.mat comes with an hwloc XML machine; the others with a tleaf file of their size.
    const std::string topology =
        s == "64" ? pacos + "netgraph/64.xml" : pacos + "netgraph/" + s + ".tgt";
    cases.push_back(file_case("pacos-" + s, pacos + "taskgraph/" + s + ".mat",
                              TopologySource::kDataFile, topology));
  }
  for (const char* size : {"128", "240", "256", "320", "480", "512", "640", "960", "1024"}) {
    const std::string s(size);
    cases.push_back(file_case("clover-" + s, pacos + "taskgraph/CloverLeaf" + s + ".APHiD",
                              TopologySource::kCluster24, ""));
  }
  for (const char* app : {"amg", "btmz", "cg", "lulesh"}) {
    const std::string a(app);
    cases.push_back(file_case("maplib-" + a, "maplib/" + a + "_comm_matrix.p2p.size.csv",
                              TopologySource::kInline, "tleaf 3 4 1 2 1 8 1"));
  }
  cases.push_back(file_case("netloc-app", "hwloc_netloc_tests/app.mat", TopologySource::kDataFile,
                            "hwloc_netloc_tests/arch.scotch"));
  cases.push_back(
      stencil_case("S1", /*in_default=*/true, 32, 32, 16, "group:128 group:16 pack:2 core:4 pu:1"));
  cases.push_back(stencil_case("S2", /*in_default=*/false, 64, 64, 16,
                               "group:512 group:16 pack:2 core:4 pu:1"));
  return cases;
}

LoadedCase load_case(const CaseSpec& spec, const std::string& data_dir, std::uint64_t seed) {
  LoadedCase loaded;
  switch (spec.matrix_source) {
    case MatrixSource::kDataFile:
      loaded.matrix_origin = data_path(data_dir, spec.matrix);
      loaded.graph = io::read_matrix(loaded.matrix_origin);
      break;
    case MatrixSource::kStencil: {
      StencilSpec stencil = spec.stencil;
      stencil.seed = seed;
      loaded.graph = make_stencil_27(stencil);
      loaded.matrix_origin = "27-point stencil " + std::to_string(stencil.nx) + "x" +
                             std::to_string(stencil.ny) + "x" + std::to_string(stencil.nz) +
                             ", ranks shuffled with seed " + std::to_string(seed);
      break;
    }
  }
  switch (spec.topology_source) {
    case TopologySource::kDataFile:
      loaded.topology_spec = data_path(data_dir, spec.topology);
      break;
    case TopologySource::kInline:
      loaded.topology_spec = spec.topology;
      break;
    case TopologySource::kCluster24: {
      const Index nodes = (loaded.graph.size() + 23) / 24;
      loaded.topology_spec = "tleaf 3 " + std::to_string(nodes) + " 1 2 1 12 1";
      break;
    }
  }
  loaded.topology = io::read_topology(loaded.topology_spec);
  return loaded;
}

}  // namespace treematch::bench
