#pragma once
// Priors on scalar parameters: log densities (with their normalizing
// constants) and their derivatives with respect to the parameter, and the
// transform of each prior's support to the unconstrained line
// (fluxion/infer/transforms.hpp).
//
//   prior                                  support           transform()
//   normal_prior{mean, sd}                 R                 identity_transform
//   lognormal_prior{mu, sigma}             (0, inf)          log_transform{0}
//   half_normal_prior{sd}                  [0, inf)          log_transform{0}
//   gamma_prior{shape, rate}               (0, inf)          log_transform{0}      mean shape / rate
//   beta_prior{a, b}                       (0, 1)            logit_transform{0, 1}
//   uniform_prior{lower, upper}            [lower, upper]    logit_transform{lower, upper}
//   truncated_normal_prior{mean, sd, lower, upper}
//                                          [lower, upper]    bounds_transform{lower, upper} (bounds may be infinite)
//
// Each has log_density(x) and log_density_partials(x) (fx::partials<T, 1>,
// grad[0] = d/dx), templated on the scalar type of x (float, double, and
// std::complex<double> on the host); hyperparameters are real numbers
// (class template argument deduction: fx::gamma_prior{2.0, 0.5}). Outside
// the support the log density is -inf with derivative 0; invalid
// hyperparameters give NaN.
//
// With x = f(u) from the prior's transform, the log-density of the
// unconstrained u is log p(f(u)) + log |f'(u)|, whose derivative is
// p'/p (f(u)) f'(u) + d/du log |f'(u)|: every factor is given here.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/densities/normal.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/infer/transforms.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

template <class R>
struct normal_prior {
  R mean;
  R sd;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(sd > R(0))) return sp::not_a_number<T>();
    const T z = (x - T(mean)) / T(sd);
    return R(-0.5) * z * z - T(sp::log(sd) + R(sp::half_log_two_pi));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    return {log_density(x), {-(x - T(mean)) / T(sd * sd)}};
  }
  FLUXION_HOST_DEVICE identity_transform transform() const { return {}; }
};

template <class R>
struct lognormal_prior {
  R mu;
  R sigma;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(sigma > R(0))) return sp::not_a_number<T>();
    if (!(sp::value_of(x) > 0)) return -sp::infinity<T>();
    const T log_x = sp::log(x);
    const T z = (log_x - T(mu)) / T(sigma);
    return R(-0.5) * z * z - log_x - T(sp::log(sigma) + R(sp::half_log_two_pi));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    namespace sp = math::special;
    const T value = log_density(x);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    const T z = (sp::log(x) - T(mu)) / T(sigma);
    return {value, {-(z / T(sigma) + T(1)) / x}};
  }
  FLUXION_HOST_DEVICE log_transform<R> transform() const { return {R(0)}; }
};

template <class R>
struct half_normal_prior {
  R sd;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(sd > R(0))) return sp::not_a_number<T>();
    if (!(sp::value_of(x) >= 0)) return -sp::infinity<T>();
    const T z = x / T(sd);
    return R(-0.5) * z * z + T(R(sp::ln2) - sp::log(sd) - R(sp::half_log_two_pi));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    namespace sp = math::special;
    const T value = log_density(x);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    return {value, {-x / T(sd * sd)}};
  }
  FLUXION_HOST_DEVICE log_transform<R> transform() const { return {R(0)}; }
};

// Gamma(shape, rate): density rate^shape x^(shape - 1) e^(-rate x) / Gamma(shape).
template <class R>
struct gamma_prior {
  R shape;
  R rate;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(shape > R(0)) || !(rate > R(0))) return sp::not_a_number<T>();
    if (!(sp::value_of(x) > 0)) return -sp::infinity<T>();
    return T(shape - R(1)) * sp::log(x) - T(rate) * x + T(shape * sp::log(rate) - sp::lgamma(shape));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    namespace sp = math::special;
    const T value = log_density(x);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    return {value, {T(shape - R(1)) / x - T(rate)}};
  }
  FLUXION_HOST_DEVICE log_transform<R> transform() const { return {R(0)}; }
};

template <class R>
struct beta_prior {
  R a;
  R b;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(a > R(0)) || !(b > R(0))) return sp::not_a_number<T>();
    if (!(sp::value_of(x) > 0 && sp::value_of(x) < 1)) return -sp::infinity<T>();
    return T(a - R(1)) * sp::log(x) + T(b - R(1)) * sp::log1p(-x) - T(sp::lbeta(a, b));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    namespace sp = math::special;
    const T value = log_density(x);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    return {value, {T(a - R(1)) / x - T(b - R(1)) / (T(1) - x)}};
  }
  FLUXION_HOST_DEVICE logit_transform<R> transform() const { return {R(0), R(1)}; }
};

template <class R>
struct uniform_prior {
  R lower;
  R upper;

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(lower < upper)) return sp::not_a_number<T>();
    if (!(sp::value_of(x) >= lower && sp::value_of(x) <= upper)) return -sp::infinity<T>();
    return T(-sp::log(upper - lower));
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    return {log_density(x), {T(0)}};
  }
  FLUXION_HOST_DEVICE logit_transform<R> transform() const { return {lower, upper}; }
};

// normal(mean, sd) restricted to [lower, upper] (either may be infinite) and
// renormalized by log(Phi(beta) - Phi(alpha)), computed as a censored
// interval probability, stable in the tails.
template <class R>
struct truncated_normal_prior {
  R mean;
  R sd;
  R lower = -math::special::infinity<R>();
  R upper = math::special::infinity<R>();

  template <class T>
  FLUXION_HOST_DEVICE T log_density(T x) const {
    namespace sp = math::special;
    if (!(sd > R(0)) || !(lower < upper)) return sp::not_a_number<T>();
    if (!(sp::value_of(x) >= lower && sp::value_of(x) <= upper)) return -sp::infinity<T>();
    const T z = (x - T(mean)) / T(sd);
    const R mass = log_interval_probability<normal>(lower, upper, mean, sd);
    return R(-0.5) * z * z - T(sp::log(sd) + R(sp::half_log_two_pi) + mass);
  }
  template <class T>
  FLUXION_HOST_DEVICE partials<T, 1> log_density_partials(T x) const {
    namespace sp = math::special;
    const T value = log_density(x);
    if (value == -sp::infinity<T>()) return {value, {T(0)}};
    return {value, {-(x - T(mean)) / T(sd * sd)}};
  }
  FLUXION_HOST_DEVICE bounds_transform<R> transform() const { return {lower, upper}; }
};

}  // namespace fluxion
