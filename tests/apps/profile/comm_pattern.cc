// An MPI program with known traffic (comm_pattern.h): run under the profiling library and under
// Open MPI's monitoring by profile_pipeline_test.
//
// comm_pattern [--no-onesided] [--pcontrol-phase] [--pcontrol-levels] [--for-monitoring]
//              [--thread-multiple]
//   --no-onesided     skip the one-sided part
//   --pcontrol-phase  add a ring exchange and an Allreduce between MPI_Pcontrol(0) and
//                     MPI_Pcontrol(1): traffic a profiler must not count
//   --pcontrol-levels the iterations under MPI_Pcontrol(2), the rest under MPI_Pcontrol(3)
//   --for-monitoring  the same point-to-point traffic in the form Open MPI 4.1's monitoring sees
//                     completely: the horizontal halo by MPI_Isend instead of persistent requests
//                     (MPI_Start bypasses the monitoring PML), and no Alltoallv/Alltoallw (their
//                     linear algorithm is recorded as tags >= 0 traffic, like the application's)
//   --thread-multiple MPI_Init_thread(MPI_THREAD_MULTIPLE) (fails if not granted): the profiler's
//                     atomic counters
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "tests/apps/profile/comm_pattern.h"

namespace {

using namespace treematch::testing::pattern;

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "comm_pattern: %s failed (%d)\n", call, rc);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/// While one exists, this thread's allocations are not reported as leaks (LeakSanitizer builds):
/// for what the program leaves unfreed on purpose.
struct DeliberateLeaks {
  DeliberateLeaks() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_disable();
#endif
  }
  ~DeliberateLeaks() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_enable();
#endif
  }
  DeliberateLeaks(const DeliberateLeaks&) = delete;
  DeliberateLeaks& operator=(const DeliberateLeaks&) = delete;
};

struct World {
  int rank = 0;
  int size = 1;
  int cols = 1;
  bool for_monitoring = false;
  [[nodiscard]] int next() const { return (rank + 1) % size; }
  [[nodiscard]] int prev() const { return (rank + size - 1) % size; }
};

/// The horizontal halo by MPI_Isend/MPI_Irecv (what the persistent requests do).
void horizontal_halo_isend(const World& w) {
  const int col = w.rank % w.cols;
  std::vector<double> out(2 * kHaloHorizontalDoubles, w.rank), in(2 * kHaloHorizontalDoubles);
  std::vector<MPI_Request> reqs;
  for (const int side : {-1, 1}) {
    if (col + side < 0 || col + side >= w.cols) continue;
    const std::size_t at = side < 0 ? 0 : kHaloHorizontalDoubles;
    reqs.emplace_back();
    check(MPI_Irecv(in.data() + at, kHaloHorizontalDoubles, MPI_DOUBLE, w.rank + side, 21,
                    MPI_COMM_WORLD, &reqs.back()),
          "MPI_Irecv");
    reqs.emplace_back();
    check(MPI_Isend(out.data() + at, kHaloHorizontalDoubles, MPI_DOUBLE, w.rank + side, 21,
                    MPI_COMM_WORLD, &reqs.back()),
          "MPI_Isend");
  }
  check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
}

