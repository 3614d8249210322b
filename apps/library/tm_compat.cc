// TreeMatch 1.x's tm_* API over this library's mapper (see treematch_tm.h): tm_topology_t to and
// from Topology, the affinity matrix to a CommGraph, the mapping to sigma and k.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "apps/library/c_boundary.h"
#include "apps/library/treematch.h"
#include "io/topology_reader.h"
#include "src/driver/treematch.h"
#include "src/model/comm_graph.h"
#include "src/model/context.h"

namespace {

using treematch::Index;
using treematch::library::ArgumentError;
using treematch::library::guarded;

/// What tm_build_tree_from_topology returns: the tree TreeMatch callers hold, then the mapping
/// (standard layout, so the tree's address is the carrier's).
struct MappingCarrier {
  tm_tree_t tree;
  Index* leaf_of_process;  ///< positions among the topology's leaves; malloc'ed
};

/// `count` zeroed T from calloc (what tm_free_* and the callers release with free()).
template <class T>
T* allocate(std::size_t count) {
  void* memory = std::calloc(count > 0 ? count : 1, sizeof(T));
  if (memory == nullptr) throw std::bad_alloc();
  return static_cast<T*>(memory);
}

/// Runs `body` for a tm_* function that returns a pointer: NULL and one line on stderr when it
/// throws.
template <class T, class Body>
T* or_null(const char* function, Body&& body) noexcept {
  T* made = nullptr;
  if (guarded(function, [&] { made = body(); }) != TREEMATCH_OK) {
    std::fprintf(stderr, "treematch: %s\n", treematch_last_error());
    return nullptr;
  }
  return made;
}

/// The leaves' ids (node_id of the last level), checked.
std::vector<Index> leaf_ids(const tm_topology_t& t, std::size_t leaves) {
  const int last = t.nb_levels - 1;
  if (t.node_id == nullptr || t.node_id[last] == nullptr) throw ArgumentError("node_id is NULL");
  return {t.node_id[last], t.node_id[last] + leaves};
}

/// The levels below the root of a TreeMatch tree of `nb_levels` levels (the last one, the
/// leaves, has arity 0), with `cost` as link costs (NULL: 1), and its number of leaves.
std::vector<treematch::TreeLevel> tree_levels(const int* arity, const double* cost, int nb_levels,
                                              std::size_t& leaves) {
  if (arity == nullptr || nb_levels < 1) throw ArgumentError("no levels");
  std::vector<treematch::TreeLevel> levels;
  leaves = 1;
  for (int l = 0; l + 1 < nb_levels; ++l) {
    if (arity[l] < 1 || leaves * static_cast<std::size_t>(arity[l]) >
                            static_cast<std::size_t>(treematch::kMaxLeaves)) {
      throw ArgumentError("arity[" + std::to_string(l) + "] = " + std::to_string(arity[l]) +
                          " (below 1, or more than 2^26 leaves)");
    }
    leaves *= static_cast<std::size_t>(arity[l]);
    levels.push_back({arity[l], cost != nullptr ? cost[l] : 1.0, "level " + std::to_string(l + 1)});
  }
  return levels;
}

/// The tree of `t` as a Topology: leaf position j is the j-th node of the last level. Its link
/// costs are left out: the mapping minimises hop-bytes (treematch_tm.h).
treematch::Topology topology_of(const tm_topology_t* t) {
  if (t == nullptr) throw ArgumentError("topology is NULL");
  std::size_t leaves = 0;
  std::vector<treematch::TreeLevel> levels = tree_levels(t->arity, nullptr, t->nb_levels, leaves);
  if (t->nb_nodes != nullptr && t->nb_nodes[t->nb_levels - 1] != leaves) {
    throw ArgumentError("nb_nodes of the last level is " +
                        std::to_string(t->nb_nodes[t->nb_levels - 1]) + ", the arities give " +
                        std::to_string(leaves));
  }
  return {std::move(levels), leaf_ids(*t, leaves)};
}

/// The positions of the constraints' leaves, in the constraints' order (empty: none).
std::vector<Index> constraint_positions(const tm_topology_t& t,
                                        const treematch::Topology& topology) {
  std::vector<Index> positions;
  if (t.constraints == nullptr || t.nb_constraints <= 0) return positions;
  for (int c = 0; c < t.nb_constraints; ++c) {
    const Index position = topology.leaf_of_os_index(t.constraints[c]);
    if (position < 0) {
      throw ArgumentError("constraint " + std::to_string(t.constraints[c]) + " is no leaf id");
    }
    positions.push_back(position);
  }
  return positions;
}

/// The leaves processes may use, as sorted positions (empty = all).
std::vector<Index> allowed_positions(const tm_topology_t& t, const treematch::Topology& topology) {
  std::vector<Index> allowed = constraint_positions(t, topology);
  std::sort(allowed.begin(), allowed.end());
  allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
  if (allowed.size() == static_cast<std::size_t>(topology.leaf_count())) allowed.clear();
  return allowed;
}

treematch::CommGraph graph_of(const tm_affinity_mat_t* aff) {
  if (aff == nullptr || aff->mat == nullptr || aff->order < 0) throw ArgumentError("no matrix");
  std::vector<treematch::Triplet> triplets;
  for (Index i = 0; i < aff->order; ++i) {
    for (Index j = 0; j < aff->order; ++j) {
      const double w = aff->mat[i][j];
      if (!std::isfinite(w) || w < 0.0) {
        throw ArgumentError("mat[" + std::to_string(i) + "][" + std::to_string(j) +
                            "] is not a finite value >= 0");
      }
      if (w > 0.0 && i != j) triplets.push_back({i, j, w});
    }
  }
  return treematch::CommGraph::from_triplets(aff->order, std::move(triplets));
}

/// A tm_topology_t (malloc'ed, as tm_free_topology frees it) of `topology`.
tm_topology_t* tm_topology_of(const treematch::Topology& topology) {
  if (topology.has_holes()) {
    throw ArgumentError("an unbalanced machine (some cores missing) has no tm_topology_t form");
  }
  const int levels = topology.depth() + 1;
  auto* t = allocate<tm_topology_t>(1);
  t->nb_levels = levels;
  t->arity = allocate<int>(static_cast<std::size_t>(levels));
  t->nb_nodes = allocate<size_t>(static_cast<std::size_t>(levels));
  t->node_id = allocate<int*>(static_cast<std::size_t>(levels));
  t->node_rank = allocate<int*>(static_cast<std::size_t>(levels));
  t->cost = allocate<double>(static_cast<std::size_t>(levels));
  std::size_t nodes = 1;
  for (int l = 0; l < levels; ++l) {
    const bool leaf_level = l == levels - 1;
    t->arity[l] = leaf_level ? 0 : topology.levels()[static_cast<std::size_t>(l)].arity;
    t->cost[l] = leaf_level ? 0.0 : topology.levels()[static_cast<std::size_t>(l)].link_cost;
    t->nb_nodes[l] = nodes;
    t->node_id[l] = allocate<int>(nodes);
    t->node_rank[l] = allocate<int>(nodes);
    for (std::size_t j = 0; j < nodes; ++j) {
      const int id = leaf_level ? topology.os_index(static_cast<Index>(j)) : static_cast<int>(j);
      t->node_id[l][j] = id;
      if (static_cast<std::size_t>(id) < nodes) t->node_rank[l][id] = static_cast<int>(j);
    }
    if (!leaf_level) nodes *= static_cast<std::size_t>(t->arity[l]);
  }
  t->nb_proc_units = static_cast<int>(topology.leaf_count());
  t->oversub_fact = 1;
  return t;
}

}  // namespace

