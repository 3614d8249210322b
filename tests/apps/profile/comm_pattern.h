// The communication of tests/apps/profile/comm_pattern.cc, and the traffic it sends, peer by peer.
#pragma once

#include <cstdint>
#include <vector>

namespace treematch::testing::pattern {

// Every rank r of P (P even) sits on a 2 x P/2 grid at (r / (P/2), r % (P/2)).
//
//     0 -- 1 -- ... -- P/2-1        ring:  r -> r+1 (mod P), Isend/Irecv, every iteration
//     |    |            |           halo:  up/down by Sendrecv, left/right by persistent
//    P/2 - ... ------- P-1                 requests (MPI_Startall), every iteration
//
// Each iteration also sends Send/Ssend/Rsend/Bsend to r+1, a Barrier, an Alltoall and a Reduce
// to rank 0; once: two sends to r+1 with derived types (the first freed before the second is
// made), a Sendrecv_replace with r^1, every other collective (blocking, non-blocking, in place,
// on a row sub-communicator and on a duplicate of MPI_COMM_WORLD) and one-sided calls.
inline constexpr int kIterations = 5;
inline constexpr int kRingDoubles = 1000;
inline constexpr int kHaloVerticalInts = 300;
inline constexpr int kHaloHorizontalDoubles = 200;
inline constexpr int kAlltoallInts = 64;
inline constexpr int kReduceDoubles = 100;
inline constexpr int kRowSendDoubles = 11;

/// Messages and bytes from one rank to another.
struct Cell {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

/// Dense P x P traffic of one class: at(i, j) = sent by world rank i to world rank j.
struct ClassTraffic {
  int ranks = 0;
  std::vector<Cell> cells;

