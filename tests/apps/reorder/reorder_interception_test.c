/* MPI's reorder = 1 through libtreematch_reorder.so (linked or LD_PRELOADed), run by mpiexec with
 * TREEMATCH_REORDER_TOPOLOGY set (rank r sits on leaf r of that machine). A ring whose vertices
 * are relabelled at random (so that rank order is a bad placement) is given to each of the four
 * constructors with reorder true. On every resulting communicator:
 *   - the neighbours MPI reports for this rank are those of vertex `rank` in the graph given;
 *   - MPI_Neighbor_allgather of each rank's number brings exactly the neighbours' numbers;
 *   - the placement (vertex k on the slot of the process that got rank k) costs less than rank
 *     order on the machine (hops between slots: 0 same slot, 2 same package, 4 else), checked
 *     with `per_package` slots per package.
 * Reorder false must return the ranks unchanged. Prints "checks: ok" on rank 0; exits 1 on a
 * failure. With a second argument "refused" (TREEMATCH_REORDER_TOPOLOGY then names no machine),
 * every constructor must instead fail on every rank with MPI_COMM_NULL, and MPI_COMM_WORLD still
 * work. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERTICES_MAX 64

static int rank_, size_, per_package_;
static int failures_;

static void fail(const char* what, int value) {
  fprintf(stderr, "rank %d: %s (%d)\n", rank_, what, value);
  ++failures_;
}

/* The ring 0-1-...-(n-1)-0 relabelled: vertex ring[i] follows ring[i - 1]. */
static void shuffled_ring(int n, int ring[]) {
  for (int i = 0; i < n; ++i) ring[i] = i;
  unsigned state = 12345u;
  for (int i = n - 1; i > 0; --i) {
    state = state * 1103515245u + 12345u;
    const int j = (int)((state >> 16) % (unsigned)(i + 1));
    const int t = ring[i];
    ring[i] = ring[j];
    ring[j] = t;
  }
}

/* The two ring neighbours of each vertex: previous then next. */
static void ring_neighbours(int n, const int ring[], int neighbours[][2]) {
  for (int i = 0; i < n; ++i) {
    neighbours[ring[i]][0] = ring[(i + n - 1) % n];
    neighbours[ring[i]][1] = ring[(i + 1) % n];
  }
}

static int hops(int a, int b) {
  if (a == b) return 0;
  return a / per_package_ == b / per_package_ ? 2 : 4;
}

/* Sum over ring edges of the hops between the slots of their vertices. */
static long ring_cost(int n, const int ring[], const int slot_of_vertex[]) {
  long cost = 0;
  for (int i = 0; i < n; ++i)
    cost += hops(slot_of_vertex[ring[i]], slot_of_vertex[ring[(i + 1) % n]]);
  return cost;
}

/* `comm` has the topology; check its neighbours (`reported` out-neighbours, `sources` the
 * in-neighbours in MPI's order), a neighbourhood collective and the cost. */
