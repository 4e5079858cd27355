#pragma once
// log Gamma, digamma, log Beta and log binomial coefficients for positive
// arguments, over real, complex (host) and dual numbers.
//
//   lgamma(x)          the C library's for real x (lgamma_r on glibc hosts:
//                      lgamma writes the global signgam, a data race under
//                      threads); Stirling's series for complex and dual x.
//   stirling_delta(x)  lgamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2],
//                      x >= 10, by its asymptotic series (Abramowitz &
//                      Stegun 6.1.41), truncated after x^-13 (error below
//                      4e-17 at x = 10). Loader's "stirlerr".
//   digamma(x)         psi(x) = d lgamma / dx: the recurrence
//                      psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
//                      asymptotic series (A&S 6.3.18) to x^-14.
//   digamma_diff(x, a) psi(x + a) - psi(x), without the cancellation of the
//                      plain difference when x >> a.
//   lbeta(a, b)        log B(a, b), by Stirling differences when an argument
//                      is large, so that lbeta(3, 1e10) keeps its digits (the
//                      plain lgamma(a) + lgamma(b) - lgamma(a + b) loses ten
//                      of them). The algebra is that of Stan's lbeta (Stan
//                      Math, stan/math/prim/fun/lbeta.hpp).
//   lrising(x, k)      log(Gamma(x + k) / Gamma(x)) (the log rising factorial),
//                      by the Stirling difference for x >= 10:
//                      k log(x + k) + (x - 1/2) log1p(k / x) - k + delta(x + k) - delta(x),
//                      whose terms are of the size of the result, not of lgamma(x).
//   lchoose(n, k)      log C(n, k) = -log(n + 1) - lbeta(k + 1, n - k + 1),
//                      exactly 0 for k = 0 and k = n.
#include <math.h>

#include <fluxion/config/macros.hpp>
#include <fluxion/math/dual.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

// lgamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2] for value_of(x) >= 10.
template <class S>
FLUXION_HOST_DEVICE S stirling_delta(S x) {
  using R = real_of<S>;
  const S inv = R(1) / x, inv2 = inv * inv;
  // 1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7) + 1/(1188x^9) - 691/(360360x^11) + 1/(156x^13)
  S series = S(R(1.0 / 156));
  series = series * inv2 + S(R(-691.0 / 360360));
  series = series * inv2 + S(R(1.0 / 1188));
  series = series * inv2 + S(R(-1.0 / 1680));
  series = series * inv2 + S(R(1.0 / 1260));
  series = series * inv2 + S(R(-1.0 / 360));
  series = series * inv2 + S(R(1.0 / 12));
  return series * inv;
}

// The asymptotic tail of digamma: psi(x) = log x - 1/(2x) - digamma_tail(x),
//   digamma_tail(x) = 1/(12x^2) - 1/(120x^4) + 1/(252x^6) - 1/(240x^8)
//                     + 1/(132x^10) - 691/(32760x^12) + 1/(12x^14),  x >= 10.
template <class R>
FLUXION_HOST_DEVICE R digamma_tail(R x) {
  const R inv2 = R(1) / (x * x);
  R t = R(1.0 / 12);
  t = t * inv2 - R(691.0 / 32760);
  t = t * inv2 + R(1.0 / 132);
  t = t * inv2 - R(1.0 / 240);
  t = t * inv2 + R(1.0 / 252);
  t = t * inv2 - R(1.0 / 120);
  t = t * inv2 + R(1.0 / 12);
  return t * inv2;
}

// digamma for real x > 0 (NaN otherwise).
template <class R>
FLUXION_HOST_DEVICE R digamma(R x) {
  if (!(x > R(0))) return not_a_number<R>();
  R shift = R(0);
  while (x < R(10)) {
    shift -= R(1) / x;
    x += R(1);
  }
  return shift + special::log(x) - R(0.5) / x - digamma_tail(x);
}

