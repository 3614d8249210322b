// The subgraphs a partition induces: each part's rows copied from its members' rows.
#include "kernels/part_subgraphs.h"

#include "kernels/parallel_tasks.h"

namespace treematch::kernels {

namespace {

/// Below this many vertices the parts are copied in one loop: a task each would cost more.
constexpr Index kParallelVertices = 4096;

/// Copies the rows of `members` (the vertices of part `part`, in increasing order) into `sub`.
void copy_part(CsrView g, const std::vector<Index>& part_of, const std::vector<Index>& local_of,
               Index part, const std::vector<Index>& members, Csr& sub) {
  sub.n = static_cast<Index>(members.size());
  sub.offsets.reserve(members.size() + 1);
  // Counted first, so that the rows are written once, into arrays of their final size.
  std::size_t entries = 0;
  for (Index v : members) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e)
      entries += part_of[at(g.targets[at(e)])] == part ? 1 : 0;
  }
  sub.targets.reserve(entries);
  sub.weights.reserve(entries);
  for (Index v : members) {
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[at(e)];
      if (part_of[at(u)] != part) continue;
      sub.targets.push_back(local_of[at(u)]);
      sub.weights.push_back(g.weights[at(e)]);
    }
    sub.offsets.push_back(static_cast<Offset>(sub.targets.size()));
  }
}

}  // namespace

std::vector<Csr> part_subgraphs(CsrView g, const std::vector<Index>& part_of, std::size_t parts) {
  std::vector<std::vector<Index>> members(parts);
  std::vector<Index> local_of(at(g.n));
  for (Index v = 0; v < g.n; ++v) {
    const Index part = part_of[at(v)];
    if (part < 0) continue;
    local_of[at(v)] = static_cast<Index>(members[at(part)].size());
    members[at(part)].push_back(v);
  }
  std::vector<Csr> subs(parts);
  const auto copy = [&](std::size_t p) {
    copy_part(g, part_of, local_of, static_cast<Index>(p), members[p], subs[p]);
  };
  // Each part is written by one task only, so the result does not depend on the threads.
  if (g.n >= kParallelVertices && parts > 1) {
    parallel_for_all(parts, copy);
  } else {
    for (std::size_t p = 0; p < parts; ++p) copy(p);
  }
  return subs;
}

}  // namespace treematch::kernels
