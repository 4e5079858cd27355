#pragma once
// The beta-binomial observation density: y ~ binomial(n, q) with
// q ~ beta(p kappa, (1 - p) kappa): n trials (a count, data), mean
// probability p in (0, 1) and concentration kappa > 0, so that
//   E y = n p,   Var y = n p (1 - p) (n + kappa) / (1 + kappa)
// (kappa -> inf is binomial(n, p); the same parameters as
// fx::sample_beta_binomial). With a = p kappa and b = (1 - p) kappa:
//
//   log p(y)  = log C(n, y) + lbeta(y + a, n - y + b) - lbeta(a, b)
//             = log C(n, y) + lrising(a, y) + lrising(b, n - y) - lrising(a + b, n)
//   (lrising(x, k) = log Gamma(x + k) - log Gamma(x)); when a, b >= 10 the
//   parts k log x of the rising factorials make up the binomial(y | n, p)
//   pmf, evaluated in Loader's form (detail/saddle_point.hpp), and what is
//   left of each is of size k^2 / x: no large terms cancel as kappa grows.
//   d/d a     = [psi(y + a) - psi(a)] - [psi(n + a + b) - psi(a + b)]
//   d/d b     = [psi(n - y + b) - psi(b)] - [psi(n + a + b) - psi(a + b)]
//   d/d p     = kappa (d/d a - d/d b),   d/d kappa = p d/d a + (1 - p) d/d b
//
// The CDF has no closed form in elementary or incomplete-beta terms (it is a
// 3F2 hypergeometric function), so both tails are sums of the pmf over
// j = 0..n: the pmf by its ratio recurrence
//   p(j + 1) / p(j) = (n - j) (j + a) / ((j + 1) (n - j - 1 + b)),
// its log-derivatives in a and b by d log p(j + 1) = d log p(j) + 1 / (j + a)
// and - 1 / (n - j - 1 + b), summed in logarithms with a running maximum,
// and each tail divided by the sum of both (so each is accurate where it is
// small). Cost O(n): meant for the modest n of surveys and test panels.
//
// Parameters outside their domain give NaN; y outside [0, n] gives -inf.
// log_density works for float, double and (host) std::complex<double>
// parameters; the CDFs and every *_partials function for float and double.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/saddle_point.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct beta_binomial {
  static constexpr const char* name = "beta_binomial";
  static constexpr data_kind data = data_kind::count;
  static constexpr bool discrete = true;
  enum parameter : int { probability = 0, concentration = 1 };
  static constexpr int parameter_count = 2;

  template <class T>
  FLUXION_HOST_DEVICE static T log_density(math::special::real_of<T> y, math::special::real_of<T> n, T p,
                                           T kappa) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!valid(n, sp::value_of(p), sp::value_of(kappa))) return sp::not_a_number<T>();
    if (!(y >= R(0) && y <= n)) return -sp::infinity<T>();
    const T q = R(1) - p, a = p * kappa, b = q * kappa;
    const R m = n - y;
    if (sp::value_of(a) >= R(10) && sp::value_of(b) >= R(10))  // binomial(y | n, p) and small corrections
      return sp::log_binomial_raw(T(y), T(m), p, q) + rising_rest(a, y) + rising_rest(b, m) - rising_rest(a + b, n);
    return T(sp::lchoose(n, y)) + sp::lrising(a, y) + sp::lrising(b, m) - sp::lrising(a + b, n);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_density_partials(math::special::real_of<T> y,
                                                                 math::special::real_of<T> n, T p, T kappa) {
    namespace sp = math::special;
    const T value = log_density<T>(y, n, p, kappa);
    if (value == -sp::infinity<T>()) return {value, {T(0), T(0)}};
    const T a = p * kappa, b = (T(1) - p) * kappa;
    const T common = sp::digamma_diff(a + b, n);
    const T d_a = sp::digamma_diff(a, y) - common;
    const T d_b = sp::digamma_diff(b, n - y) - common;
    return {value, {kappa * (d_a - d_b), p * d_a + (T(1) - p) * d_b}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> c, math::special::real_of<T> n, T p, T kappa) {
    return log_cdf_partials<T>(c, n, p, kappa).value;
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> c, math::special::real_of<T> n, T p, T kappa) {
    return log_ccdf_partials<T>(c, n, p, kappa).value;
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_cdf_partials(math::special::real_of<T> c,
                                                             math::special::real_of<T> n, T p, T kappa) {
    return tail_partials(c, n, p, kappa, false);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_ccdf_partials(math::special::real_of<T> c,
                                                              math::special::real_of<T> n, T p, T kappa) {
    return tail_partials(c, n, p, kappa, true);
  }

 private:
  // lrising(x, k) - k log x for x >= 10, of size k^2 / x:
  // (x + k - 1/2) (log1p(k / x) - k / x) + k (k - 1/2) / x + delta(x + k) - delta(x).
  template <class T, class R>
  FLUXION_HOST_DEVICE static T rising_rest(T x, R k) {
    namespace sp = math::special;
    if (k == R(0)) return T(0);
    const T t = R(k) / x;
    return (x + (k - R(0.5))) * sp::log1p_minus(t) + t * (k - R(0.5)) + (sp::stirling_delta(x + k) - sp::stirling_delta(x));
  }

  template <class R>
  FLUXION_HOST_DEVICE static bool valid(R n, R p, R kappa) {
    return n >= R(0) && p > R(0) && p < R(1) && kappa > R(0);
  }

  // A sum of e^(l_j) and of e^(l_j) g_j (g the log-derivatives in a and b),
  // kept as e^m (s, sa, sb) with m the largest l_j so far.
  template <class T>
  struct log_sum {
    T m = -math::special::infinity<T>();
    T s = T(0), sa = T(0), sb = T(0);

    FLUXION_HOST_DEVICE void add(T l, T ga, T gb) {
      if (l > m) {
        const T scale = math::special::exp(m - l);  // 0 for the first term
        s = s * scale + T(1);
        sa = sa * scale + ga;
        sb = sb * scale + gb;
        m = l;
      } else {
        const T w = math::special::exp(l - m);
        s += w;
        sa += w * ga;
        sb += w * gb;
      }
    }
    FLUXION_HOST_DEVICE T log_value() const { return m + math::special::log(s); }
  };

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> tail_partials(T c, T n, T p, T kappa, bool upper) {
    namespace sp = math::special;
    const T nan = sp::not_a_number<T>(), inf = sp::infinity<T>();
    if (!valid(n, p, kappa) || sp::is_nan(c)) return {nan, {nan, nan}};
    const T k = sp::floor(c);
    if (k < T(0)) return {upper ? T(0) : -inf, {T(0), T(0)}};
    if (k >= n) return {upper ? -inf : T(0), {T(0), T(0)}};
    const T a = p * kappa, b = (T(1) - p) * kappa;
    // j = 0: log p(0) = lbeta(a, n + b) - lbeta(a, b) = sum_{i < n} log1p(-a / (a + b + i))
    // (each term accurate; the sum costs no more than the loop below), and its derivatives.
    T l = T(0);
    for (T i = T(0); i < n; i += T(1)) l += sp::log1p(-a / (a + b + i));
    const T common = sp::digamma_diff(a + b, n);
    T ga = -common, gb = sp::digamma_diff(b, n) - common;
    log_sum<T> lower_sum, upper_sum;
    for (T j = T(0); j <= n; j += T(1)) {
      (j <= k ? lower_sum : upper_sum).add(l, ga, gb);
      if (j == n) break;
      const T nj = n - j - T(1) + b;  // n - (j + 1) + b
      l += sp::log((n - j) / (j + T(1))) + sp::log((j + a) / nj);
      ga += T(1) / (j + a);
      gb -= T(1) / nj;
    }
    const log_sum<T>& side = upper ? upper_sum : lower_sum;
    const T l_side = side.log_value(), l_total = sp::log_sum_exp(lower_sum.log_value(), upper_sum.log_value());
    // d log(side / total) = side' / side - total' / total
    const T s_total = lower_sum.s * sp::exp(lower_sum.m - l_total) + upper_sum.s * sp::exp(upper_sum.m - l_total);
    const T ga_total = (lower_sum.sa * sp::exp(lower_sum.m - l_total) + upper_sum.sa * sp::exp(upper_sum.m - l_total)) / s_total;
    const T gb_total = (lower_sum.sb * sp::exp(lower_sum.m - l_total) + upper_sum.sb * sp::exp(upper_sum.m - l_total)) / s_total;
    const T d_a = side.sa / side.s - ga_total, d_b = side.sb / side.s - gb_total;
    return {l_side - l_total, {kappa * (d_a - d_b), p * d_a + (T(1) - p) * d_b}};
  }
};

}  // namespace fluxion