  explicit ClassTraffic(int p)
      : ranks(p), cells(static_cast<std::size_t>(p) * static_cast<std::size_t>(p)) {}
  Cell& at(int i, int j) {
    return cells[static_cast<std::size_t>(i) * static_cast<std::size_t>(ranks) +
                 static_cast<std::size_t>(j)];
  }
  void add(int i, int j, std::uint64_t bytes, std::uint64_t messages = 1) {
    at(i, j).messages += messages;
    at(i, j).bytes += bytes;
  }
};

/// What the program sends, by class, under the collective model of apps/profile/README section
/// (apps/profile/collective_volume.h).
struct Traffic {
  ClassTraffic p2p;
  ClassTraffic collective;
  ClassTraffic onesided;
};

/// Which part of the program's traffic: all of it, the kIterations iterations alone (between
/// MPI_Pcontrol(2) and MPI_Pcontrol(3) under --pcontrol-levels) or the rest (after them).
enum class Part { kAll, kIterationsOnly, kOnceOnly };

/// The traffic of comm_pattern at `p` ranks (one-sided part included when `onesided`).
inline Traffic expected_traffic(int p, bool onesided, Part part = Part::kAll) {
  Traffic t{ClassTraffic(p), ClassTraffic(p), ClassTraffic(p)};
  const int cols = p / 2;
  const auto all_pairs = [&](std::uint64_t bytes) {
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < p; ++j)
        if (i != j) t.collective.add(i, j, bytes);
  };
  const auto to_root = [&](int root, auto bytes_of) {
    for (int i = 0; i < p; ++i)
      if (i != root) t.collective.add(i, root, bytes_of(i));
  };
  const auto from_root = [&](int root, auto bytes_of) {
    for (int j = 0; j < p; ++j)
      if (j != root) t.collective.add(root, j, bytes_of(j));
  };
  const auto to_higher = [&](std::uint64_t bytes) {
    for (int i = 0; i < p; ++i)
      for (int j = i + 1; j < p; ++j) t.collective.add(i, j, bytes);
  };
  const int iterations = part == Part::kOnceOnly ? 0 : kIterations;
  for (int it = 0; it < iterations; ++it) {
    for (int r = 0; r < p; ++r) {
      const int col = r % cols;
      t.p2p.add(r, (r + 1) % p, 8 * kRingDoubles);
      t.p2p.add(r, (r + cols) % p, 4 * kHaloVerticalInts);
      if (col > 0) t.p2p.add(r, r - 1, 8 * kHaloHorizontalDoubles);
      if (col + 1 < cols) t.p2p.add(r, r + 1, 8 * kHaloHorizontalDoubles);
      t.p2p.add(r, (r + 1) % p, 4 * (10 + 20 + 30 + 40), /*messages=*/4);  // Send..Bsend
    }
    all_pairs(0);                                        // Barrier
    all_pairs(4 * kAlltoallInts);                        // Alltoall
    to_root(0, [](int) { return 8 * kReduceDoubles; });  // Reduce
  }
  if (part == Part::kIterationsOnly) return t;
  for (int r = 0; r < p; ++r) {
    t.p2p.add(r, (r + 1) % p, 4 * 3);  // one contiguous type of 3 ints, freed, then
    t.p2p.add(r, (r + 1) % p, 8 * 5);  // one of 5 doubles (the handle may be the same)
  }
  for (int r = 0; r < p; ++r) t.p2p.add(r, r ^ 1, 8 * 50);  // Sendrecv_replace
  from_root(1 % p, [](int) { return 8 * 10; });             // Bcast
  all_pairs(4 * 4);                                         // Allreduce
  all_pairs(8 * 2);                                         // Allgather
  for (int r = 0; r < p; ++r)                               // Allgatherv
    for (int j = 0; j < p; ++j)
      if (j != r) t.collective.add(r, j, 4 * (r + 1));
  to_root(2 % p, [](int) { return 4 * 3; });            // Gather
  to_root(0, [](int r) { return 4 * (r + 2); });        // Gatherv
  from_root(3 % p, [](int) { return 4 * 5; });          // Scatter
  from_root(1 % p, [](int j) { return 8 * (j + 1); });  // Scatterv
  for (int r = 0; r < p; ++r)                           // Alltoallv
    for (int j = 0; j < p; ++j)
      if (j != r) t.collective.add(r, j, 4 * (j + 1));
  for (int r = 0; r < p; ++r)  // Alltoallw: one MPI_INT to even ranks, one MPI_DOUBLE to odd
    for (int j = 0; j < p; ++j)
      if (j != r) t.collective.add(r, j, j % 2 == 0 ? 4 : 8);
  all_pairs(4 * 2);            // Reduce_scatter_block
  for (int r = 0; r < p; ++r)  // Reduce_scatter
    for (int j = 0; j < p; ++j)
      if (j != r) t.collective.add(r, j, 8 * (j + 1));
  to_higher(8);                             // Scan
  to_higher(4);                             // Exscan
  from_root(0, [](int) { return 4 * 7; });  // Ibcast
  all_pairs(8 * 3);                         // Iallreduce
  all_pairs(4);                             // Ialltoall
  all_pairs(0);                             // Ibarrier
  all_pairs(4 * 5);                         // Allreduce in place
  all_pairs(4 * 3);                         // Allgather in place
  to_root(0, [](int) { return 8 * 2; });    // Reduce in place at the root
  // Row sub-communicators (key -r: local rank 0 is the row's highest world rank).
  for (int r = 0; r < p; ++r) {
    const int row_first = r / cols * cols;
    const int local = cols - 1 - (r - row_first);
    const int next_local = (local + 1) % cols;
    const int next_world = row_first + cols - 1 - next_local;
    if (cols > 1) t.p2p.add(r, next_world, 8 * kRowSendDoubles);
    for (int j = row_first; j < row_first + cols; ++j) {
      if (j == r) continue;
      t.collective.add(r, j, 4 * 6);                                 // Allreduce on the row
      if (r == row_first + cols - 1) t.collective.add(r, j, 4 * 9);  // Bcast from local 0
    }
  }
  to_higher(4);  // Scan on the duplicate of MPI_COMM_WORLD
  all_pairs(0);  // Barrier on the duplicate
  if (onesided) {
    for (int r = 0; r < p; ++r) {
      const int next = (r + 1) % p;
      const int prev = (r + p - 1) % p;
      t.onesided.add(r, next, 8 * 10);        // Put
      t.onesided.add(prev, r, 8 * 20);        // Get: data from the target
      t.onesided.add(r, (r + 2) % p, 8 * 5);  // Accumulate
      t.onesided.add(r, next, 8);             // Fetch_and_op: the operand ...
      t.onesided.add(next, r, 8);             // ... and the old value back
      t.onesided.add(r, prev, 8 * 2);         // Compare_and_swap: value and comparand ...
      t.onesided.add(prev, r, 8);             // ... and the old value back
      t.onesided.add(r, next, 8 * 4);         // Rput
      t.onesided.add(next, r, 8 * 3);         // Rget
      t.onesided.add(r, next, 8 * 2);         // Get_accumulate: the operand ...
      t.onesided.add(next, r, 8 * 2);         // ... and the result back
    }
  }
  return t;
}

}  // namespace treematch::testing::pattern