static void check(const char* name, MPI_Comm comm, int n, const int ring[], int neighbours[][2],
                  int count, const int reported[], const int sources[]) {
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  int expected_in_order = 1;
  for (int i = 0; i < count; ++i) {
    if (reported[i] != neighbours[rank][0] && reported[i] != neighbours[rank][1]) {
      expected_in_order = 0;
    }
  }
  if (count != 2 || !expected_in_order) fail(name, count);
  int got[4] = {-1, -1, -1, -1};
  MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, comm);
  for (int i = 0; i < count; ++i) {
    if (got[i] != sources[i]) {
      fprintf(stderr, "rank %d: %s: in-neighbour %d is rank %d but the allgather brought %d\n",
              rank, name, i, sources[i], got[i]);
      ++failures_;
    }
  }
  /* Where each vertex now is: vertex k on the slot of old rank (= slot) of new rank k. */
  int slot_of_vertex[VERTICES_MAX];
  MPI_Allgather(&rank_, 1, MPI_INT, slot_of_vertex, 1, MPI_INT, comm);
  int identity[VERTICES_MAX];
  for (int k = 0; k < n; ++k) identity[k] = k;
  const long reordered = ring_cost(n, ring, slot_of_vertex);
  const long in_rank_order = ring_cost(n, ring, identity);
  if (rank_ == 0) printf("%s: ring cost %ld (rank order %ld)\n", name, reordered, in_rank_order);
  if (reordered >= in_rank_order) fail("reordered placement is not cheaper", (int)reordered);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  per_package_ = argc > 1 ? atoi(argv[1]) : 4;
  const int n = size_;
  if (n > VERTICES_MAX || n < 4) {
    if (rank_ == 0) fprintf(stderr, "run with 4 to %d ranks\n", VERTICES_MAX);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int ring[VERTICES_MAX];
  int neighbours[VERTICES_MAX][2];
  shuffled_ring(n, ring);
  ring_neighbours(n, ring, neighbours);
  if (argc > 2 && strcmp(argv[2], "refused") == 0) {
    MPI_Comm made = MPI_COMM_WORLD;
    const int dims[1] = {n};
    const int periods[1] = {1};
    if (MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &made) == MPI_SUCCESS) {
      fail("MPI_Cart_create accepted a topology that names no machine", 0);
    }
    if (made != MPI_COMM_NULL) fail("the failed constructor left a communicator", 0);
    if (MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbours[rank_], MPI_UNWEIGHTED, 2,
                                       neighbours[rank_], MPI_UNWEIGHTED, MPI_INFO_NULL, 1,
                                       &made) == MPI_SUCCESS) {
      fail("MPI_Dist_graph_create_adjacent accepted a topology that names no machine", 0);
    }
    int total = 0;
    MPI_Allreduce(&failures_, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf(total == 0 ? "checks: ok\n" : "%d failures\n", total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
  }

  /* MPI_Graph_create: the whole graph on every rank. */
  int index[VERTICES_MAX];
  int edges[2 * VERTICES_MAX];
  for (int v = 0; v < n; ++v) {
    index[v] = 2 * (v + 1);
    edges[2 * v] = neighbours[v][0];
    edges[2 * v + 1] = neighbours[v][1];
  }
  MPI_Comm graph;
  if (MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &graph) != MPI_SUCCESS) {
    fail("MPI_Graph_create failed", 0);
  } else {
    int rank, count, reported[4];
    MPI_Comm_rank(graph, &rank);
    MPI_Graph_neighbors_count(graph, rank, &count);
    MPI_Graph_neighbors(graph, rank, 4, reported);
    check("MPI_Graph_create", graph, n, ring, neighbours, count, reported, reported);
    MPI_Comm_free(&graph);
  }

  /* MPI_Dist_graph_create: rank 0 describes every edge. */
  MPI_Comm dist;
  int sources[VERTICES_MAX], degrees[VERTICES_MAX];
  for (int v = 0; v < n; ++v) {
    sources[v] = v;
    degrees[v] = 2;
  }
  const int described = rank_ == 0 ? n : 0;
  if (MPI_Dist_graph_create(MPI_COMM_WORLD, described, sources, degrees, edges, MPI_UNWEIGHTED,
                            MPI_INFO_NULL, 1, &dist) != MPI_SUCCESS) {
    fail("MPI_Dist_graph_create failed", 0);
  } else {
    int rank, in, out, weighted, from[4], to[4];
    MPI_Comm_rank(dist, &rank);
    MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted);
    MPI_Dist_graph_neighbors(dist, 4, from, MPI_UNWEIGHTED, 4, to, MPI_UNWEIGHTED);
    if (in != 2) fail("MPI_Dist_graph_create: in-degree", in);
    check("MPI_Dist_graph_create", dist, n, ring, neighbours, out, to, from);
    MPI_Comm_free(&dist);
  }

  /* MPI_Dist_graph_create_adjacent: each rank describes its own vertex. */
  MPI_Comm adjacent;
  if (MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbours[rank_], MPI_UNWEIGHTED, 2,
                                     neighbours[rank_], MPI_UNWEIGHTED, MPI_INFO_NULL, 1,
                                     &adjacent) != MPI_SUCCESS) {
    fail("MPI_Dist_graph_create_adjacent failed", 0);
  } else {
    int in, out, weighted, from[4], to[4];
    MPI_Dist_graph_neighbors_count(adjacent, &in, &out, &weighted);
    MPI_Dist_graph_neighbors(adjacent, 4, from, MPI_UNWEIGHTED, 4, to, MPI_UNWEIGHTED);
    if (in != 2) fail("MPI_Dist_graph_create_adjacent: in-degree", in);
    check("MPI_Dist_graph_create_adjacent", adjacent, n, ring, neighbours, out, to, from);
    /* MPI_Neighbor_alltoall: a distinct value per out-neighbour, checked at its receiver. */
    int rank, send[2], receive[2] = {-1, -1};
    MPI_Comm_rank(adjacent, &rank);
    for (int i = 0; i < out; ++i) send[i] = rank * 1000 + to[i];
    MPI_Neighbor_alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, adjacent);
    for (int i = 0; i < in; ++i) {
      if (receive[i] != from[i] * 1000 + rank) fail("neighbour alltoall", receive[i]);
    }
    MPI_Comm_free(&adjacent);
  }

  /* MPI_Cart_create: a periodic 1-D grid of n is a ring in rank order, already ideal; a 2 x n/2
   * grid is checked for consistency only (coordinates and shifts agree with the ranks). */
  MPI_Comm cart;
  const int dims[2] = {2, n / 2};
  const int periods[2] = {1, 1};
  if (n % 2 == 0) {
    if (MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart) != MPI_SUCCESS) {
      fail("MPI_Cart_create failed", 0);
    } else {
      int rank, coords[2], back, source, dest;
      MPI_Comm_rank(cart, &rank);
      MPI_Cart_coords(cart, rank, 2, coords);
      MPI_Cart_rank(cart, coords, &back);
      if (back != rank) fail("MPI_Cart_rank(MPI_Cart_coords(rank)) differs", back);
      int got[4], expected[4];
      for (int d = 0; d < 2; ++d) {
        MPI_Cart_shift(cart, d, 1, &source, &dest);
        expected[2 * d] = source;
        expected[2 * d + 1] = dest;
      }
      MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, cart);
      for (int i = 0; i < 4; ++i) {
        if (got[i] != expected[i]) fail("cartesian neighbour allgather", got[i]);
      }
      MPI_Comm_free(&cart);
    }
  }

  /* reorder = 0 goes to MPI untouched: the same ranks. */
  MPI_Comm same;
  MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &same);
  int same_rank = -1;
  MPI_Comm_rank(same, &same_rank);
  if (same_rank != rank_) fail("reorder = 0 changed the rank", same_rank);
  MPI_Comm_free(&same);

  int total = 0;
  MPI_Allreduce(&failures_, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf(total == 0 ? "checks: ok\n" : "%d failures\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
