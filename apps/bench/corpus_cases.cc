// The instances of the quality corpus and the machine trees they are mapped onto.
#include "apps/bench/corpus_cases.h"

#include <string>
#include <utility>

#include <fmt/format.h>

namespace treematch::bench {
namespace {

/// How a tree's levels cost: the distance between two cores whose common ancestor is a level.
enum class Distances {
  kDecades,  ///< 1, 10, 100, 1000 from the cores up
  kHops,     ///< 1, 2, 3, 4 from the cores up
};

/// The tleaf of `arities` (from the root down) with `distances`.
std::string tree(std::initializer_list<int> arities, Distances distances) {
  // The root's level costs most: level L of L (hops), or 10^(L - 1) (decades).
  int hops = static_cast<int>(arities.size());
  int decade = 1;
  for (int i = 1; i < hops; ++i) decade *= 10;
  std::string text = fmt::format("tleaf {}", arities.size());
  for (const int arity : arities) {
    text += fmt::format(" {} {}", arity, distances == Distances::kHops ? hops : decade);
    --hops;
    decade /= 10;
  }
  return text;
}

/// What a geometric family draws, before its size is set.
struct Family {
  const char* name;
  const char* what;
  GeometricPatternSpec spec;
};

Family family(const char* name, const char* what, int dimensions, PointLayout layout,
              NeighbourRule neighbours, double degree, int hotspots, double exponent = 0.0) {
  Family f{name, what, {}};
  f.spec.dimensions = dimensions;
  f.spec.layout = layout;
  f.spec.neighbours = neighbours;
  f.spec.degree = degree;
  f.spec.hotspots = hotspots;
  f.spec.degree_exponent = exponent;
  return f;
}

CaseSpec geometric_instance(const Family& f, Index ranks, std::string topology,
                            const char* tree_name, bool quick) {
  CaseSpec spec;
  spec.name = fmt::format("{}-{}{}", f.name, ranks, tree_name);
  spec.in_default = false;
  spec.in_corpus = true;
  spec.in_corpus_quick = quick;
  spec.matrix_source = MatrixSource::kGeometric;
  spec.geometric = f.spec;
  spec.geometric.ranks = ranks;
  // Enough points per part for ragged boundaries, within a few seconds to draw.
  spec.geometric.points = ranks * (ranks > 16384 ? 24 : 48);
  spec.matrix_file = MatrixFile::kHdf5Csr;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.description = fmt::format("{} parts of {} ({} points), ranks shuffled", ranks, f.what,
                                 spec.geometric.points);
  return spec;
}

CaseSpec stencil_instance(Index nx, Index ny, Index nz, bool shuffled, std::string topology,
                          const char* tree_name, bool quick) {
  CaseSpec spec;
  spec.name = fmt::format("stencil-{}x{}x{}-{}{}", nx, ny, nz, shuffled ? "shuffled" : "natural",
                          tree_name);
  spec.in_default = false;
  spec.in_corpus = true;
  spec.in_corpus_quick = quick;
  spec.matrix_source = MatrixSource::kStencil;
  spec.stencil.nx = nx;
  spec.stencil.ny = ny;
  spec.stencil.nz = nz;
  spec.stencil.shuffled = shuffled;
  spec.matrix_file = MatrixFile::kHdf5Csr;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.description = fmt::format("27-point stencil {}x{}x{} (face 1000, edge 100, corner 10), {}",
                                 nx, ny, nz, shuffled ? "ranks shuffled" : "ranks in grid order");
  return spec;
}

CaseSpec file_instance(std::string name, std::string matrix, std::string topology,
                       std::string description, bool quick) {
  CaseSpec spec;
  spec.name = std::move(name);
  spec.in_default = false;
  spec.in_corpus = true;
  spec.in_corpus_quick = quick;
  spec.matrix = std::move(matrix);
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.description = std::move(description);
  return spec;
}

CaseSpec hierarchical_instance(std::string topology, const char* tree_name, Index ranks,
                               bool quick) {
  CaseSpec spec;
  spec.name = fmt::format("hierarchical-{}{}", ranks, tree_name);
  spec.in_default = false;
  spec.in_corpus = true;
  spec.in_corpus_quick = quick;
  spec.matrix_source = MatrixSource::kHierarchical;
  spec.noise = 0.1;
  spec.matrix_file = MatrixFile::kHdf5Dense;
  spec.topology_source = TopologySource::kInline;
  spec.topology = std::move(topology);
  spec.description =
      "dense 10^(depth - h) x (1 + 0.1 u) between ranks whose slots meet h levels up, slots "
      "shuffled";
  return spec;
}

/// `spec` on a restricted machine: the last `reserved` cores of every package kept from the job
/// (Slurm's --core-spec), named with "-corespec".
CaseSpec with_reserved_cores(CaseSpec spec, Index reserved) {
  spec.name += "-corespec";
  spec.reserved_per_package = reserved;
  spec.description += fmt::format(", {} core{} of every package reserved (treematch --cores)",
                                  reserved, reserved == 1 ? "" : "s");
  return spec;
}

}  // namespace

std::vector<CaseSpec> corpus_cases() {
  using enum Distances;
  using enum PointLayout;
  using enum NeighbourRule;
  // Machines: T256 = 8 nodes x 2 sockets x 16 cores; T512 = 4 x 8 x 2 x 8; T1024 = 4 x 8 x 2 x
  // 16; and 8:16:2:16, 32:16:2:4, 16:16:2:16, ... for the larger ones (switches x nodes x sockets
  // x cores).
  const Family geo2d =
      family("geo2d", "a 2-D random geometric graph (degree 8, 8 hotspots of 20x work)", 2,
             kUniform, kRadius, 8, 8);
  const Family geo3d = family("geo3d", "a 3-D random geometric graph (degree 12, 4 hotspots)", 3,
                              kUniform, kRadius, 12, 4);
  const Family knn2d =
      family("knn2d", "a 2-D 6-nearest-neighbour mesh (8 hotspots)", 2, kUniform, kNearest, 6, 8);
  const Family knn3d =
      family("knn3d", "a 3-D 10-nearest-neighbour mesh (4 hotspots)", 3, kUniform, kNearest, 10, 4);
  const Family roads = family("roads",
                              "a road-like graph: 3 nearest neighbours of points clustered in 24 "
                              "towns (70%) and countryside",
                              2, kClustered, kNearest, 3, 0);
  const Family towns3d = family("towns3d", "a 3-D 8-nearest-neighbour mesh of clustered points", 3,
                                kClustered, kNearest, 8, 4);
  const Family powerlaw = family("powerlaw",
                                 "a 2-D scale-free geometric graph (degree 8, power-law degrees "
                                 "of exponent 2.5)",
                                 2, kUniform, kRadius, 8, 0, 2.5);
  const Family powerlaw3d =
      family("powerlaw3d", "a 3-D scale-free geometric graph (degree 10, exponent 2.2)", 3,
             kUniform, kRadius, 10, 0, 2.2);
  const std::string t256 = tree({8, 2, 16}, kDecades);
  const std::string t256h = tree({8, 2, 16}, kHops);
  const std::string t512 = tree({4, 8, 2, 8}, kDecades);
  const std::string t512h = tree({4, 8, 2, 8}, kHops);
  const std::string t1024 = tree({4, 8, 2, 16}, kDecades);
  const std::string t1024h = tree({4, 8, 2, 16}, kHops);
  const std::string t2048 = tree({8, 8, 2, 16}, kDecades);
  const std::string t4096 = tree({8, 16, 2, 16}, kDecades);
  const std::string t4096h = tree({8, 16, 2, 16}, kHops);
  const std::string t4096u = tree({32, 16, 2, 4}, kDecades);
  const std::string t8192 = tree({16, 16, 2, 16}, kDecades);
  const std::string t8192h = tree({16, 16, 2, 16}, kHops);
  const std::string t16384 = tree({32, 16, 2, 16}, kDecades);
  const std::string t16384h = tree({32, 16, 2, 16}, kHops);
  const std::string t32768 = tree({64, 16, 2, 16}, kDecades);
  const std::string t65536 = tree({128, 16, 2, 16}, kDecades);
  const std::string t65536h = tree({128, 16, 2, 16}, kHops);

  std::vector<CaseSpec> c;
  c.push_back(geometric_instance(geo2d, 256, t256h, "-hops", true));
  c.push_back(geometric_instance(geo2d, 1024, t1024, "", false));
  c.push_back(geometric_instance(geo2d, 3000, t4096, "-partial", false));
  c.push_back(geometric_instance(geo2d, 4096, t4096, "", false));
  c.push_back(geometric_instance(geo2d, 16384, t16384, "", false));
  c.push_back(geometric_instance(geo2d, 65536, t65536, "", false));
  c.push_back(geometric_instance(geo3d, 512, t512, "", true));
  c.push_back(geometric_instance(geo3d, 4096, t4096u, "-uneven", false));
  c.push_back(geometric_instance(geo3d, 16384, t16384h, "-hops", false));
  c.push_back(geometric_instance(knn2d, 256, t256, "", true));
  c.push_back(geometric_instance(knn2d, 2048, t2048, "", false));
  c.push_back(geometric_instance(knn2d, 4096, t4096h, "-hops", false));
  c.push_back(geometric_instance(knn2d, 32768, t32768, "", false));
  c.push_back(geometric_instance(knn3d, 512, t512h, "-hops", true));
  c.push_back(geometric_instance(knn3d, 4096, t4096, "", false));
  c.push_back(geometric_instance(knn3d, 8192, t8192, "", false));
  c.push_back(geometric_instance(knn3d, 65536, t65536, "", false));
  c.push_back(geometric_instance(roads, 256, t256, "", false));
  c.push_back(geometric_instance(roads, 1024, t1024h, "-hops", true));
  c.push_back(geometric_instance(roads, 4096, t4096u, "-uneven", false));
  c.push_back(geometric_instance(roads, 16384, t16384, "", false));
  c.push_back(geometric_instance(roads, 65536, t65536h, "-hops", false));
  c.push_back(geometric_instance(towns3d, 1024, t1024, "", false));
  c.push_back(geometric_instance(towns3d, 8192, t8192h, "-hops", false));
  c.push_back(geometric_instance(powerlaw, 256, t256, "", true));
  c.push_back(geometric_instance(powerlaw, 1024, t1024, "", false));
  c.push_back(geometric_instance(powerlaw, 4096, t4096, "", false));
  c.push_back(geometric_instance(powerlaw, 4096, t4096h, "-hops", false));
  c.push_back(geometric_instance(powerlaw, 16384, t16384, "", false));
  c.push_back(geometric_instance(powerlaw3d, 512, t512, "", true));
  c.push_back(geometric_instance(powerlaw3d, 4096, t4096u, "-uneven", false));
  c.push_back(stencil_instance(8, 8, 4, true, t256, "", true));
  c.push_back(stencil_instance(16, 16, 16, true, t4096, "", false));
  c.push_back(stencil_instance(16, 16, 16, false, t4096, "", false));
  c.push_back(stencil_instance(16, 16, 16, true, t4096h, "-hops", false));
  c.push_back(stencil_instance(32, 32, 16, true, t16384, "", false));
  c.push_back(stencil_instance(32, 32, 32, false, t32768, "", false));
  const std::string pacos = "pacos/examples/taskgraph/";
  c.push_back(file_instance("cloverleaf-1024", pacos + "CloverLeaf1024.APHiD", t1024,
                            "CloverLeaf's measured pattern at 1024 ranks (PACOS)", true));
  c.push_back(file_instance("cloverleaf-960-hops", pacos + "CloverLeaf960.APHiD", t1024h,
                            "CloverLeaf's measured pattern at 960 ranks on 1024 cores (PACOS)",
                            false));
  c.push_back(
      file_instance("pacos512-t512", pacos + "512.mat", t512, "PACOS' 512-rank task graph", true));
  c.push_back(file_instance("cloverleaf-640-partial", pacos + "CloverLeaf640.APHiD", t1024,
                            "CloverLeaf's measured pattern at 640 ranks on 1024 cores (PACOS)",
                            false));
  // Restricted machines (the constrained mapping): every core the job keeps used, and 3000
  // ranks on 3584 of 4096 cores.
  c.push_back(with_reserved_cores(
      file_instance("cloverleaf-960", pacos + "CloverLeaf960.APHiD", t1024,
                    "CloverLeaf's measured pattern at 960 ranks on 1024 cores (PACOS)", true),
      1));
  c.push_back(with_reserved_cores(geometric_instance(geo2d, 3000, t4096, "", false), 2));
  c.push_back(hierarchical_instance(t512, "", 512, false));
  c.push_back(hierarchical_instance(t1024h, "-hops", 1024, false));
  return c;
}

}  // namespace treematch::bench
