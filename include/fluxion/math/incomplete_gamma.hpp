#pragma once
// The regularized incomplete gamma functions P(a, x) = gamma(a, x) / Gamma(a)
// and Q(a, x) = 1 - P(a, x), as logarithms, both at once and each accurate
// where it is small (the Poisson CDF is Q(k + 1, mu), its complement
// P(k + 1, mu)).
//
// Algorithm: Numerical Recipes (Press, Teukolsky, Vetterling & Flannery,
// 3rd ed., 2007, section 6.2): for x < a + 1 the series
//   P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a + 1) ... (a + n)),
// otherwise Legendre's continued fraction for Q(a, x) (NR eq. 6.2.7) by the
// modified Lentz method (NR section 5.2); the other function is
// log1m_exp of the first, which is then at most about 1/2. The prefactor
// x^a e^-x / Gamma(a) is formed in logarithms; for a >= 10 as
//   a (log1p(t) - t) + log(a / (2 pi)) / 2 - stirling_delta(a),  t = (x - a) / a,
// (Temme's form, as in DiDonato & Morris, ACM TOMS 12 (1986) 377-393),
// which keeps its digits where a log x, x and lgamma(a) are each large.
// Both expansions take O(sqrt(a)) terms where x is near a: about 9 sqrt(a)
// for a relative error of eps (a thousand terms at a = 10^4).
#include <fluxion/config/macros.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

template <class S>
struct log_pair {
  S lower;  // log of the lower function: P(a, x), or I_x(a, b)
  S upper;  // log of its complement: Q(a, x), or 1 - I_x(a, b)
};

inline constexpr int incomplete_max_terms = 1000000;

// log(x^a e^-x / Gamma(a)) for a, x > 0.
template <class R>
FLUXION_HOST_DEVICE R log_gamma_prefactor(R a, R x) {
  if (a < R(10)) return a * special::log(x) - x - lgamma(a);
  constexpr double log_two_pi = 1.83787706640934548356;
  return a * log1p_minus((x - a) / a) + R(0.5) * (special::log(a) - R(log_two_pi)) - stirling_delta(a);
}

// {log P(a, x), log Q(a, x)} for a > 0, x >= 0; NaN if a series fails to converge.
template <class R>
FLUXION_HOST_DEVICE log_pair<R> log_gamma_pq(R a, R x) {
  const R eps = epsilon<R>();
  if (!(a > R(0)) || !(x >= R(0))) return {not_a_number<R>(), not_a_number<R>()};
  if (x == R(0)) return {-infinity<R>(), R(0)};
  if (is_inf(x)) return {R(0), -infinity<R>()};
  const R front = log_gamma_prefactor(a, x);
  if (x < a + R(1)) {
    // NR gser: sum = 1/a + x/(a (a+1)) + ...
    R term = R(1) / a, sum = term, ap = a;
    int n = 0;
    for (; n < incomplete_max_terms; ++n) {
      ap += R(1);
      term *= x / ap;
      sum += term;
      if (special::fabs(term) < special::fabs(sum) * eps) break;
    }
    if (n == incomplete_max_terms) return {not_a_number<R>(), not_a_number<R>()};
    const R lp = front + special::log(sum);
    return {lp, log1m_exp(lp)};
  }
  // NR gcf: Q = front * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))
  const R tiny = smallest_normal<R>() / eps;
  R b = x + R(1) - a, c = R(1) / tiny, d = R(1) / b, h = d;
  int i = 1;
  for (; i < incomplete_max_terms; ++i) {
    const R an = -R(i) * (R(i) - a);
    b += R(2);
    d = an * d + b;
    if (special::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (special::fabs(c) < tiny) c = tiny;
    d = R(1) / d;
    const R del = d * c;
    h *= del;
    if (special::fabs(del - R(1)) <= eps) break;
  }
  if (i == incomplete_max_terms) return {not_a_number<R>(), not_a_number<R>()};
  const R lq = front + special::log(h);
  return {log1m_exp(lq), lq};
}

}  // namespace fluxion::math::special