extern "C" tm_topology_t* tm_load_topology(char* arch_filename, tm_file_type_t /*type*/) {
  return or_null<tm_topology_t>("tm_load_topology", [&] {
    if (arch_filename == nullptr) throw ArgumentError("no file name");
    return tm_topology_of(treematch::io::read_topology(arch_filename));
  });
}

extern "C" tm_topology_t* tm_build_synthetic_topology(int* arity, double* cost, int nb_levels,
                                                      int* core_numbering, int nb_core_per_nodes) {
  return or_null<tm_topology_t>("tm_build_synthetic_topology", [&] {
    if (core_numbering == nullptr || nb_core_per_nodes < 1) throw ArgumentError("no numbering");
    std::size_t leaves = 0;
    std::vector<treematch::TreeLevel> levels = tree_levels(arity, cost, nb_levels, leaves);
    // TreeMatch's numbering: core_numbering repeated by blocks, each block shifted by its size.
    std::vector<Index> ids(leaves);
    for (std::size_t j = 0; j < leaves; ++j) {
      const std::size_t block = j / static_cast<std::size_t>(nb_core_per_nodes);
      ids[j] = static_cast<Index>(block * static_cast<std::size_t>(nb_core_per_nodes)) +
               core_numbering[j % static_cast<std::size_t>(nb_core_per_nodes)];
    }
    return tm_topology_of(treematch::Topology(std::move(levels), std::move(ids)));
  });
}

