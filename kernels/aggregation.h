// AggregateComMatrix: the matrix between groups, r[g][h] = sum of m[i][j], i in g, j in h, g != h.
#pragma once

#include <span>

#include "kernels/types.h"

namespace treematch::kernels {

/// `groups` partitions vertices 0..graph.n-1 (members of group g are its rows); the result has one
/// row per group, sorted, without diagonal. Sums follow a fixed order (members, then row order),
/// so the result does not depend on the thread count.
Csr aggregate(CsrView graph, const Groups& groups);
Csr aggregate_seq(CsrView graph, const Groups& groups);

}  // namespace treematch::kernels
