// The subgraphs a partition induces: one pass over the rows, each entry kept in its part's rows.
#include "kernels/part_subgraphs.h"

namespace treematch::kernels {

std::vector<Csr> part_subgraphs(CsrView g, const std::vector<Index>& part_of, std::size_t parts) {
  std::vector<Csr> subs(parts);
  std::vector<Index> local_of(at(g.n));
  for (Index v = 0; v < g.n; ++v) {
    if (part_of[at(v)] >= 0) local_of[at(v)] = subs[at(part_of[at(v)])].n++;
  }
  for (Csr& sub : subs) sub.offsets.reserve(at(sub.n) + 1);
  for (Index v = 0; v < g.n; ++v) {
    const Index part = part_of[at(v)];
    if (part < 0) continue;
    Csr& sub = subs[at(part)];
    for (Offset e = g.row_begin(v); e < g.row_end(v); ++e) {
      const Index u = g.targets[at(e)];
      if (part_of[at(u)] != part) continue;
      sub.targets.push_back(local_of[at(u)]);
      sub.weights.push_back(g.weights[at(e)]);
    }
    sub.offsets.push_back(static_cast<Offset>(sub.targets.size()));
  }
  return subs;
}

}  // namespace treematch::kernels
