// C++ face of the mapping library (libtreematch.so), header only, over the C API of treematch.h:
// RAII for the machine, exceptions for errors, vectors for the matrix and the result.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "treematch.h"

namespace treematch {

/// A call that failed: status() is its treematch_status, what() treematch_last_error().
class Error : public std::runtime_error {
 public:
  Error(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  [[nodiscard]] int status() const noexcept { return status_; }

 private:
  int status_;
};

/// Throws Error unless `status` is TREEMATCH_OK.
inline void check(int status) {
  if (status != TREEMATCH_OK) throw Error(status, treematch_last_error());
}

/// A machine, read as treematch_topology_read reads it.
class Machine {
 public:
  explicit Machine(const std::string& spec) {
    treematch_topology topology = nullptr;
    check(treematch_topology_read(spec.c_str(), &topology));
    handle_.reset(topology);
  }
  [[nodiscard]] long long leaves() const { return treematch_topology_leaves(handle_.get()); }
  [[nodiscard]] treematch_topology handle() const { return handle_.get(); }

 private:
  struct Free {
    void operator()(treematch_topology topology) const { treematch_topology_free(&topology); }
  };
  std::unique_ptr<treematch_topology_s, Free> handle_;
};

/// Where each process goes, and what it costs.
struct Placement {
  std::vector<int> leaf_of_process;
  double hop_bytes = 0.0;
};

/// Maps the CSR matrix (offsets: n + 1 entries; see treematch_map_csr) onto `machine`.
inline Placement map(const Machine& machine, const std::vector<long long>& offsets,
                     const std::vector<int>& targets, const std::vector<double>& weights,
                     const std::string& preset = "default") {
  if (offsets.empty()) throw Error(TREEMATCH_ERR_ARG, "treematch::map: offsets is empty");
  const auto entries = static_cast<std::size_t>(offsets.back() > 0 ? offsets.back() : 0);
  if (targets.size() < entries || weights.size() < entries) {
    throw Error(TREEMATCH_ERR_ARG, "treematch::map: fewer targets or weights than offsets.back()");
  }
  Placement placement;
  placement.leaf_of_process.resize(offsets.size() - 1);
  check(treematch_map_csr(machine.handle(), static_cast<int>(offsets.size() - 1), offsets.data(),
                          targets.data(), weights.data(), preset.c_str(),
                          placement.leaf_of_process.data(), &placement.hop_bytes));
  return placement;
}

}  // namespace treematch