void iteration(const World& w, std::vector<MPI_Request>& halo) {
  // Ring.
  std::vector<double> ring_out(kRingDoubles, w.rank), ring_in(kRingDoubles);
  std::array<MPI_Request, 2> ring{};
  check(MPI_Irecv(ring_in.data(), kRingDoubles, MPI_DOUBLE, w.prev(), 10, MPI_COMM_WORLD, &ring[0]),
        "MPI_Irecv");
  check(
      MPI_Isend(ring_out.data(), kRingDoubles, MPI_DOUBLE, w.next(), 10, MPI_COMM_WORLD, &ring[1]),
      "MPI_Isend");
  check(MPI_Waitall(2, ring.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  // Vertical halo.
  std::vector<int> v_out(kHaloVerticalInts, w.rank), v_in(kHaloVerticalInts);
  const int partner = (w.rank + w.cols) % w.size;
  check(MPI_Sendrecv(v_out.data(), kHaloVerticalInts, MPI_INT, partner, 20, v_in.data(),
                     kHaloVerticalInts, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  // Horizontal halo: persistent requests (or Isend for the monitoring).
  if (w.for_monitoring) {
    horizontal_halo_isend(w);
  } else if (!halo.empty()) {
    check(MPI_Startall(static_cast<int>(halo.size()), halo.data()), "MPI_Startall");
    check(MPI_Waitall(static_cast<int>(halo.size()), halo.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
  }
  // Every send mode to the next rank; the receives are posted before the barrier (Rsend).
  std::array<std::vector<int>, 4> modes_in{std::vector<int>(10), std::vector<int>(20),
                                           std::vector<int>(30), std::vector<int>(40)};
  std::array<MPI_Request, 4> modes{};
  for (int k = 0; k < 4; ++k) {
    check(MPI_Irecv(modes_in[k].data(), 10 * (k + 1), MPI_INT, w.prev(), 30 + k, MPI_COMM_WORLD,
                    &modes[k]),
          "MPI_Irecv");
  }
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  std::vector<int> out(40, w.rank);
  check(MPI_Send(out.data(), 10, MPI_INT, w.next(), 30, MPI_COMM_WORLD), "MPI_Send");
  check(MPI_Ssend(out.data(), 20, MPI_INT, w.next(), 31, MPI_COMM_WORLD), "MPI_Ssend");
  check(MPI_Rsend(out.data(), 30, MPI_INT, w.next(), 32, MPI_COMM_WORLD), "MPI_Rsend");
  check(MPI_Bsend(out.data(), 40, MPI_INT, w.next(), 33, MPI_COMM_WORLD), "MPI_Bsend");
  check(MPI_Waitall(4, modes.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  // Sends to MPI_PROC_NULL are no traffic.
  check(MPI_Send(out.data(), 40, MPI_INT, MPI_PROC_NULL, 34, MPI_COMM_WORLD), "MPI_Send");
  // Alltoall and Reduce.
  std::vector<int> a2a_out(static_cast<std::size_t>(kAlltoallInts * w.size), w.rank);
  std::vector<int> a2a_in(a2a_out.size());
  check(MPI_Alltoall(a2a_out.data(), kAlltoallInts, MPI_INT, a2a_in.data(), kAlltoallInts, MPI_INT,
                     MPI_COMM_WORLD),
        "MPI_Alltoall");
  std::vector<double> red_out(kReduceDoubles, 1.0), red_in(kReduceDoubles);
  check(MPI_Reduce(red_out.data(), red_in.data(), kReduceDoubles, MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD),
        "MPI_Reduce");
}

/// Sends with two derived types in turn, the first freed before the second is made (its handle
/// may come back): 3 ints, then 5 doubles, to the next rank.
void derived_types(const World& w) {
  std::vector<char> in(64), out(64, 1);
  for (const auto& [count, base] : {std::pair{3, MPI_INT}, std::pair{5, MPI_DOUBLE}}) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    check(MPI_Type_contiguous(count, base, &type), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type), "MPI_Type_commit");
    int size = 0;
    check(MPI_Type_size(type, &size), "MPI_Type_size");
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Irecv(in.data(), size, MPI_BYTE, w.prev(), 50, MPI_COMM_WORLD, &request),
          "MPI_Irecv");
    check(MPI_Send(out.data(), 1, type, w.next(), 50, MPI_COMM_WORLD), "MPI_Send");
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    check(MPI_Type_free(&type), "MPI_Type_free");
  }
}

void collectives_once(const World& w) {
  const int p = w.size;
  const auto n = static_cast<std::size_t>(p);
  std::vector<double> d(64 * n, 1.0), d2(64 * n);
  std::vector<int> i1(64 * n, 1), i2(64 * n);
  std::vector<int> counts(n), displs(n), rcounts(n), rdispls(n);
  const auto prefix = [](const std::vector<int>& c, std::vector<int>& at) {
    int sum = 0;
    for (std::size_t k = 0; k < c.size(); ++k) {
      at[k] = sum;
      sum += c[k];
    }
  };
  // Sendrecv_replace with r^1.
  check(MPI_Sendrecv_replace(d.data(), 50, MPI_DOUBLE, w.rank ^ 1, 40, w.rank ^ 1, 40,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv_replace");
  check(MPI_Bcast(d.data(), 10, MPI_DOUBLE, 1 % p, MPI_COMM_WORLD), "MPI_Bcast");
  check(MPI_Allreduce(i1.data(), i2.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  check(MPI_Allgather(d.data(), 2, MPI_DOUBLE, d2.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD),
        "MPI_Allgather");
  for (int k = 0; k < p; ++k) counts[k] = k + 1;
  prefix(counts, displs);
  check(MPI_Allgatherv(i1.data(), w.rank + 1, MPI_INT, i2.data(), counts.data(), displs.data(),
                       MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  check(MPI_Gather(i1.data(), 3, MPI_INT, i2.data(), 3, MPI_INT, 2 % p, MPI_COMM_WORLD),
        "MPI_Gather");
  for (int k = 0; k < p; ++k) counts[k] = k + 2;
  prefix(counts, displs);
  check(MPI_Gatherv(i1.data(), w.rank + 2, MPI_INT, i2.data(), counts.data(), displs.data(),
                    MPI_INT, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  check(MPI_Scatter(i1.data(), 5, MPI_INT, i2.data(), 5, MPI_INT, 3 % p, MPI_COMM_WORLD),
        "MPI_Scatter");
  for (int k = 0; k < p; ++k) counts[k] = k + 1;
  prefix(counts, displs);
  check(MPI_Scatterv(d.data(), counts.data(), displs.data(), MPI_DOUBLE, d2.data(), w.rank + 1,
                     MPI_DOUBLE, 1 % p, MPI_COMM_WORLD),
        "MPI_Scatterv");
  // Alltoallv: j + 1 ints to rank j (so rank r receives r + 1 from everyone).
  for (int k = 0; k < p; ++k) {
    counts[k] = k + 1;
    rcounts[k] = w.rank + 1;
  }
  prefix(counts, displs);
  prefix(rcounts, rdispls);
  if (!w.for_monitoring) {
    check(MPI_Alltoallv(i1.data(), counts.data(), displs.data(), MPI_INT, i2.data(), rcounts.data(),
                        rdispls.data(), MPI_INT, MPI_COMM_WORLD),
          "MPI_Alltoallv");
  }
  // Alltoallw: one MPI_INT to even ranks, one MPI_DOUBLE to odd ones (byte displacements).
  if (!w.for_monitoring) {
    std::vector<MPI_Datatype> stypes(n), rtypes(n);
    std::vector<int> ones(n, 1), sbytes(n), rbytes(n);
    for (int k = 0; k < p; ++k) {
      stypes[k] = k % 2 == 0 ? MPI_INT : MPI_DOUBLE;
      rtypes[k] = w.rank % 2 == 0 ? MPI_INT : MPI_DOUBLE;
      sbytes[k] = 8 * k;
      rbytes[k] = 8 * k;
    }
    check(MPI_Alltoallw(d.data(), ones.data(), sbytes.data(), stypes.data(), d2.data(), ones.data(),
                        rbytes.data(), rtypes.data(), MPI_COMM_WORLD),
          "MPI_Alltoallw");
  }
  check(MPI_Reduce_scatter_block(i1.data(), i2.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Reduce_scatter_block");
  for (int k = 0; k < p; ++k) counts[k] = k + 1;
  check(MPI_Reduce_scatter(d.data(), d2.data(), counts.data(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Reduce_scatter");
  check(MPI_Scan(d.data(), d2.data(), 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Scan");
  check(MPI_Exscan(i1.data(), i2.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan");
  // Non-blocking.
  std::array<MPI_Request, 4> nb{};
  std::vector<int> ib(7, w.rank);
  std::vector<double> iar(3, 1.0), iar_out(3);
  std::vector<int> ia2a(n, 1), ia2a_in(n);
  check(MPI_Ibcast(ib.data(), 7, MPI_INT, 0, MPI_COMM_WORLD, &nb[0]), "MPI_Ibcast");
  check(MPI_Iallreduce(iar.data(), iar_out.data(), 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &nb[1]),
        "MPI_Iallreduce");
  check(MPI_Ialltoall(ia2a.data(), 1, MPI_INT, ia2a_in.data(), 1, MPI_INT, MPI_COMM_WORLD, &nb[2]),
        "MPI_Ialltoall");
  check(MPI_Ibarrier(MPI_COMM_WORLD, &nb[3]), "MPI_Ibarrier");
  check(MPI_Waitall(4, nb.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  // In place.
  check(MPI_Allreduce(MPI_IN_PLACE, i1.data(), 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, i2.data(), 3, MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgather");
  check(MPI_Reduce(w.rank == 0 ? MPI_IN_PLACE : d.data(), d.data(), 2, MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD),
        "MPI_Reduce");
}

void subcommunicators(const World& w) {
  // Rows, ranked backwards: local rank 0 is the row's highest world rank.
  MPI_Comm row = MPI_COMM_NULL;
  check(MPI_Comm_split(MPI_COMM_WORLD, w.rank / w.cols, -w.rank, &row), "MPI_Comm_split");
  int local = 0;
  int cols = 1;
  check(MPI_Comm_rank(row, &local), "MPI_Comm_rank");
  check(MPI_Comm_size(row, &cols), "MPI_Comm_size");
  std::vector<double> out(kRowSendDoubles, 1.0), in(kRowSendDoubles);
  if (cols > 1) {
    std::array<MPI_Request, 2> reqs{};
    check(MPI_Irecv(in.data(), kRowSendDoubles, MPI_DOUBLE, (local + cols - 1) % cols, 41, row,
                    &reqs[0]),
          "MPI_Irecv");
    check(MPI_Isend(out.data(), kRowSendDoubles, MPI_DOUBLE, (local + 1) % cols, 41, row, &reqs[1]),
          "MPI_Isend");
    check(MPI_Waitall(2, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  std::vector<int> six(6, 1), six_out(6), nine(9, 2);
  check(MPI_Allreduce(six.data(), six_out.data(), 6, MPI_INT, MPI_SUM, row), "MPI_Allreduce");
  check(MPI_Bcast(nine.data(), 9, MPI_INT, 0, row), "MPI_Bcast");
  check(MPI_Comm_free(&row), "MPI_Comm_free");
  // A duplicate of the world, never freed: the profiler counts it at MPI_Finalize. What MPI and
  // the profiler allocate for it stays behind on purpose.
  const DeliberateLeaks never_freed;
  MPI_Comm dup = MPI_COMM_NULL;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
  int one = 1;
  int sum = 0;
  check(MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, dup), "MPI_Scan");
  check(MPI_Barrier(dup), "MPI_Barrier");
}

void onesided(const World& w) {
  std::vector<double> base(64, 1.0);
  MPI_Win win = MPI_WIN_NULL;
  check(MPI_Win_create(base.data(), static_cast<MPI_Aint>(base.size() * sizeof(double)),
                       sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
        "MPI_Win_create");
  std::vector<double> buf(64, 2.0), got(64);
  check(MPI_Win_fence(0, win), "MPI_Win_fence");
  check(MPI_Put(buf.data(), 10, MPI_DOUBLE, w.next(), 0, 10, MPI_DOUBLE, win), "MPI_Put");
  check(MPI_Get(got.data(), 20, MPI_DOUBLE, w.prev(), 20, 20, MPI_DOUBLE, win), "MPI_Get");
  check(MPI_Accumulate(buf.data(), 5, MPI_DOUBLE, (w.rank + 2) % w.size, 50, 5, MPI_DOUBLE, MPI_SUM,
                       win),
        "MPI_Accumulate");
  check(MPI_Win_fence(0, win), "MPI_Win_fence");
  check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
  double operand = 1.0;
  double old = 0.0;
  check(MPI_Fetch_and_op(&operand, &old, MPI_DOUBLE, w.next(), 60, MPI_SUM, win),
        "MPI_Fetch_and_op");
  // MPI allows compare-and-swap on integer, logical and byte types only (MPICH refuses a double):
  // a 64-bit integer, the size of the window's doubles, at the same place.
  std::int64_t swap_in = 1;
  std::int64_t compare = 1;
  std::int64_t swap_old = 0;
  check(MPI_Compare_and_swap(&swap_in, &compare, &swap_old, MPI_INT64_T, w.prev(), 61, win),
        "MPI_Compare_and_swap");
  std::array<MPI_Request, 3> reqs{};
  check(MPI_Rput(buf.data(), 4, MPI_DOUBLE, w.next(), 40, 4, MPI_DOUBLE, win, &reqs[0]),
        "MPI_Rput");
  check(MPI_Rget(got.data(), 3, MPI_DOUBLE, w.next(), 44, 3, MPI_DOUBLE, win, &reqs[1]),
        "MPI_Rget");
  check(MPI_Rget_accumulate(buf.data(), 2, MPI_DOUBLE, got.data() + 8, 2, MPI_DOUBLE, w.next(), 48,
                            2, MPI_DOUBLE, MPI_SUM, win, &reqs[2]),
        "MPI_Rget_accumulate");
  check(MPI_Waitall(3, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  check(MPI_Win_free(&win), "MPI_Win_free");
}

/// Traffic the profiler must not count.
void uncounted_phase(const World& w) {
  MPI_Pcontrol(0);
  std::vector<int> out(123, 1), in(123);
  check(MPI_Sendrecv(out.data(), 123, MPI_INT, w.next(), 99, in.data(), 123, MPI_INT, w.prev(), 99,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  check(MPI_Allreduce(MPI_IN_PLACE, out.data(), 123, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  MPI_Pcontrol(1);
}

}  // namespace

int main(int argc, char** argv) {
  bool with_onesided = true;
  bool pcontrol_phase = false;
  bool pcontrol_levels = false;
  bool thread_multiple = false;
  World w;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--no-onesided") == 0) with_onesided = false;
    if (std::strcmp(argv[a], "--pcontrol-phase") == 0) pcontrol_phase = true;
    if (std::strcmp(argv[a], "--pcontrol-levels") == 0) pcontrol_levels = true;
    if (std::strcmp(argv[a], "--for-monitoring") == 0) w.for_monitoring = true;
    if (std::strcmp(argv[a], "--thread-multiple") == 0) thread_multiple = true;
  }
  if (thread_multiple) {
    int provided = MPI_THREAD_SINGLE;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    if (provided != MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "comm_pattern: MPI_THREAD_MULTIPLE not granted (%d)\n", provided);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  } else {
    check(MPI_Init(&argc, &argv), "MPI_Init");
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &w.size), "MPI_Comm_size");
  if (w.size < 2 || w.size % 2 != 0) {
    if (w.rank == 0) std::fprintf(stderr, "comm_pattern: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  w.cols = w.size / 2;
  // Bsend buffer: one 40-int message in flight.
  std::vector<char> bsend(40 * sizeof(int) + MPI_BSEND_OVERHEAD);
  check(MPI_Buffer_attach(bsend.data(), static_cast<int>(bsend.size())), "MPI_Buffer_attach");
  // Persistent horizontal halo requests.
  const int col = w.rank % w.cols;
  std::vector<double> h_out(2 * kHaloHorizontalDoubles, w.rank), h_in(2 * kHaloHorizontalDoubles);
  std::vector<MPI_Request> halo;
  for (const int side : {-1, 1}) {
    if (col + side < 0 || col + side >= w.cols) continue;
    const std::size_t at = side < 0 ? 0 : kHaloHorizontalDoubles;
    MPI_Request recv = MPI_REQUEST_NULL;
    MPI_Request send = MPI_REQUEST_NULL;
    check(MPI_Recv_init(h_in.data() + at, kHaloHorizontalDoubles, MPI_DOUBLE, w.rank + side, 21,
                        MPI_COMM_WORLD, &recv),
          "MPI_Recv_init");
    check(MPI_Send_init(h_out.data() + at, kHaloHorizontalDoubles, MPI_DOUBLE, w.rank + side, 21,
                        MPI_COMM_WORLD, &send),
          "MPI_Send_init");
    halo.push_back(recv);
    halo.push_back(send);
  }
  if (pcontrol_levels) MPI_Pcontrol(2);
  for (int it = 0; it < kIterations; ++it) iteration(w, halo);
  for (MPI_Request& r : halo) check(MPI_Request_free(&r), "MPI_Request_free");
  if (pcontrol_phase) uncounted_phase(w);
  if (pcontrol_levels) MPI_Pcontrol(3);
  derived_types(w);
  collectives_once(w);
  subcommunicators(w);
  if (with_onesided) onesided(w);
  void* detached = nullptr;
  int detached_size = 0;
  check(MPI_Buffer_detach(&detached, &detached_size), "MPI_Buffer_detach");
  if (w.rank == 0) std::printf("comm_pattern: %d ranks done\n", w.size);
  check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
