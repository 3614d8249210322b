// The quality corpus: irregular, regular and real patterns on several machine trees.
#pragma once

#include <vector>

#include "apps/bench/bench_cases.h"

namespace treematch::bench {

/// The corpus (--cases corpus), every instance named and described, from 256 to 65536 ranks:
/// block graphs of geometric, k-nearest-neighbour, road-like and scale-free graphs cut into
/// parts of equal work, 27-point stencils in shuffled and natural order, dense hierarchical
/// patterns and real application patterns of the shared data; on trees with distances
/// 1:10:100:1000 and with hop counts, of even and uneven arities, full and partly filled.
/// Those marked in_corpus_quick (--cases corpus-quick) are the CI's regression guard: the three
/// presets map them in a few minutes on two cores.
std::vector<CaseSpec> corpus_cases();

}  // namespace treematch::bench
