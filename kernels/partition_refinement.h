// Swap refinement of one level's partition: exchanges between groups that keep more traffic inside.
#pragma once

#include "kernels/types.h"

namespace treematch::kernels {

/// Improves `groups` (a partition of graph.n processes into groups of k; processes past the
/// stored rows are artificial) in place. In each round every process v proposes its best swap
/// with a process u of one of the two groups it talks to most (ties: smaller group index), if that
/// raises the weight kept inside groups: conn(v,B) - conn(v,A) + conn(u,A) - conn(u,B) - 2 w(u,v)
/// > 0. Proposals are then applied by decreasing gain (ties: smaller v), skipping any whose groups
/// an applied swap already changed, so every applied gain is exact and the weight inside never
/// drops. Rounds stop when none applies or after `rounds`. Groups stay sorted inside and are
/// returned ordered by their smallest member. Proposals are computed in parallel; the result does
/// not depend on the thread count. Cost per round: O(sum over v of deg(v) + 2 k deg(u)).
/// Returns the swaps applied.
long long refine_partition(CsrView graph, Groups& groups, int rounds);
/// Sequential reference twin.
long long refine_partition_seq(CsrView graph, Groups& groups, int rounds);

}  // namespace treematch::kernels
