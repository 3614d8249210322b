// Typed wrappers over the MPI collectives the distributed mapping uses, every call checked.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "src/mpi/mpi_environment.h"
#include "src/mpi/mpi_traffic.h"

namespace treematch::distributed {

/// An MPI datatype of sizeof(T) bytes (trivially copyable T), freed on destruction.
template <typename T>
class BytesType {
 public:
  BytesType() {
    check_mpi(MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &type_),
              "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~BytesType() { static_cast<void>(MPI_Type_free(&type_)); }
  BytesType(const BytesType&) = delete;
  BytesType& operator=(const BytesType&) = delete;
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// An element count as MPI's int; throws MpiError past 2^31 - 1 elements.
inline int mpi_count(std::size_t count, const char* call) {
  if (count > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw MpiError(std::string(call) + ": " + std::to_string(count) +
                   " elements exceed MPI's int count in one message");
  }
  return static_cast<int>(count);
}

/// Every rank's element count of a gather and where its block starts, the same on every rank
/// (the counts are all-gathered), so that a total past MPI's int count throws on every rank alike.
struct GatherLayout {
  int count = 0;  ///< this rank's
  std::vector<int> counts;
  std::vector<int> displs;
  std::size_t total = 0;
};
inline GatherLayout gather_layout(MPI_Comm comm, std::size_t mine, const char* call) {
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  GatherLayout layout;
  layout.count = mpi_count(mine, call);
  layout.counts.resize(static_cast<std::size_t>(ranks));
  {
    const CountedCall counted(sizeof(int) * static_cast<std::size_t>(ranks - 1));
    check_mpi(MPI_Allgather(&layout.count, 1, MPI_INT, layout.counts.data(), 1, MPI_INT, comm),
              "MPI_Allgather");
  }
  layout.displs.assign(layout.counts.size(), 0);
  for (std::size_t r = 0; r < layout.counts.size(); ++r) {
    layout.displs[r] = mpi_count(layout.total, call);
    layout.total += static_cast<std::size_t>(layout.counts[r]);
  }
  mpi_count(layout.total, call);
  return layout;
}

/// Every rank's `mine`, concatenated in rank order, on every rank.
template <typename T>
std::vector<T> all_gather(MPI_Comm comm, std::span<const T> mine) {
  const GatherLayout layout = gather_layout(comm, mine.size(), "MPI_Allgatherv");
  std::vector<T> all(layout.total);
  const BytesType<T> type;
  const CountedCall counted(mine.size_bytes() * static_cast<std::size_t>(size_of(comm) - 1));
  check_mpi(MPI_Allgatherv(mine.data(), layout.count, type.get(), all.data(), layout.counts.data(),
                           layout.displs.data(), type.get(), comm),
            "MPI_Allgatherv");
  return all;
}

/// Every rank's `mine`, concatenated in rank order, on rank `root`; empty on the others.
template <typename T>
std::vector<T> gather_to_root(MPI_Comm comm, int root, std::span<const T> mine) {
  const GatherLayout layout = gather_layout(comm, mine.size(), "MPI_Gatherv");
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::vector<T> all(rank == root ? layout.total : 0);
  const BytesType<T> type;
  const CountedCall counted(rank == root ? 0 : mine.size_bytes());
  check_mpi(MPI_Gatherv(mine.data(), layout.count, type.get(), all.data(), layout.counts.data(),
                        layout.displs.data(), type.get(), root, comm),
            "MPI_Gatherv");
  return all;
}

/// Sends send[displs[r], displs[r] + send_counts[r]) to rank r, the pieces lying in rank order
/// one after the other; appends what each rank sent here, in rank order, to `into` (no new
/// allocation when `into` has the capacity). `received_counts`, when given, gets how many
/// elements came from each rank.
template <typename T>
void all_to_all_append(MPI_Comm comm, std::span<const T> send, std::span<const int> send_counts,
                       std::vector<T>& into, std::vector<int>* received_counts = nullptr) {
  const std::size_t ranks = send_counts.size();
  std::vector<int> send_displs(ranks);
  std::size_t sent = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    send_displs[r] = mpi_count(sent, "MPI_Alltoallv");
    sent += static_cast<std::size_t>(send_counts[r]);
  }
  std::vector<int> receive_counts(ranks);
  const int rank = rank_of(comm);
  {
    const CountedCall counted(sizeof(int) * (ranks - 1));
    check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm),
              "MPI_Alltoall");
  }
  std::vector<int> receive_displs(ranks);
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    receive_displs[r] = mpi_count(total, "MPI_Alltoallv");
    total += static_cast<std::size_t>(receive_counts[r]);
  }
  const std::size_t start = into.size();
  into.resize(start + total);
  const BytesType<T> type;
  const CountedCall counted(
      sizeof(T) * (sent - static_cast<std::size_t>(send_counts[static_cast<std::size_t>(rank)])));
  check_mpi(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(),
                          into.data() + start, receive_counts.data(), receive_displs.data(),
                          type.get(), comm),
            "MPI_Alltoallv");
  if (received_counts != nullptr) *received_counts = std::move(receive_counts);
}

/// Sends outgoing[r] to rank r; returns what each rank sent here, concatenated in rank order.
/// `received_counts`, when given, gets how many elements came from each rank.
template <typename T>
std::vector<T> all_to_all(MPI_Comm comm, const std::vector<std::vector<T>>& outgoing,
                          std::vector<int>* received_counts = nullptr) {
  std::vector<int> send_counts(outgoing.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < outgoing.size(); ++r) {
    send_counts[r] = mpi_count(outgoing[r].size(), "MPI_Alltoallv");
    total += outgoing[r].size();
  }
  std::vector<T> send;
  send.reserve(total);  // exact: no growth by doubling on large exchanges
  for (const std::vector<T>& piece : outgoing) send.insert(send.end(), piece.begin(), piece.end());
  std::vector<T> received;
  all_to_all_append<T>(comm, send, send_counts, received, received_counts);
  return received;
}

/// Element-wise sum over ranks, in place, in messages of at most 2^28 values.
inline void sum_in_place(MPI_Comm comm, std::span<double> values) {
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  for (std::size_t at = 0; at < values.size(); at += kPiece) {
    const std::size_t count = std::min(kPiece, values.size() - at);
    const CountedCall counted(sizeof(double) * count);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data() + at, static_cast<int>(count), MPI_DOUBLE,
                            MPI_SUM, comm),
              "MPI_Allreduce");
  }
}

}  // namespace treematch::distributed
