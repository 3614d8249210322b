// A level's matrix held by this process: each question answered by its TBB kernel.
#include "src/walk/level_matrix.h"

#include <algorithm>

#include "kernels/aggregation.h"
#include "kernels/candidate_groups.h"
#include "kernels/group_values.h"
#include "kernels/partition_refinement.h"

namespace treematch {

LocalLevelMatrix::LocalLevelMatrix(kernels::CsrView graph, std::shared_ptr<LinkCache> cache)
    : view_(graph), cache_(cache ? std::move(cache) : std::make_shared<LinkCache>()) {}

LocalLevelMatrix::LocalLevelMatrix(kernels::Csr matrix)
    : owned_(std::move(matrix)), view_(owned_.view()), cache_(std::make_shared<LinkCache>()) {}

std::vector<Weight> LocalLevelMatrix::row_sums() const {
  return kernels::row_sums(view_);
}

Offset LocalLevelMatrix::longest_row() const {
  if (longest_ < 0) {
    longest_ = 0;
    for (std::size_t r = 0; r + 1 < view_.offsets.size(); ++r)
      longest_ = std::max(longest_, view_.offsets[r + 1] - view_.offsets[r]);
  }
  return longest_;
}

kernels::CsrView LocalLevelMatrix::links(Offset limit) {
  if (longest_row() <= limit) return view_;  // every row is whole: no copy
  auto found = cache_->find(limit);
  if (found == cache_->end())
    found = cache_->emplace(limit, kernels::strongest_neighbours(view_, static_cast<Index>(limit)))
                .first;
  kernels::CsrView cut = found->second.view();
  cut.n = view_.n;
  return cut;
}

kernels::Groups LocalLevelMatrix::neighbourhood_candidates(Offset limit,
                                                           std::span<const Weight> rowsum,
                                                           std::span<const std::uint8_t> free,
                                                           std::span<const Index> fillers, Index k,
                                                           int seeds) {
  return kernels::neighbourhood_candidates(links(limit), rowsum, free, fillers, k, seeds);
}

kernels::Groups LocalLevelMatrix::pack_remaining(Offset limit, std::span<const Weight> rowsum,
                                                 std::span<std::uint8_t> free, Index k) {
  return kernels::pack_remaining(links(limit), rowsum, free, k);
}

std::vector<Weight> LocalLevelMatrix::group_values(std::span<const Weight> rowsum,
                                                   const kernels::Groups& groups) const {
  return kernels::group_values(view_, rowsum, groups);
}

long long LocalLevelMatrix::refine_partition(kernels::Groups& groups, int rounds) const {
  return kernels::refine_partition(view_, groups, rounds);
}

std::unique_ptr<LevelMatrix> LocalLevelMatrix::aggregate(const kernels::Groups& groups) const {
  return std::make_unique<LocalLevelMatrix>(kernels::aggregate(view_, groups));
}

}  // namespace treematch
