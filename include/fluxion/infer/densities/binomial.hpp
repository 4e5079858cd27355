#pragma once
// The binomial observation density, y ~ binomial(n trials, probability p),
// 0 <= p <= 1, n a count (data, passed as a real number), 0 <= y <= n.
//
//   log p(y)        = log C(n, y) + y log p + (n - y) log(1 - p)
//   d/d p           = y / p - (n - y) / (1 - p)   (a term whose count is 0 is 0)
//   P(Y <= c)       = I_(1-p)(n - k, k + 1),  k = floor(c), 0 <= k < n
//   d/d p of P(Y <= c) = -(n - k) p(k) / (1 - p)
//
// with I the regularized incomplete beta function
// (detail/incomplete_beta.hpp), each tail accurate where it is small.
// log p(y) is evaluated in Loader's saddle-point form
// (detail/saddle_point.hpp), whose terms are no larger than the result.
//
// p outside [0, 1], a negative n or NaN give NaN; y outside [0, n] gives -inf.
// log_density works for float, double and (host) std::complex<double> p; the
// CDFs and every *_partials function for float and double. Derivatives where
// the log probability is -inf are 0.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/incomplete_beta.hpp>
#include <fluxion/math/saddle_point.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct binomial {
  static constexpr const char* name = "binomial";
  static constexpr data_kind data = data_kind::count;
  static constexpr bool discrete = true;
  enum parameter : int { probability = 0 };
  static constexpr int parameter_count = 1;

  template <class T>
  FLUXION_HOST_DEVICE static T log_density(math::special::real_of<T> y, math::special::real_of<T> n, T p) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!(n >= R(0)) || !(sp::value_of(p) >= R(0) && sp::value_of(p) <= R(1))) return sp::not_a_number<T>();
    if (!(y >= R(0) && y <= n)) return -sp::infinity<T>();
    if (sp::value_of(p) == R(0)) return y == R(0) ? T(0) : -sp::infinity<T>();
    if (sp::value_of(p) == R(1)) return y == n ? T(0) : -sp::infinity<T>();
    return sp::log_binomial_raw(T(y), T(n - y), p, T(1) - p);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_density_partials(math::special::real_of<T> y,
                                                                 math::special::real_of<T> n, T p) {
    namespace sp = math::special;
    const T value = log_density<T>(y, n, p);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    const T success = y == T(0) ? T(0) : y / p;
    const T failure = n - y == T(0) ? T(0) : (n - y) / (T(1) - p);
    return {value, {success - failure}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> c, math::special::real_of<T> n, T p) {
    return tails(c, n, p).lower;
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> c, math::special::real_of<T> n, T p) {
    return tails(c, n, p).upper;
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_cdf_partials(math::special::real_of<T> c,
                                                             math::special::real_of<T> n, T p) {
    return tail_partials(c, n, p, false);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_ccdf_partials(math::special::real_of<T> c,
                                                              math::special::real_of<T> n, T p) {
    return tail_partials(c, n, p, true);
  }

 private:
  // {log P(Y <= c), log P(Y > c)}
  template <class T>
  FLUXION_HOST_DEVICE static math::special::log_pair<T> tails(T c, T n, T p) {
    namespace sp = math::special;
    if (!(n >= T(0)) || !(p >= T(0) && p <= T(1)) || sp::is_nan(c)) return {sp::not_a_number<T>(), sp::not_a_number<T>()};
    const T k = sp::floor(c);
    if (k < T(0)) return {-sp::infinity<T>(), T(0)};
    if (k >= n || p == T(0)) return {T(0), -sp::infinity<T>()};
    if (p == T(1)) return {-sp::infinity<T>(), T(0)};
    return sp::log_beta_i(n - k, k + T(1), T(1) - p, p);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> tail_partials(T c, T n, T p, bool upper) {
    namespace sp = math::special;
    const auto both = tails(c, n, p);
    const T l = upper ? both.upper : both.lower;
    if (l == -sp::infinity<T>() || sp::is_nan(l)) return {l, {l == l ? T(0) : l}};
    const T k = sp::floor(c);
    if (k < T(0) || k >= n) return {l, {T(0)}};
    // d/d p of P(Y <= c) = -(n - k) p(k) / (1 - p)
    const T rate = (n - k) * sp::exp(log_density<T>(k, n, p) - l) / (T(1) - p);
    return {l, {upper ? rate : -rate}};
  }
};

}  // namespace fluxion
