// The case list of treematch-bench, --cases selection, and how each case's inputs are obtained.
#include "apps/bench/bench_cases.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "apps/bench/corpus_cases.h"
#include "apps/bench/simulation_cases.h"
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
                      std::string topology, MatrixFile file = MatrixFile::kText,
                      std::string series = "") {
  CaseSpec spec;
  spec.name = std::move(name);
  spec.in_default = in_default;
  spec.matrix_source = MatrixSource::kStencil;
  spec.stencil.nx = nx;
  spec.stencil.ny = ny;
  spec.stencil.nz = nz;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.matrix_file = file;
  spec.series = std::move(series);
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
  // S1 to S4 and growth-262144: one stencil and machine shape (N / 128 switches), the "growth"
  // series of time per entry from 16384 to 10,485,760 ranks.
  cases.push_back(stencil_case("S1", /*in_default=*/true, 32, 32, 16,
                               "group:128 group:16 pack:2 core:4 pu:1", MatrixFile::kText,
                               "growth"));
  // 4096 parts of a 1M-point random geometric graph with hotspots of work, on a cluster whose
  // links cost more going up (cores 1, sockets 3, nodes 10, switches 40).
  CaseSpec geometric;
  geometric.name = "G1";
  geometric.matrix_source = MatrixSource::kGeometric;
  geometric.topology_source = TopologySource::kInline;
  geometric.topology = "tleaf 4 32 40 16 10 2 3 4 1";
  cases.push_back(geometric);
  cases.push_back(stencil_case("S2", /*in_default=*/false, 64, 64, 16,
                               "group:512 group:16 pack:2 core:4 pu:1", MatrixFile::kText,
                               "growth"));
  cases.push_back(stencil_case("growth-262144", /*in_default=*/false, 64, 64, 64,
                               "group:2048 group:16 pack:2 core:4 pu:1", MatrixFile::kHdf5Csr,
                               "growth"));
  // 1,048,576 ranks: ~28M entries, given to treematch as binary HDF5 (a text file is slow to
  // write).
  cases.push_back(stencil_case("S3", /*in_default=*/false, 128, 128, 64,
                               "group:8192 group:16 pack:2 core:4 pu:1", MatrixFile::kHdf5Csr,
                               "growth"));
  // 10,485,760 ranks, the size of an exascale job: ~283M entries, a 4.4 GB input; only by name
  // (not in --scale): it needs about 10 GB for treematch and as much for the bench's generator.
  cases.push_back(stencil_case("S4", /*in_default=*/false, 256, 256, 160,
                               "group:81920 group:16 pack:2 core:4 pu:1", MatrixFile::kHdf5Csr,
                               "growth"));
  cases.back().only_by_name = true;
  CaseSpec dense;
  dense.name = "D1";
  dense.in_default = false;
  dense.matrix_source = MatrixSource::kHierarchical;
  dense.noise = 0.1;
  dense.matrix_file = MatrixFile::kHdf5Dense;
  dense.topology_source = TopologySource::kInline;
  dense.topology = "group:128 group:16 pack:2 core:4 pu:1";
  cases.push_back(dense);
  for (CaseSpec& spec : corpus_cases()) cases.push_back(std::move(spec));
  for (CaseSpec& spec : simulation_cases()) cases.push_back(std::move(spec));
  return cases;
}

Selection select_cases(const std::vector<CaseSpec>& catalogue,
                       const std::vector<std::string>& names) {
  Selection selection;
  const auto add = [&](const CaseSpec& spec) {
    const bool seen = std::any_of(selection.cases.begin(), selection.cases.end(),
                                  [&](const CaseSpec& c) { return c.name == spec.name; });
    if (!seen) selection.cases.push_back(spec);
  };
  for (const std::string& name : names) {
    if (name == kThreadsStep) {
      selection.threads = true;
      continue;
    }
    if (name == kCorpusSelection || name == kCorpusQuickSelection) {
      const bool quick = name == kCorpusQuickSelection;
      for (const CaseSpec& spec : catalogue) {
        if (quick ? spec.in_corpus_quick : spec.in_corpus) add(spec);
      }
      continue;
    }
    if (name == kDefaultSelection) {
      for (const CaseSpec& spec : catalogue) {
        if (spec.in_default) add(spec);
      }
      continue;
    }
    bool found = false;
    for (const CaseSpec& spec : catalogue) {
      if (spec.name == name || (spec.series == name && !spec.only_by_name)) {
        add(spec);
        found = true;
      }
    }
    if (!found) throw std::invalid_argument("no case or series named '" + name + "' (see --list)");
  }
  return selection;
}

