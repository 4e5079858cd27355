#pragma once
// The regularized incomplete beta function I_x(a, b) and its complement
// 1 - I_x(a, b) = I_(1-x)(b, a), as logarithms, both at once and each accurate
// where it is small (the binomial and negative binomial CDFs). x and
// y = 1 - x are passed separately so that neither is formed by a
// cancelling subtraction. Over real and dual numbers: with a dual shape
// parameter the result carries its derivative with respect to that shape
// (no closed form exists; see math/dual.hpp).
//
// Algorithm: Numerical Recipes (3rd ed., 2007, section 6.4): the continued
// fraction (NR eq. 6.4.5)
//   I_x(a, b) = x^a y^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...))),
//   d(2m+1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),
//   d(2m)   = m (b - m) x / ((a + 2m - 1)(a + 2m)),
// evaluated by its fundamental recurrences (beta_continued_fraction), used directly
// when x < (a + 1) / (a + b + 2), where it converges in O(sqrt(max(a, b)))
// terms, and through the symmetry above otherwise. The prefactor
// x^a y^b / B(a, b) is formed in logarithms as below (log_beta_power_terms).
#include <fluxion/config/macros.hpp>
#include <fluxion/math/dual.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/incomplete_gamma.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

// Has the approximant's value settled (h_old the one before)? To 4 eps:
// once it has converged, the recurrences' roundings (below) still move it by
// a few units in the last place a step, and a test to eps can wait for those
// to cancel for hundreds of steps.
template <class S>
FLUXION_HOST_DEVICE bool value_settled(S h, S h_old) {
  using R = real_of<S>;
  return special::fabs(value_of(h) - value_of(h_old)) <= R(4) * epsilon<R>() * special::fabs(value_of(h));
}
// And its derivative (dual numbers), to 4 eps of |h| + |h'|; a real number has none.
template <class R>
FLUXION_HOST_DEVICE bool derivative_settled(R, R) {
  return true;
}
template <class R>
FLUXION_HOST_DEVICE bool derivative_settled(dual<R> h, dual<R> h_old) {
  return special::fabs(h.d - h_old.d) <= R(4) * epsilon<R>() * (special::fabs(h.v) + special::fabs(h.d));
}
// h with the value v: a dual number's value as it was when it settled, so
// that the value is the real computation's to the bit (the derivative may
// need more steps).
template <class R>
FLUXION_HOST_DEVICE R with_value(R, R v) {
  return v;
}
template <class R>
FLUXION_HOST_DEVICE dual<R> with_value(dual<R> h, R v) {
  return {v, h.d};
}

// The recurrences' values scaled by a real constant r (a dual's derivative
// too: the approximant A / B is unchanged in value and derivative).
template <class R>
FLUXION_HOST_DEVICE R scaled(R v, R r) {
  return v * r;
}
template <class R>
FLUXION_HOST_DEVICE dual<R> scaled(dual<R> v, R r) {
  return {v.v * r, v.d * r};
}
// A / B where B's value is 1: A, and for dual numbers the derivative A' - A B'.
template <class R>
FLUXION_HOST_DEVICE R over_unit(R a, R) {
  return a;
}
template <class R>
FLUXION_HOST_DEVICE dual<R> over_unit(dual<R> a, dual<R> b) {
  return {a.v, a.d - a.v * b.d};
}
template <class R>
FLUXION_HOST_DEVICE R with_unit_value(R) {
  return R(1);
}
template <class R>
FLUXION_HOST_DEVICE dual<R> with_unit_value(dual<R> b) {
  return {R(1), b.d};
}

// The continued fraction of NR eq. 6.4.5, 1 / (1 + d1 / (1 + d2 / (1 + ...))),
// by its fundamental recurrences (Wallis; NR section 5.2) A_j = A_(j-1) +
// d_j A_(j-2), B_j likewise, the approximant A_j / B_j, renormalized every
// step as in NR's second edition (1992), betacf. Each partial numerator
// d_j = num_j / den_j enters without its division: A_j den_j = den_j A_(j-1)
// + num_j A_(j-2), with A_(j-1) scaled by den_j too (every A and B scaled
// alike leaves the approximant unchanged). Renormalized after every step, the
// values grow by at most one factor of size (a + 2m)^2 before the next (no
// overflow below shapes of about 1e19 in float). So a step costs one
// division, the renormalization's, where the modified Lentz method costs
// three (with dual numbers, six), whose latency bounds the censored terms on
// a GPU. NaN if the fraction fails to converge.
template <class S>
FLUXION_HOST_DEVICE S beta_continued_fraction(S a, S b, S x) {
  using R = real_of<S>;
  const S qab = a + b, qap = a + R(1), qam = a - R(1);
  // (A_1, A_0) = (1, 0), (B_1, B_0) = (1, 1), then d_1 = -(a + b) x / (a + 1).
  S a_cur = S(R(1)), a_prev = S(R(0)), b_cur = S(R(1)), b_prev = S(R(1));
  const auto step = [&](S num, S den) {
    const S a_new = den * a_cur + num * a_prev, b_new = den * b_cur + num * b_prev;
    a_prev = den * a_cur;
    b_prev = den * b_cur;
    a_cur = a_new;
    b_cur = b_new;
  };
  const auto renormalize = [&] {
    const R r = R(1) / value_of(b_cur);
    a_cur = scaled(a_cur, r);
    a_prev = scaled(a_prev, r);
    b_prev = scaled(b_prev, r);
    b_cur = with_unit_value(scaled(b_cur, r));
  };
  step(-(qab * x), qap);
  renormalize();
  S h = over_unit(a_cur, b_cur);
  bool value_done = false;
  R value = R(0);
  for (int m = 1; m < incomplete_max_terms; ++m) {
    const R mr = R(m), m2 = R(2 * m);
    step(mr * (b - mr) * x, (qam + m2) * (a + m2));  // d_2m
    renormalize();
    const S h_even = over_unit(a_cur, b_cur);
    step(-((a + mr) * (qab + mr) * x), (a + m2) * (qap + m2));  // d_(2m+1)
    renormalize();
    h = over_unit(a_cur, b_cur);
    // Consecutive approximants, as Lentz's test compares them: they lie on
    // either side of the limit, where approximants two apart lie on one side
    // and can agree long before they reach it.
    if (!value_done && value_settled(h, h_even)) {
      value_done = true;
      value = value_of(h);
    }
    if (value_done && derivative_settled(h, h_even)) return with_value(h, value);
  }
  return S(not_a_number<R>());
}