extern "C" tm_affinity_mat_t* tm_build_affinity_mat(double** mat, int order) {
  return or_null<tm_affinity_mat_t>("tm_build_affinity_mat", [&] {
    if (mat == nullptr || order < 0) throw ArgumentError("no matrix");
    auto* aff = allocate<tm_affinity_mat_t>(1);
    aff->mat = mat;
    aff->order = order;
    aff->sum_row = static_cast<double*>(
        std::calloc(static_cast<std::size_t>(order > 0 ? order : 1), sizeof(double)));
    if (aff->sum_row == nullptr) {
      std::free(aff);
      throw std::bad_alloc();
    }
    for (int i = 0; i < order; ++i) {
      for (int j = 0; j < order; ++j) {
        aff->sum_row[i] += mat[i][j];
        if (mat[i][j] != 0.0) ++aff->nnz;
      }
    }
    return aff;
  });
}

extern "C" int tm_topology_set_binding_constraints(int* constraints, int nb_constraints,
                                                   tm_topology_t* topology) {
  int* copy = nullptr;
  const int status = guarded("tm_topology_set_binding_constraints", [&] {
    if (topology == nullptr || nb_constraints < 0 || (nb_constraints > 0 && constraints == nullptr))
      throw ArgumentError("no topology or constraints");
    const treematch::Topology tree = topology_of(topology);
    for (int c = 0; c < nb_constraints; ++c) {
      if (tree.leaf_of_os_index(constraints[c]) < 0)
        throw ArgumentError("constraint " + std::to_string(constraints[c]) + " is no leaf id");
    }
    copy = allocate<int>(static_cast<std::size_t>(nb_constraints));
    std::copy_n(constraints, nb_constraints, copy);
  });
  if (status != TREEMATCH_OK) {
    std::fprintf(stderr, "treematch: %s\n", treematch_last_error());
    return 0;
  }
  std::free(topology->constraints);
  topology->constraints = copy;
  topology->nb_constraints = nb_constraints;
  return 1;
}

extern "C" void tm_enable_oversubscribing(tm_topology_t* topology, unsigned int oversub_fact) {
  if (topology != nullptr && oversub_fact >= 1)
    topology->oversub_fact = static_cast<int>(oversub_fact);
}

extern "C" void tm_optimize_topology(tm_topology_t** /*topology*/) {}

extern "C" tm_tree_t* tm_build_tree_from_topology(tm_topology_t* topology,
                                                  tm_affinity_mat_t* aff_mat,
                                                  double* /*obj_weight*/, double* /*com_speed*/) {
  return or_null<tm_tree_t>("tm_build_tree_from_topology", [&] {
    const treematch::Topology tree = topology_of(topology);
    treematch::Context ctx = treematch::preset_context(treematch::Preset::kDefault);
    ctx.placement.oversubscribe = std::max(topology->oversub_fact, 1);
    ctx.placement.allowed_leaves = allowed_positions(*topology, tree);
    const treematch::CommGraph graph = graph_of(aff_mat);
    const std::vector<Index> leaves =
        aff_mat->order == 0 ? std::vector<Index>{}
                            : treematch::treematch_map(graph, tree, ctx).mapping.leaf_of_rank;
    auto* carrier = allocate<MappingCarrier>(1);
    carrier->leaf_of_process =
        static_cast<Index*>(std::malloc(sizeof(Index) * (leaves.empty() ? 1 : leaves.size())));
    if (carrier->leaf_of_process == nullptr) {
      std::free(carrier);
      throw std::bad_alloc();
    }
    std::copy(leaves.begin(), leaves.end(), carrier->leaf_of_process);
    carrier->tree.nb_processes = aff_mat->order;
    carrier->tree.constraint = topology->nb_constraints > 0 ? 1 : 0;
    return &carrier->tree;
  });
}