LoadedCase load_case(const CaseSpec& spec, const std::string& data_dir, std::uint64_t seed,
                     bool unit_costs) {
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
      loaded.matrix_origin =
          stencil.shuffled ? fmt::format("27-point stencil {}x{}x{}, ranks shuffled with seed {}",
                                         stencil.nx, stencil.ny, stencil.nz, seed)
                           : fmt::format("27-point stencil {}x{}x{}, ranks in the grid's order",
                                         stencil.nx, stencil.ny, stencil.nz);
      break;
    }
    case MatrixSource::kGeometric: {
      GeometricPatternSpec geometric = spec.geometric;
      geometric.seed = seed;
      loaded.graph = make_geometric_pattern(geometric);
      loaded.matrix_origin =
          spec.description.empty()
              ? fmt::format(
                    "geometric: {} parts of a {}-point random geometric graph (degree {}, "
                    "{} hotspots), ranks shuffled, seed {}",
                    geometric.ranks, geometric.points, geometric.degree, geometric.hotspots, seed)
              : fmt::format("{}, seed {}", spec.description, seed);
      break;
    }
    case MatrixSource::kHierarchical:
      break;  // sized by the topology, below
  }
  switch (spec.topology_source) {
    case TopologySource::kDataFile:
      loaded.topology_spec = data_path(data_dir, spec.topology);
      break;
    case TopologySource::kInline:
      loaded.topology_spec = spec.topology;
      break;
    case TopologySource::kCluster24: {
      if (!loaded.graph)
        throw std::invalid_argument(spec.name + ": a cluster24 case needs a matrix");
      const Index nodes = (loaded.graph->size() + 23) / 24;
      loaded.topology_spec = "tleaf 3 " + std::to_string(nodes) + " 1 2 1 12 1";
      break;
    }
  }
  if (loaded.topology_spec.size() > 4 &&
      loaded.topology_spec.compare(loaded.topology_spec.size() - 4, 4, ".xml") == 0) {
    // PACOS' XML machine: its hardware threads are the leaves, as TreeMatch's own tool reads it
    // (64 ranks on 32 cores of 2 threads); both tools get that tree as a tleaf.
    loaded.topology = io::read_topology(loaded.topology_spec, {.hardware_threads = true});
    loaded.topology_spec = loaded.topology.to_tleaf();
  } else {
    loaded.topology = io::read_topology(loaded.topology_spec);
  }
  if (unit_costs) {
    loaded.topology = loaded.topology.with_link_costs(
        std::vector<double>(static_cast<std::size_t>(loaded.topology.depth()), 1.0));
    loaded.topology_spec = loaded.topology.to_tleaf();
  }
  if (spec.node_size > 0) loaded.topology = loaded.topology.with_machine_size(spec.node_size);
  if (spec.matrix_source == MatrixSource::kHierarchical) {
    HierarchicalPatternSpec hierarchical;
    hierarchical.noise = spec.noise;
    hierarchical.seed = seed;
    hierarchical.variant = HierarchicalVariant::kBenchD1;
    loaded.dense.emplace(loaded.topology, hierarchical);
    loaded.processes = loaded.dense->size();
    loaded.entries = loaded.dense->entries();
    loaded.matrix_origin = fmt::format(
        "dense hierarchical 10^({} - h) x (1 + {} u), {} ranks on seeded random slots, seed {}",
        loaded.topology.depth(), spec.noise, loaded.processes, seed);
  } else {
    loaded.processes = loaded.graph->size();
    loaded.entries = loaded.graph->nnz();
  }
  if (spec.reserved_per_package > 0) {
    const Index package = loaded.topology.levels().back().arity;
    for (Index leaf = 0; leaf < loaded.topology.leaf_count(); ++leaf) {
      if (leaf % package < package - spec.reserved_per_package)
        loaded.allowed_leaves.push_back(leaf);
    }
    if (static_cast<Index>(loaded.allowed_leaves.size()) < loaded.processes) {
      throw std::invalid_argument(fmt::format(
          "{}: {} processes do not fit the {} cores left with {} reserved per package", spec.name,
          loaded.processes, loaded.allowed_leaves.size(), spec.reserved_per_package));
    }
  }
  return loaded;
}

std::vector<CellBox> stencil_machine_boxes() {
  return {{4, 4, 8}, {2, 2, 2}, {2, 2, 1}, {1, 1, 1}};
}

std::optional<Mapping> nested_block_optimum(const CaseSpec& spec, const Topology& topology,
                                            std::uint64_t seed) {
  if (spec.matrix_source != MatrixSource::kStencil || topology.has_holes()) return std::nullopt;
  StencilSpec stencil = spec.stencil;
  stencil.seed = seed;
  const std::vector<CellBox> boxes = stencil_machine_boxes();
  std::vector<Index> arities;
  try {
    arities = nested_block_arities(stencil, boxes);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // the grid does not tile into the boxes
  }
  std::vector<Index> tree;
  for (const TreeLevel& level : topology.levels()) tree.push_back(level.arity);
  if (arities != tree) return std::nullopt;
  return nested_block_mapping(stencil, boxes);
}

}  // namespace treematch::bench
