#pragma once
// Censored observations under any observation density of
// fluxion/infer/densities.hpp.
//
// Convention (Stan's, for discrete and continuous data alike): every
// observation says that Y lies in a half-open interval (lower, upper]:
//
//   censoring::none      Y = y              log p(y)                 (a density or pmf)
//   censoring::left      Y <= c             log P(Y <= c)            = Family::log_cdf(c)
//   censoring::right     Y > c              log P(Y > c)             = Family::log_ccdf(c)
//   censoring::interval  a < Y <= b         log(P(Y <= b) - P(Y <= a))
//
// For counts the strict inequality matters: "at least c cases" is right
// censoring at c - 1, "at most c" is left censoring at c, and an interval
// report "between 10 and 19 cases" is (9, 19]. Bounds of discrete families
// are floored. For continuous data open and closed ends are the same.
//
// The interval probability is computed in logarithms on the side where it
// does not cancel: from the two log CDFs when b is below the median, from
// the two log CCDFs when a is above it (log-diff-exp; an interval far in the
// upper tail, e.g. (40, 41] under normal(0, 1), stays finite), and as
// log(F(b) + S(a) - 1) when the interval holds the median. Derivatives
// follow by d log(F_b - F_a) = (F_b d log F_b - F_a d log F_a) / (F_b - F_a).
// An empty interval (b <= a) gives -inf with derivatives 0.
//
//   auto obs = fx::observation<double>::right(99);          // Y > 99
//   double l = fx::log_likelihood<fx::poisson>(obs, mean);
//   auto lp  = fx::log_likelihood_partials<fx::neg_binomial_2>(obs, mu, phi);
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

enum class censoring : unsigned char { none = 0, left = 1, right = 2, interval = 3 };

template <class R>
struct observation {
  censoring kind = censoring::none;
  R value = R(0);  // y (none); c (left: Y <= c; right: Y > c); a (interval: a < Y <= b)
  R upper = R(0);  // b (interval)

  FLUXION_HOST_DEVICE static constexpr observation exact(R y) { return {censoring::none, y, R(0)}; }
  FLUXION_HOST_DEVICE static constexpr observation left(R c) { return {censoring::left, c, R(0)}; }
  FLUXION_HOST_DEVICE static constexpr observation right(R c) { return {censoring::right, c, R(0)}; }
  FLUXION_HOST_DEVICE static constexpr observation interval(R a, R b) { return {censoring::interval, a, b}; }
};

// log P(lower < Y <= upper).
template <class Family, class R, class... Args>
FLUXION_HOST_DEVICE_CALL auto log_interval_probability(R lower, R upper, Args... args) {
  namespace sp = math::special;
  using T = decltype(Family::log_cdf(upper, args...));
  if (sp::is_nan(lower) || sp::is_nan(upper)) return sp::not_a_number<T>();
  if (!(lower < upper)) return -sp::infinity<T>();
  if (lower == -sp::infinity<R>()) return Family::log_cdf(upper, args...);
  if (upper == sp::infinity<R>()) return Family::log_ccdf(lower, args...);
  const T cdf_upper = Family::log_cdf(upper, args...);
  if (cdf_upper <= T(-sp::ln2)) return sp::log_diff_exp(cdf_upper, Family::log_cdf(lower, args...));
  const T ccdf_lower = Family::log_ccdf(lower, args...);
  if (ccdf_lower <= T(-sp::ln2)) return sp::log_diff_exp(ccdf_lower, Family::log_ccdf(upper, args...));
  // Both above 1/2: P = F(b) + S(a) - 1, no cancellation beyond what the width implies.
  const T p = sp::exp(cdf_upper) + sp::expm1(ccdf_lower);
  return p > T(0) ? sp::log(p) : (p == p ? -sp::infinity<T>() : p);
}

// log P(lower < Y <= upper) and its derivatives in the family's parameters.
template <class Family, class R, class... Args>
FLUXION_HOST_DEVICE_CALL auto log_interval_probability_partials(R lower, R upper, Args... args) {
  namespace sp = math::special;
  using P = decltype(Family::log_cdf_partials(upper, args...));
  using T = decltype(P::value);
  constexpr int n = P::size;
  P out{};
  if (sp::is_nan(lower) || sp::is_nan(upper)) {
    out.value = sp::not_a_number<T>();
    for (int i = 0; i < n; ++i) out.grad[i] = out.value;
    return out;
  }
  if (!(lower < upper)) {
    out.value = -sp::infinity<T>();
    for (int i = 0; i < n; ++i) out.grad[i] = T(0);
    return out;
  }
  if (lower == -sp::infinity<R>()) return Family::log_cdf_partials(upper, args...);
  if (upper == sp::infinity<R>()) return Family::log_ccdf_partials(lower, args...);
  // out = log(e^hi - e^lo) (a difference of two CDFs or of two CCDFs) or
  // log(e^hi + e^lo - 1) (F(b) + S(a) - 1); its gradient is
  // (e^hi hi.grad -+ e^lo lo.grad) / e^out.
  const P cdf_upper = Family::log_cdf_partials(upper, args...);
  P hi{}, lo{};
  bool difference = true;
  if (cdf_upper.value <= T(-sp::ln2)) {
    hi = cdf_upper;  // F(b) - F(a)
    lo = Family::log_cdf_partials(lower, args...);
  } else {
    const P ccdf_lower = Family::log_ccdf_partials(lower, args...);
    if (ccdf_lower.value <= T(-sp::ln2)) {
      hi = ccdf_lower;  // S(a) - S(b)
      lo = Family::log_ccdf_partials(upper, args...);
    } else {
      hi = cdf_upper;  // F(b) + S(a) - 1
      lo = ccdf_lower;
      difference = false;
    }
  }
  if (difference) {
    out.value = sp::log_diff_exp(hi.value, lo.value);
  } else {
    const T p = sp::exp(hi.value) + sp::expm1(lo.value);
    out.value = p > T(0) ? sp::log(p) : (p == p ? -sp::infinity<T>() : p);
  }
  if (out.value == -sp::infinity<T>()) {
    for (int i = 0; i < n; ++i) out.grad[i] = T(0);
    return out;
  }
  const T w_hi = sp::exp(hi.value - out.value);
  const T w_lo = difference ? -sp::exp(lo.value - out.value) : sp::exp(lo.value - out.value);
  for (int i = 0; i < n; ++i) out.grad[i] = w_hi * hi.grad[i] + w_lo * lo.grad[i];
  return out;
}

// The log-likelihood of one observation, exact or censored.
template <class Family, class R, class... Args>
FLUXION_HOST_DEVICE auto log_likelihood(const observation<R>& obs, Args... args) {
  switch (obs.kind) {
    case censoring::left: return Family::log_cdf(obs.value, args...);
    case censoring::right: return Family::log_ccdf(obs.value, args...);
    case censoring::interval: return log_interval_probability<Family>(obs.value, obs.upper, args...);
    default: return Family::log_density(obs.value, args...);
  }
}

template <class Family, class R, class... Args>
FLUXION_HOST_DEVICE auto log_likelihood_partials(const observation<R>& obs, Args... args) {
  switch (obs.kind) {
    case censoring::left: return Family::log_cdf_partials(obs.value, args...);
    case censoring::right: return Family::log_ccdf_partials(obs.value, args...);
    case censoring::interval: return log_interval_probability_partials<Family>(obs.value, obs.upper, args...);
    default: return Family::log_density_partials(obs.value, args...);
  }
}

}  // namespace fluxion
