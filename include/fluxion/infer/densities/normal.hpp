#pragma once
// The normal observation density, y ~ normal(mean, sd), sd > 0.
//
//   log p(y)        = -z^2 / 2 - log sd - log(2 pi) / 2,   z = (y - mean) / sd
//   d/d mean        = z / sd
//   d/d sd          = (z^2 - 1) / sd
//   log P(Y <= y)   = log Phi(z)       d/d mean = -r(z) / sd,   d/d sd = -z r(z) / sd
//   log P(Y > y)    = log Phi(-z)      d/d mean =  r(-z) / sd,  d/d sd =  z r(-z) / sd
//
// with r = phi / Phi, evaluated through the scaled complementary error
// function so that the lower tail stays finite and accurate (log Phi(-40) =
// -804.608...; detail/error_function.hpp). A non-positive or NaN sd gives NaN.
//
// log_density works for float, double and (host) std::complex<double>
// parameters; the CDFs and every *_partials function for float and double.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/error_function.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct normal {
  static constexpr const char* name = "normal";
  static constexpr data_kind data = data_kind::real;
  static constexpr bool discrete = false;
  enum parameter : int { mean = 0, sd = 1 };
  static constexpr int parameter_count = 2;

  template <class T>
  FLUXION_HOST_DEVICE static T log_density(math::special::real_of<T> y, T mu, T sigma) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!(sp::value_of(sigma) > R(0))) return sp::not_a_number<T>();
    const T z = (T(y) - mu) / sigma;
    return R(-0.5) * z * z - sp::log(sigma) - T(R(sp::half_log_two_pi));
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_density_partials(math::special::real_of<T> y, T mu, T sigma) {
    namespace sp = math::special;
    if (!(sigma > T(0))) return {sp::not_a_number<T>(), {sp::not_a_number<T>(), sp::not_a_number<T>()}};
    const T z = (y - mu) / sigma;
    return {T(-0.5) * z * z - sp::log(sigma) - T(sp::half_log_two_pi), {z / sigma, (z * z - T(1)) / sigma}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> y, T mu, T sigma) {
    namespace sp = math::special;
    if (!(sigma > T(0))) return sp::not_a_number<T>();
    return sp::log_ndtr((y - mu) / sigma);
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> y, T mu, T sigma) {
    namespace sp = math::special;
    if (!(sigma > T(0))) return sp::not_a_number<T>();
    return sp::log_ndtr((mu - y) / sigma);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_cdf_partials(math::special::real_of<T> y, T mu, T sigma) {
    return tail_partials((y - mu) / sigma, sigma, T(1), sigma > T(0));
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_ccdf_partials(math::special::real_of<T> y, T mu, T sigma) {
    return tail_partials((y - mu) / sigma, sigma, T(-1), sigma > T(0));
  }

 private:
  // log Phi(side z) and its derivatives in mean and sd, side = +1 (CDF) or -1 (CCDF).
  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> tail_partials(T z, T sigma, T side, bool valid) {
    namespace sp = math::special;
    if (!valid) return {sp::not_a_number<T>(), {sp::not_a_number<T>(), sp::not_a_number<T>()}};
    const T w = side * z;
    if (sp::is_inf(w)) return {w > T(0) ? T(0) : -sp::infinity<T>(), {T(0), T(0)}};
    const T r = sp::normal_hazard_ratio(w);  // d log Phi(w) / dw
    // dw/d mean = -side / sd, dw/d sd = -w / sd
    return {sp::log_ndtr(w), {-side * r / sigma, -w * r / sigma}};
  }
};

}  // namespace fluxion
