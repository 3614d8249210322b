// The benchmark's cases: which matrix goes on which topology, and how --cases names select them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/comm_graph.h"
#include "src/model/mapping.h"
#include "src/patterns/geometric_pattern.h"
#include "src/patterns/hierarchical_pattern.h"
#include "src/patterns/stencil_pattern.h"
#include "src/tree/topology.h"

namespace treematch::bench {

/// Where a case's topology comes from.
enum class TopologySource {
  kDataFile,   ///< `topology` is a path relative to the data folder (tleaf file or hwloc XML)
  kInline,     ///< `topology` is a spec given as is (tleaf or hwloc synthetic string)
  kCluster24,  ///< "tleaf 3 <ceil(p/24)> 1 2 1 12 1": nodes of 2 sockets x 12 cores, sized to p
};

/// Where a case's matrix comes from.
enum class MatrixSource {
  kDataFile,      ///< `matrix` is a path relative to the data folder, read with io::read_matrix
  kStencil,       ///< make_stencil_27(stencil) with the run's seed
  kHierarchical,  ///< HierarchicalPattern (kBenchD1) with the run's seed: dense, never held whole
  kGeometric,     ///< make_geometric_pattern(geometric) with the run's seed
};

/// The file the case's matrix is given to treematch in.
enum class MatrixFile {
  kText,       ///< dense .mat up to --max-dense processes, else a METIS graph
  kHdf5Csr,    ///< HDF5 csr_matrix group /matrix, uncompressed (io::write_matrix_hdf5_csr)
  kHdf5Dense,  ///< HDF5 2-D dataset /matrix, uncompressed, chunks of whole rows, row by row
};

struct CaseSpec {
  std::string name;
  bool in_default = true;  ///< part of the run without --cases
  MatrixSource matrix_source = MatrixSource::kDataFile;
  std::string matrix;              ///< kDataFile only
  StencilSpec stencil;             ///< kStencil only (its seed is replaced by the run's)
  GeometricPatternSpec geometric;  ///< kGeometric only (its seed is replaced by the run's)
  double noise = 0.1;              ///< kHierarchical only
  MatrixFile matrix_file = MatrixFile::kText;
  TopologySource topology_source = TopologySource::kDataFile;
  std::string topology;  ///< kDataFile and kInline only
  std::string series;    ///< a named group ("growth") selected together and summarised together
  /// In `series` (summarised with it when run) but selected only by its own name (S4: 10 GB and
  /// half an hour).
  bool only_by_name = false;
  /// Part of the quality corpus (corpus_cases.h), and of its quick subset.
  bool in_corpus = false;
  bool in_corpus_quick = false;
  std::string description;  ///< what the case stands for (the corpus lists it)
  /// Leaves per machine (treematch's --node-size; the link model's network cards sit there); 0 =
  /// the topology's own (a tleaf: one machine).
  Index node_size = 0;
  /// --simulate: message bytes = stored weight x this (a stencil's weights 1000/100/10 become
  /// 1 MB faces).
  double simulation_byte_scale = 1.0;
  /// Cores kept from the job at the end of every package (the lowest level's groups), as Slurm's
  /// --core-spec keeps them for the system: treematch gets the others as --cores (a restricted
  /// machine), the baselines use them, and Scotch and the peers, which map onto whole trees, do
  /// not run. 0: every core is the job's.
  Index reserved_per_package = 0;
};

/// A case read and ready to run.
struct LoadedCase {
  /// The matrix, except for kHierarchical, whose dense order would not fit comfortably (16384^2
  /// entries are 3.2 GB as CSR): that one is produced row by row from `dense`.
  std::optional<CommGraph> graph;
  std::optional<HierarchicalPattern> dense;
  Index processes = 0;
  long long entries = 0;      ///< stored non-zeros of the symmetric matrix (both directions)
  std::string matrix_origin;  ///< the data file, or a description of the synthetic pattern
  std::string topology_spec;  ///< the --topology given to treematch (absolute path or string)
  Topology topology;          ///< io::read_topology(topology_spec)
  /// The cores the job may use, ascending (CaseSpec::reserved_per_package); empty: every leaf.
  std::vector<Index> allowed_leaves;
};

/// Every case, in the order they run: the PACOS examples, CloverLeaf, MapLib, hwloc's netloc test,
/// the synthetic stencil S1 and the irregular G1 (4096 parts of a random geometric graph; the
/// default set ends here), then, only on request, the stencils S2 (65536 ranks), S3 (1M ranks)
/// and S4 (10M ranks),
/// the dense hierarchical D1 and the 262144-rank stencil of the "growth" series (S1, S2, it, S3,
/// and S4 when named: the same stencil and machine shape from 16384 to 10,485,760 ranks).
std::vector<CaseSpec> all_cases();

/// The --cases name of the thread speedup measurement (S2 at --threads 1 and 2).
inline constexpr const char* kThreadsStep = "threads";
/// The case whose mapping phase the thread speedup measurement times.
inline constexpr const char* kThreadsCase = "S2";
/// What --scale stands for.
inline constexpr const char* kScaleSelection = "S2,S3,D1,growth,threads";

/// The --cases names of the quality corpus and of its quick subset (the CI's regression guard).
inline constexpr const char* kCorpusSelection = "corpus";
inline constexpr const char* kCorpusQuickSelection = "corpus-quick";

/// The --cases name of the default set.
inline constexpr const char* kDefaultSelection = "default";

/// The cases named, in the order named, each once: case names, series names (every case of the
/// series), kDefaultSelection (every case of the default set) and kThreadsStep (sets `threads`).
struct Selection {
  std::vector<CaseSpec> cases;
  bool threads = false;
};

/// Resolves `names` against `catalogue`. Throws std::invalid_argument naming an unknown name.
Selection select_cases(const std::vector<CaseSpec>& catalogue,
                       const std::vector<std::string>& names);

/// Reads (or generates) the case's matrix and topology. Throws io::InputError or
/// std::runtime_error naming what is missing or wrong (e.g. a data file that does not exist).
/// With `unit_costs`, every link of the topology costs 1 and the topology is given to the tools
/// as that tleaf, so that both optimise hop-bytes.
LoadedCase load_case(const CaseSpec& spec, const std::string& data_dir, std::uint64_t seed,
                     bool unit_costs = false);

/// The boxes of the nested block mapping on the stencil machines (group:N group:16 pack:2 core:4):
/// 4 x 4 x 8 cells per switch of 16 nodes, 2 x 2 x 2 per node, 2 x 2 x 1 per package, one cell per
/// core.
std::vector<CellBox> stencil_machine_boxes();

/// The nested block mapping of a stencil case (nested_block_mapping with the run's seed), its
/// optimum, when the grid tiles into stencil_machine_boxes() and the topology is the balanced
/// tree (no holes) of exactly those arities; nullopt for any other case.
std::optional<Mapping> nested_block_optimum(const CaseSpec& spec, const Topology& topology,
                                            std::uint64_t seed);

}  // namespace treematch::bench
