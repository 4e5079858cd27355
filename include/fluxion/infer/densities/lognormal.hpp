#pragma once
// The log-normal observation density: log y ~ normal(mu, sigma), y > 0,
// sigma > 0 (mu and sigma are the mean and sd of log y).
//
//   log p(y)       = normal log p(log y | mu, sigma) - log y
//   log P(Y <= y)  = normal log P(log Y <= log y | mu, sigma)
//
// so the derivatives in mu and sigma are the normal ones at log y. For
// y <= 0: log p = -inf, log P(Y <= y) = -inf, log P(Y > y) = 0, derivatives 0.
//
// log_density works for float, double and (host) std::complex<double>
// parameters; the CDFs and every *_partials function for float and double.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/densities/normal.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct lognormal {
  static constexpr const char* name = "lognormal";
  static constexpr data_kind data = data_kind::positive;
  static constexpr bool discrete = false;
  enum parameter : int { mu = 0, sigma = 1 };
  static constexpr int parameter_count = 2;

  template <class T>
  FLUXION_HOST_DEVICE static T log_density(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!(sp::value_of(s) > R(0))) return sp::not_a_number<T>();
    if (!(y > R(0))) return -sp::infinity<T>();
    const R log_y = sp::log(y);
    return normal::log_density<T>(log_y, m, s) - T(log_y);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_density_partials(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    if (s > T(0) && !(y > T(0))) return {-sp::infinity<T>(), {T(0), T(0)}};
    const T log_y = sp::log(y);
    partials<T, 2> r = normal::log_density_partials(log_y, m, s);
    r.value -= log_y;
    return r;
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    if (s > T(0) && !(y > T(0))) return -sp::infinity<T>();
    return normal::log_cdf(sp::log(y), m, s);
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    if (s > T(0) && !(y > T(0))) return T(0);
    return normal::log_ccdf(sp::log(y), m, s);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_cdf_partials(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    if (s > T(0) && !(y > T(0))) return {-sp::infinity<T>(), {T(0), T(0)}};
    return normal::log_cdf_partials(sp::log(y), m, s);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_ccdf_partials(math::special::real_of<T> y, T m, T s) {
    namespace sp = math::special;
    if (s > T(0) && !(y > T(0))) return {T(0), {T(0), T(0)}};
    return normal::log_ccdf_partials(sp::log(y), m, s);
  }
};

}  // namespace fluxion
