#pragma once
// The Poisson observation density, y ~ Poisson(mean), mean >= 0, y a count.
//
//   log p(y)        = y log mean - mean - lgamma(y + 1)
//   d/d mean        = y / mean - 1
//   log P(Y <= c)   = log Q(k + 1, mean),  k = floor(c)
//   log P(Y > c)    = log P(k + 1, mean)
//   d/d mean of P(Y <= c) = -p(k), so d log P(Y <= c) = -p(k) / P(Y <= c)
//   and d log P(Y > c) = p(k) / P(Y > c).
//
// P and Q are the regularized incomplete gamma functions
// (detail/incomplete_gamma.hpp), each accurate where it is small, so that the
// far upper tail P(Y > 400 | mean 10) = e^-1093 stays finite in logs. log p(y)
// is written in Loader's saddle-point form (detail/saddle_point.hpp),
//   -stirlerr(y) - log(2 pi y) / 2 - bd0(y, mean),  bd0(y, m) = y log(y / m) + m - y,
// which keeps its digits where y log mean, mean and lgamma(y + 1) are each
// large (counts of 10^4 in float).
//
// A negative or NaN mean gives NaN; a negative y gives -inf (y is data: it is
// not checked to be an integer here, see fx::check_observations). Counts are
// passed as real numbers of the scalar type (exact in float up to 2^24).
//
// log_density works for float, double and (host) std::complex<double> means;
// the CDFs and every *_partials function for float and double.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/incomplete_gamma.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/saddle_point.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct poisson {
  static constexpr const char* name = "poisson";
  static constexpr data_kind data = data_kind::count;
  static constexpr bool discrete = true;
  enum parameter : int { mean = 0 };
  static constexpr int parameter_count = 1;

  template <class T>
  FLUXION_HOST_DEVICE static T log_density(math::special::real_of<T> y, T lambda) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!(sp::value_of(lambda) >= R(0))) return sp::not_a_number<T>();
    if (y < R(0)) return -sp::infinity<T>();
    if (sp::value_of(lambda) == R(0)) return y == R(0) ? T(0) : -sp::infinity<T>();
    if (y == R(0)) return -lambda;
    return sp::log_poisson_raw(T(y), lambda);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_density_partials(math::special::real_of<T> y, T lambda) {
    namespace sp = math::special;
    const T value = log_density<T>(y, lambda);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    return {value, {y == T(0) ? T(-1) : y / lambda - T(1)}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> c, T lambda) {
    return tails(c, lambda).upper;
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> c, T lambda) {
    return tails(c, lambda).lower;
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_cdf_partials(math::special::real_of<T> c, T lambda) {
    namespace sp = math::special;
    const T l = log_cdf<T>(c, lambda);
    if (l == -sp::infinity<T>() || !(c >= T(0)) || sp::is_inf(c)) return {l, {T(0)}};
    return {l, {-sp::exp(log_density<T>(sp::floor(c), lambda) - l)}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 1> log_ccdf_partials(math::special::real_of<T> c, T lambda) {
    namespace sp = math::special;
    const T l = log_ccdf<T>(c, lambda);
    if (l == -sp::infinity<T>() || !(c >= T(0)) || sp::is_inf(c)) return {l, {T(0)}};
    return {l, {sp::exp(log_density<T>(sp::floor(c), lambda) - l)}};
  }

 private:
  // {log P(Y > c), log P(Y <= c)} as {P(k + 1, mean), Q(k + 1, mean)}.
  template <class T>
  FLUXION_HOST_DEVICE static math::special::log_pair<T> tails(T c, T lambda) {
    namespace sp = math::special;
    if (!(lambda >= T(0)) || sp::is_nan(c)) return {sp::not_a_number<T>(), sp::not_a_number<T>()};
    if (c < T(0)) return {T(0), -sp::infinity<T>()};
    if (lambda == T(0) || sp::is_inf(c)) return {-sp::infinity<T>(), T(0)};
    return sp::log_gamma_pq(sp::floor(c) + T(1), lambda);
  }
};

}  // namespace fluxion