extern "C" tm_solution_t* tm_compute_mapping(tm_topology_t* topology, tm_tree_t* comm_tree) {
  return or_null<tm_solution_t>("tm_compute_mapping", [&] {
    if (comm_tree == nullptr) throw ArgumentError("no tree");
    const treematch::Topology tree = topology_of(topology);
    const auto* carrier = reinterpret_cast<const MappingCarrier*>(comm_tree);
    const int processes = comm_tree->nb_processes;
    const int per_leaf = std::max(topology->oversub_fact, 1);
    // The processes on each leaf position, in process order.
    std::vector<std::vector<int>> on_leaf(static_cast<std::size_t>(tree.leaf_count()));
    for (int i = 0; i < processes; ++i) {
      const Index leaf = carrier->leaf_of_process[i];
      if (leaf >= tree.leaf_count()) throw ArgumentError("the tree was built on another topology");
      on_leaf[static_cast<std::size_t>(leaf)].push_back(i);
    }
    // k's entries: the constraints in their order, or every leaf by its id.
    std::vector<Index> positions = constraint_positions(*topology, tree);
    if (positions.empty()) {
      positions.assign(static_cast<std::size_t>(tree.leaf_count()), -1);
      for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
        const Index id = tree.os_index(leaf);
        if (id >= tree.leaf_count()) {
          throw ArgumentError("leaf id " + std::to_string(id) +
                              " is not below the number of leaves: k cannot be indexed by id");
        }
        positions[static_cast<std::size_t>(id)] = leaf;
      }
    }
    auto* sol = allocate<tm_solution_t>(1);
    sol->oversub_fact = per_leaf;
    sol->sigma_length = static_cast<std::size_t>(processes);
    sol->k_length = positions.size();
    sol->sigma = static_cast<int*>(std::calloc(sol->sigma_length + 1, sizeof(int)));
    sol->k = static_cast<int**>(std::calloc(sol->k_length + 1, sizeof(int*)));
    bool complete = sol->sigma != nullptr && sol->k != nullptr;
    for (std::size_t c = 0; complete && c < positions.size(); ++c) {
      sol->k[c] = static_cast<int*>(std::malloc(sizeof(int) * static_cast<std::size_t>(per_leaf)));
      complete = sol->k[c] != nullptr;
      if (!complete) break;
      std::fill_n(sol->k[c], per_leaf, -1);
      const std::vector<int>& here = on_leaf[static_cast<std::size_t>(positions[c])];
      std::copy_n(here.begin(),
                  std::min<std::size_t>(here.size(), static_cast<std::size_t>(per_leaf)),
                  sol->k[c]);
    }
    if (!complete) {
      tm_free_solution(sol);
      throw std::bad_alloc();
    }
    for (int i = 0; i < processes; ++i) sol->sigma[i] = tree.os_index(carrier->leaf_of_process[i]);
    return sol;
  });
}

extern "C" void tm_free_topology(tm_topology_t* topology) {
  if (topology == nullptr) return;
  for (int l = 0; l < topology->nb_levels; ++l) {
    if (topology->node_id != nullptr) std::free(topology->node_id[l]);
    if (topology->node_rank != nullptr) std::free(topology->node_rank[l]);
  }
  std::free(topology->node_id);
  std::free(topology->node_rank);
  std::free(topology->arity);
  std::free(topology->nb_nodes);
  std::free(topology->cost);
  std::free(topology->constraints);
  std::free(topology);  // free_nodes and nb_free_nodes are not ours (Open MPI leaves them unset)
}

extern "C" void tm_free_tree(tm_tree_t* comm_tree) {
  if (comm_tree == nullptr) return;
  auto* carrier = reinterpret_cast<MappingCarrier*>(comm_tree);
  std::free(carrier->leaf_of_process);
  std::free(carrier);
}

extern "C" void tm_free_solution(tm_solution_t* sol) {
  if (sol == nullptr) return;
  if (sol->k != nullptr) {
    for (std::size_t c = 0; c < sol->k_length; ++c) std::free(sol->k[c]);
  }
  std::free(sol->k);
  std::free(sol->sigma);
  std::free(sol);
}

extern "C" void tm_free_affinity_mat(tm_affinity_mat_t* aff_mat) {
  if (aff_mat == nullptr) return;
  std::free(aff_mat->sum_row);
  std::free(aff_mat);
}

namespace {
unsigned int g_verbose_level = 0;  // kept for tm_get_verbose_level only
}  // namespace

extern "C" void tm_set_verbose_level(unsigned int level) {
  g_verbose_level = level;
}
extern "C" unsigned int tm_get_verbose_level(void) {
  return g_verbose_level;
}
extern "C" void tm_finalize(void) {}
