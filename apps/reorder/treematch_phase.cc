// The C API of phase monitoring over the C++ Phase: exceptions become MPI error classes.
#include "apps/reorder/treematch_phase.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/reorder/phase_monitor.h"
#include "apps/reorder/reorder_c_guard.h"
#include "io/phase_file.h"
#include "io/topology_reader.h"
#include "src/mpi/mpi_environment.h"

using treematch::distributed::agree_on_problem;
using treematch::distributed::guarded;
using treematch::distributed::guarded_call;
using treematch::distributed::Phase;

struct treematch_phase_s {
  explicit treematch_phase_s(MPI_Comm comm) : phase(comm) {}
  Phase phase;
};

namespace {

/// The matrix of one metric of a stopped phase, on rank 0 (n rows, columns sorted).
treematch::kernels::Csr phase_matrix(const Phase& phase, bool messages) {
  std::vector<treematch::Triplet> entries = phase.gather(messages);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  treematch::kernels::Csr csr;
  csr.n = static_cast<treematch::Index>(phase.bytes().size());
  std::size_t next = 0;
  for (treematch::Index row = 0; row < csr.n; ++row) {
    for (; next < entries.size() && entries[next].row == row; ++next) {
      csr.targets.push_back(entries[next].col);
      csr.weights.push_back(entries[next].weight);
    }
    csr.offsets.push_back(static_cast<treematch::Offset>(csr.targets.size()));
  }
  return csr;
}

/// The stopped phase behind a handle, or the same ReorderError on every rank.
const Phase& stopped_phase(treematch_phase phase) {
  agree_on_problem(phase->phase.comm(), phase->phase.stopped() ? "" : "the phase is not stopped");
  return phase->phase;
}

/// A NULL handle given to `function`: one line, MPI_ERR_ARG.
int null_phase(const char* function) {
  std::cerr << function << ": NULL phase\n";
  return MPI_ERR_ARG;
}

}  // namespace

extern "C" int treematch_phase_start(MPI_Comm comm, treematch_phase* phase) {
  if (phase != nullptr) *phase = nullptr;
  return guarded_call("treematch_phase_start", comm, [&] {
    agree_on_problem(comm, phase == nullptr ? "the `phase` argument is NULL" : "");
    *phase = std::make_unique<treematch_phase_s>(comm).release();
  });
}

extern "C" int treematch_phase_stop(treematch_phase phase) {
  if (phase == nullptr) return null_phase("treematch_phase_stop");
  if (phase->phase.stopped()) {
    std::cerr << "treematch_phase_stop: already stopped\n";
    return MPI_ERR_ARG;
  }
  return guarded_call("treematch_phase_stop", phase->phase.comm(), [&] { phase->phase.stop(); });
}

extern "C" int treematch_phase_source(treematch_phase phase) {
  return phase == nullptr ? 0 : static_cast<int>(phase->phase.source());
}

extern "C" int treematch_phase_row(treematch_phase phase, unsigned long long bytes[],
                                   unsigned long long messages[]) {
  if (phase == nullptr) return null_phase("treematch_phase_row");
  if (!phase->phase.stopped()) {
    std::cerr << "treematch_phase_row: not stopped\n";
    return MPI_ERR_ARG;
  }
  const Phase& p = phase->phase;
  if (bytes != nullptr) std::copy(p.bytes().begin(), p.bytes().end(), bytes);
  if (messages != nullptr) std::copy(p.messages().begin(), p.messages().end(), messages);
  return MPI_SUCCESS;
}

extern "C" int treematch_phase_write(treematch_phase phase, const char* path, const char* name) {
  if (phase == nullptr) return null_phase("treematch_phase_write");
  const MPI_Comm comm = phase->phase.comm();
  return guarded_call("treematch_phase_write", comm, [&] {
    const Phase& p = stopped_phase(phase);
    treematch::io::PhaseMatrices matrices;
    matrices.bytes = phase_matrix(p, false);
    matrices.messages = phase_matrix(p, true);
    std::string problem;
    if (treematch::distributed::rank_of(comm) == 0) {
      try {
        if (path == nullptr || *path == '\0') throw std::invalid_argument("no file name");
        matrices.name = name != nullptr ? name : "";
        matrices.source = treematch::distributed::to_string(p.source());
        treematch::io::add_phase(path, matrices);
      } catch (const std::exception& error) {
        problem = error.what();
      }
    }
    agree_on_problem(comm, problem, MPI_ERR_IO);
  });
}

extern "C" int treematch_phase_reorder(treematch_phase phase, const char* metric,
                                       const char* topology, MPI_Comm* reordered) {
  if (reordered != nullptr) *reordered = MPI_COMM_NULL;
  if (phase == nullptr) return null_phase("treematch_phase_reorder");
  const MPI_Comm comm = phase->phase.comm();
  return guarded("treematch_phase_reorder", comm, reordered, [&] {
    const Phase& p = stopped_phase(phase);
    const std::string chosen = metric != nullptr ? metric : "size";
    treematch::distributed::ReorderOptions options;
    std::string problem;
    if (chosen != "size" && chosen != "msg") {
      problem = "metric \"" + chosen + "\": size or msg";
    } else if (topology != nullptr) {
      try {
        options.topology = treematch::io::read_topology(topology);
      } catch (const std::exception& error) {
        problem = std::string("topology: ") + error.what();
      }
    }
    agree_on_problem(comm, problem);
    std::vector<treematch::Triplet> entries = p.gather(chosen == "msg");
    treematch::CommGraph graph;
    if (treematch::distributed::rank_of(comm) == 0)
      graph = treematch::CommGraph::from_triplets(static_cast<treematch::Index>(p.bytes().size()),
                                                  std::move(entries));
    return treematch::distributed::reorder_graph(comm, graph, options);
  });
}

extern "C" int treematch_phase_free(treematch_phase* phase) {
  if (phase == nullptr) return MPI_ERR_ARG;
  delete *phase;
  *phase = nullptr;
  return MPI_SUCCESS;
}
