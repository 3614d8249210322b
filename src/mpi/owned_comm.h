// A communicator that frees itself.
#pragma once

#include <mpi.h>

namespace treematch::distributed {

/// A communicator freed on destruction (an MPI call fills it through out()).
class OwnedComm {
 public:
  OwnedComm() = default;
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);  // not checked: destructors do not throw
  }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  MPI_Comm* out() { return &comm_; }
  [[nodiscard]] MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace treematch::distributed
