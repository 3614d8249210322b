// Arity splitting by the rule of Table 2 (seed 001): C(p, k) > d * C(p, k/d).
#include "src/walk/arity_split.h"

#include <cmath>
#include <limits>

namespace treematch {
namespace {

Index smallest_prime_factor(Index k) {
  for (Index f = 2; f * f <= k; ++f) {
    if (k % f == 0) return f;
  }
  return k;
}

}  // namespace

double log_binomial(double n, double r) {
  if (r < 0 || r > n) return -std::numeric_limits<double>::infinity();
  return std::lgamma(n + 1) - std::lgamma(r + 1) - std::lgamma(n - r + 1);
}

bool split_pays(Index k, Index p) {
  const Index q = smallest_prime_factor(k);
  if (q == k) return false;  // prime (or 1): nothing to split
  const Index d = k / q;
  const double lhs = log_binomial(p, k);
  const double rhs = std::log(static_cast<double>(d)) + log_binomial(p, q);
  // A relative margin keeps exact ties (never seen in Table 2) on the "do not split" side.
  return lhs > rhs + 1e-12 * std::abs(rhs);
}

Index split_threshold(Index k) {
  if (smallest_prime_factor(k) == k) return 0;
  // C(p,k) / C(p,q) grows with p once p >= k, so the last p that fails is below 4k.
  Index last_failure = k - 1;
  for (Index p = k; p <= 4 * k + 8; ++p) {
    if (!split_pays(k, p)) last_failure = p;
  }
  return last_failure + 1;
}

std::vector<Index> split_arity(Index k, Index p) {
  if (!split_pays(k, p)) return {k};
  const Index q = smallest_prime_factor(k);
  std::vector<Index> arities{q};
  const std::vector<Index> upper = split_arity(k / q, (p + q - 1) / q);
  arities.insert(arities.end(), upper.begin(), upper.end());
  return arities;
}

}  // namespace treematch
