// Swap refinement of one level's partition: exchanges between groups that keep more traffic inside.
#pragma once

#include "kernels/types.h"

namespace treematch {

using kernels::Index;

/// Improves `groups` (a partition of graph.n processes into groups of k; processes past the
/// stored rows are artificial) in place: process v in group A swaps with u in group B when that
/// raises the weight inside groups, i.e. conn(v,B) - conn(v,A) + conn(u,A) - conn(u,B) - 2 w(u,v)
/// > 0. Candidate groups B are the two v talks to most, if more than to its own. Passes over the
/// processes in index order until one makes no swap or `passes` are done; sequential and
/// deterministic. Groups stay sorted inside and are returned ordered by their smallest member. Cost
/// per pass: O(sum over v of deg(v) + (groups v talks to) x k x deg(u)). Returns the swaps made.
long long refine_partition(kernels::CsrView graph, kernels::Groups& groups, int passes);

}  // namespace treematch
