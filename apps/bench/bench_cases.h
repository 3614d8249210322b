// The benchmark's cases: which matrix goes on which topology.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/bench/stencil.h"
#include "src/comm_graph.h"
#include "src/topology.h"

namespace treematch::bench {

/// Where a case's topology comes from.
enum class TopologySource {
  kDataFile,   ///< `topology` is a path relative to the data folder (tleaf file or hwloc XML)
  kInline,     ///< `topology` is a spec given as is (tleaf or hwloc synthetic string)
  kCluster24,  ///< "tleaf 3 <ceil(p/24)> 1 2 1 12 1": nodes of 2 sockets x 12 cores, sized to p
};

/// Where a case's matrix comes from.
enum class MatrixSource {
  kDataFile,  ///< `matrix` is a path relative to the data folder, read with io::read_matrix
  kStencil,   ///< make_stencil_27(stencil) with the run's seed
};

struct CaseSpec {
  std::string name;
  bool in_default = true;  ///< part of the run without --cases
  MatrixSource matrix_source = MatrixSource::kDataFile;
  std::string matrix;   ///< kDataFile only
  StencilSpec stencil;  ///< kStencil only (its seed is replaced by the run's)
  TopologySource topology_source = TopologySource::kDataFile;
  std::string topology;  ///< kDataFile and kInline only
};

/// A case read and ready to run.
struct LoadedCase {
  CommGraph graph;
  std::string matrix_origin;  ///< the data file, or a description of the synthetic pattern
  std::string topology_spec;  ///< the --topology given to treematch (absolute path or string)
  Topology topology;          ///< io::read_topology(topology_spec)
};

/// Every case, in the order they run: the PACOS examples, CloverLeaf, MapLib, hwloc's netloc test,
/// then the synthetic stencils S1 (default) and S2 (only on request).
std::vector<CaseSpec> all_cases();

/// Reads (or generates) the case's matrix and topology. Throws io::InputError or
/// std::runtime_error naming what is missing or wrong (e.g. a data file that does not exist).
LoadedCase load_case(const CaseSpec& spec, const std::string& data_dir, std::uint64_t seed);

}  // namespace treematch::bench