// log(x^a y^b / B(a, b)), y = 1 - x. log x is log1p(-y) when x > 1/2 (and
// log y likewise), since log of a number near 1 magnifies its rounding.
// When both shapes are 10 or more, with s = a + b, x0 = a / s, y0 = b / s:
//   a log(x / x0) + b log(y / y0) + log(a b / s) / 2 - log(2 pi) / 2
//     - stirling_delta(a) - stirling_delta(b) + stirling_delta(s)
// (Stirling's series for the three lgamma; the form of DiDonato & Morris,
// ACM TOMS 18 (1992) 360-373, "brcomp"), and near the peak, where
// |x / x0 - 1| and |y / y0 - 1| are at most 1/2,
//   a log(x / x0) + b log(y / y0) = a (log1p(ta) - ta) + b (log1p(tb) - tb),
// ta = x / x0 - 1, tb = y / y0 - 1 (a ta + b tb = 0): no term is larger than
// the result, where a log x + b log y - lbeta(a, b) cancels terms of size a + b.
template <class S>
FLUXION_HOST_DEVICE S log_beta_power_terms(S a, S b, S x, S y) {
  using R = real_of<S>;
  const S lx = value_of(x) < R(0.5) ? log(x) : log1p(-y);
  const S ly = value_of(y) < R(0.5) ? log(y) : log1p(-x);
  if (value_of(a) < R(10) || value_of(b) < R(10)) return a * lx + b * ly - lbeta(a, b);
  const S s = a + b;
  const S e = (x * b - y * a) / s;  // x - x0 = -(y - y0)
  const S ta = e * s / a, tb = -e * s / b;
  const R ta_v = value_of(ta), tb_v = value_of(tb);
  const bool near_peak = ta_v >= R(-0.5) && ta_v <= R(0.5) && tb_v >= R(-0.5) && tb_v <= R(0.5);
  const S main = near_peak ? a * log1p_minus(ta) + b * log1p_minus(tb)
                           : a * (lx - log(a / s)) + b * (ly - log(b / s));
  return main + R(0.5) * log(a * b / s) - R(half_log_two_pi) -
         (stirling_delta(a) + stirling_delta(b) - stirling_delta(s));
}

// log(x^a y^b / (a B(a, b)) * continued fraction), x < (a + 1) / (a + b + 2).
template <class S>
FLUXION_HOST_DEVICE S log_beta_lower_cf(S a, S b, S x, S y) {
  return log_beta_power_terms(a, b, x, y) - log(a) + log(beta_continued_fraction(a, b, x));
}

// {log I_x(a, b), log(1 - I_x(a, b))} for a, b > 0, 0 <= x <= 1, y = 1 - x.
template <class S>
FLUXION_HOST_DEVICE_CALL log_pair<S> log_beta_i(S a, S b, S x, S y) {
  using R = real_of<S>;
  if (!(value_of(a) > R(0)) || !(value_of(b) > R(0)) || !(value_of(x) >= R(0)) || !(value_of(y) >= R(0)))
    return {S(not_a_number<R>()), S(not_a_number<R>())};
  if (value_of(x) == R(0)) return {S(-infinity<R>()), S(R(0))};
  if (value_of(y) == R(0)) return {S(R(0)), S(-infinity<R>())};
  // One call, its arguments in the order in which the fraction converges,
  // rather than a call in each branch: the lanes of a GPU warp that
  // disagree on the order (trajectories with means on either side of the
  // count) then run the fraction and its prefactor once, not twice.
  const bool direct = value_of(x) * (value_of(a) + value_of(b) + R(2)) < value_of(a) + R(1);
  const S tail = log_beta_lower_cf(direct ? a : b, direct ? b : a, direct ? x : y, direct ? y : x);
  const S rest = log1m_exp(tail);
  return direct ? log_pair<S>{tail, rest} : log_pair<S>{rest, tail};
}

}  // namespace fluxion::math::special
