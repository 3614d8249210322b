// Candidate growth one member's row at a time, for rows that live on other MPI ranks: the same
// groups as neighbourhood_candidates grows, without holding every row.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// One candidate group of neighbourhood_candidates on its way to k members. The rule is
/// GrowthScratch's (kernels/candidate_groups.cc): the members' rows are added in member order,
/// then the free vertex with the largest communication with the group joins (ties: smaller row
/// sum, then smaller index), or the first unused filler when none is left. Here the group keeps
/// what the rows added so far told it, so each row can arrive in a later exchange.
struct SteppedGroup {
  std::vector<Index> members;  ///< in the order they joined
  std::vector<std::pair<Index, Weight>>
      frontier;                 ///< free non-members touched, their weight to the group
  std::size_t rows_added = 0;   ///< members whose rows were added
  std::size_t next_filler = 0;  ///< first filler not yet ruled out
  bool done = false;            ///< complete (k members, sorted) or stuck

  /// The member whose row the group needs next; -1 once done.
  [[nodiscard]] Index needs() const { return done ? -1 : members[rows_added]; }
  [[nodiscard]] bool complete(Index k) const {
    return done && static_cast<Index>(members.size()) == k;
  }
};

/// A group started from the seed pair `seed`: done at once when it has k members already.
SteppedGroup start_group(std::vector<Index> seed, Index k);

/// Scratch of one worker (dense per-vertex arrays, reset after each step).
class GrowthStepper {
 public:
  GrowthStepper(std::span<const Weight> rowsum, std::span<const std::uint8_t> free,
                std::span<const Index> fillers, Index k);

  /// Adds the row of group.needs() (its cut-down row, as neighbourhood_candidates reads it; empty
  /// for an artificial process), then grows the group until it needs another member's row or is
  /// done.
  void add_row(SteppedGroup& group, std::span<const Index> targets,
               std::span<const Weight> weights);

 private:
  static constexpr std::uint8_t kUntouched = 0;
  static constexpr std::uint8_t kFrontier = 1;
  static constexpr std::uint8_t kMember = 2;

  std::span<const Weight> rowsum_;
  std::span<const std::uint8_t> free_;
  std::span<const Index> fillers_;
  Index k_;
  std::vector<Weight> conn_;
  std::vector<std::uint8_t> state_;
};

}  // namespace treematch::kernels
