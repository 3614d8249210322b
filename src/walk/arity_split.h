// Table 2 of the seed paper: when to split a tree node of arity k into d nodes of arity k/d.
#pragma once

#include <vector>

#include "kernels/types.h"

namespace treematch {

using kernels::Index;

/// log C(n, r), -infinity when r > n.
double log_binomial(double n, double r);

/// Splitting arity k pays for p processes when C(p, k) > d * C(p, k/d), d = k / (smallest prime
/// factor of k): grouping by k/d then by d enumerates fewer groups than grouping by k directly.
bool split_pays(Index k, Index p);

/// The smallest p* such that split_pays(k, p) for every p >= p* (Table 2's p*), or 0 if k is prime.
Index split_threshold(Index k);

/// The arities (bottom-up, product k) that replace one level of arity k above p processes:
/// {k} when splitting does not pay, else {k/d} followed by the split of d for ceil(p / (k/d)).
std::vector<Index> split_arity(Index k, Index p);

}  // namespace treematch