// psi(x + a) - psi(x) for x > 0, a >= 0. Shift x up to 10 with
// psi(x + a) - psi(x) = psi(x + 1 + a) - psi(x + 1) + a / (x (x + a)), then
//   log1p(a / x) + a / (2 x (x + a)) - [tail(x + a) - tail(x)]
// with tail as in digamma (its difference is small beside the first terms).
template <class R>
FLUXION_HOST_DEVICE R digamma_diff(R x, R a) {
  if (!(x > R(0)) || !(a >= R(0))) return not_a_number<R>();
  if (a == R(0)) return R(0);
  R sum = R(0);
  while (x < R(10)) {
    sum += a / (x * (x + a));
    x += R(1);
  }
  return sum + special::log1p(a / x) + a / (R(2) * x * (x + a)) - (digamma_tail(x + a) - digamma_tail(x));
}

// lgamma by Stirling's series after shifting the argument to 10 or above:
// for complex arguments (Re x > 0), where it is analytic.
template <class S>
FLUXION_HOST_DEVICE S lgamma_stirling(S x) {
  using R = real_of<S>;
  S product = S(R(1));
  bool shifted = false;
  while (value_of(x) < R(10)) {
    product = product * x;
    x = x + R(1);
    shifted = true;
  }
  const S main = (x - R(0.5)) * log(x) - x + R(half_log_two_pi) + stirling_delta(x);
  return shifted ? main - log(product) : main;
}

// log Gamma(x), x > 0.
template <class T>
FLUXION_HOST_DEVICE T lgamma(T x) {
  if constexpr (is_complex<T>) {
    return lgamma_stirling(x);
  } else {
#if FLUXION_DEVICE_PASS
    return ::lgamma(x);
#elif defined(__GLIBC__)
    int sign = 0;
    if constexpr (sizeof(T) == sizeof(float)) return ::lgammaf_r(x, &sign);
    else return ::lgamma_r(x, &sign);
#else
    return std::lgamma(x);
#endif
  }
}
template <class R>
FLUXION_HOST_DEVICE dual<R> lgamma(dual<R> x) {
  return {special::lgamma(x.v), special::digamma(x.v) * x.d};
}

// log B(a, b) for a, b > 0.
template <class S>
FLUXION_HOST_DEVICE S lbeta(S a, S b) {
  using R = real_of<S>;
  const bool a_smaller = value_of(a) <= value_of(b);
  const S x = a_smaller ? a : b, y = a_smaller ? b : a;  // x <= y
  if (value_of(y) < R(10)) return lgamma(x) + lgamma(y) - lgamma(x + y);
  const S sum = x + y;
  if (value_of(x) < R(10)) {
    // lgamma(y) - lgamma(x + y) by Stirling: -x log(x + y) - (y - 1/2) log1p(x / y) + x + delta(y) - delta(x + y)
    return lgamma(x) - x * log(sum) - (y - R(0.5)) * log1p(x / y) + x + (stirling_delta(y) - stirling_delta(sum));
  }
  // Both large: log(2 pi) / 2 - log(y) / 2 + (x - 1/2) log(x / (x + y)) + y log1p(-x / (x + y)) + deltas.
  const S ratio = x / sum;
  return R(half_log_two_pi) - R(0.5) * log(y) + (x - R(0.5)) * log(ratio) + y * log1p(-ratio) +
         (stirling_delta(x) + stirling_delta(y) - stirling_delta(sum));
}

// log(Gamma(x + k) / Gamma(x)) for x > 0, k >= 0.
template <class S, class K>
FLUXION_HOST_DEVICE S lrising(S x, K k) {
  using R = real_of<S>;
  if (k == K(0)) return S(R(0));
  const S xk = x + R(k);
  if (value_of(x) < R(10)) return lgamma(xk) - lgamma(x);
  return R(k) * log(xk) + (x - R(0.5)) * log1p(R(k) / x) - R(k) + (stirling_delta(xk) - stirling_delta(x));
}

// log C(n, k) for 0 <= k <= n (real).
template <class S>
FLUXION_HOST_DEVICE S lchoose(S n, S k) {
  using R = real_of<S>;
  if (k == S(R(0)) || k == n) return S(R(0));
  return -log1p(n) - lbeta(k + R(1), n - k + R(1));
}

}  // namespace fluxion::math::special
