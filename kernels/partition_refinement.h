// Swap refinement of one level's partition: exchanges between groups that keep more traffic inside.
#pragma once

#include <span>
#include <vector>

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
/// not depend on the thread count. Cost per round: O(sum over v of k deg log k) when groups come
/// sorted inside (a partner's gain is read from the rows of v's group), else O(sum over v of
/// deg(v) + 2 k deg(u)) (from each partner's row).
/// Returns the swaps applied.
long long refine_partition(CsrView graph, Groups& groups, int rounds);
/// Sequential reference twin; it reads each partner's row for the partner gains where
/// refine_partition sums the rows of the proposer's group (same sums: rows sorted, matrix
/// symmetric).
long long refine_partition_seq(CsrView graph, Groups& groups, int rounds);

// The pieces of one round, for callers whose rows are spread over processes (MPI ranks): v's
// options need v's row, each partner gain u's row, and the selection only the proposals.

/// A swap v considers: with u of group b, v being in group a; base = conn(v,B) - conn(v,A).
struct SwapOption {
  Index u = -1;
  Index a = -1;
  Index b = -1;
  double base = 0.0;
};

/// The best swap a process proposes (u < 0: none).
struct SwapProposal {
  double gain = 0.0;
  Index v = -1;
  Index u = -1;
};

/// One worker's scratch for the options of one process at a time.
class SwapOptionFinder {
 public:
  explicit SwapOptionFinder(Index groups);
  /// Appends v's options (v's row is row `local_row` of `rows`), in the order best_swap reads them.
  void options(CsrView rows, Index local_row, Index v, const Groups& groups,
               std::span<const Index> owner, std::vector<SwapOption>& out);

 private:
  std::vector<Weight> conn_;
  std::vector<Index> stamp_;
  std::vector<Index> touched_;
  std::vector<Index> targets_;
};

/// conn(u,A) - conn(u,B) - 2 w(u,v), from u's row (row `local_row` of `rows`): what moving u from
/// B to A (v leaving A) adds.
double partner_gain(CsrView rows, Index local_row, std::span<const Index> owner, Index a, Index b,
                    Index v);

/// conn(u,A) - conn(u,B) from u's row: partner_gain without the -2 w(u,v) term, the same for
/// every member v of A (subtracting 2 w(v,u) afterwards gives partner_gain's value bit for bit:
/// the matrix is symmetric).
double partner_balance(CsrView rows, Index local_row, std::span<const Index> owner, Index a,
                       Index b);

/// v's proposal from its options and their partner gains (same order): the largest gain above a
/// tiny threshold, the first one on ties.
SwapProposal best_swap(Index v, std::span<const SwapOption> options,
                       std::span<const double> partner_gains);

/// Applies proposals by decreasing gain (ties: smaller v), skipping those whose groups an applied
/// swap changed; updates groups (members kept sorted) and owner. Returns the swaps applied.
long long apply_swaps(std::vector<SwapProposal> proposals, Groups& groups,
                      std::vector<Index>& owner);

}  // namespace treematch::kernels
