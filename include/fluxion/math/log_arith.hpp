#pragma once
// Arithmetic on logarithms of probabilities, stable in the tails (Maechler,
// "Accurately computing log(1 - exp(-|a|))", Rmpfr vignette, 2012): over
// real numbers and dual numbers.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/dual.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

// log(1 - e^l) for l <= 0: log(-expm1(l)) near 0, log1p(-e^l) below -ln 2.
template <class S>
FLUXION_HOST_DEVICE S log1m_exp(S l) {
  if (value_of(l) > -ln2) return log(-expm1(l));
  return log1p(-exp(l));
}

// log(e^a - e^b) for a >= b; -inf when a == b.
template <class S>
FLUXION_HOST_DEVICE S log_diff_exp(S a, S b) {
  using R = real_of<S>;
  if (value_of(b) == -infinity<R>()) return a;
  if (value_of(a) == value_of(b)) return S(-infinity<R>());
  return a + log1m_exp(b - a);
}

// log(e^a + e^b).
template <class S>
FLUXION_HOST_DEVICE S log_sum_exp(S a, S b) {
  using R = real_of<S>;
  const bool a_larger = value_of(a) >= value_of(b);
  const S hi = a_larger ? a : b, lo = a_larger ? b : a;
  if (value_of(hi) == -infinity<R>()) return hi;
  return hi + log1p(exp(lo - hi));
}

// log(1 + e^x) (softplus), without overflow for large x.
template <class S>
FLUXION_HOST_DEVICE S log1p_exp(S x) {
  if (value_of(x) > 0) return x + log1p(exp(-x));
  return log1p(exp(x));
}

// log(1 + t) - t, accurate for small t (it is -t^2 / 2 + t^3 / 3 - ...).
// For |t| <= 1/2 with s = t / (2 + t), |s| <= 1/3: log(1 + t) = 2 atanh(s)
// = 2 (s + s^3 / 3 + s^5 / 5 + ...) and t = 2 s / (1 - s), so
//   log(1 + t) - t = -2 s^2 / (1 - s) + 2 s^3 (1/3 + s^2 / 5 + s^4 / 7 + ...),
// which has no cancellation. Elsewhere log1p(t) - t directly (no
// cancellation there either: |log1p(t) - t| > 0.09 |t|).
template <class S>
FLUXION_HOST_DEVICE S log1p_minus(S t) {
  using R = real_of<S>;
  const R tv = value_of(t);
  if (tv > R(0.5) || tv < R(-0.5)) return log1p(t) - t;
  const S s = t / (R(2) + t), s2 = s * s;
  // 1/3 + s^2 / 5 + ... + s^26 / 29: with s^2 <= 1/9 the first term left
  // out is below 1.5e-15 of the sum, which is itself a fraction of the result.
  S series = S(R(1) / R(29));
  for (int k = 13; k >= 1; --k) series = series * s2 + S(R(1) / R(2 * k + 1));
  return -(R(2) * s2) / (R(1) - s) + R(2) * s * s2 * series;
}

}  // namespace fluxion::math::special
