#pragma once
// The negative binomial observation density in Stan's neg_binomial_2
// parameterization: y ~ NB(mean mu, dispersion phi), mu >= 0, phi > 0,
// E y = mu, Var y = mu + mu^2 / phi (phi -> inf is Poisson(mu)).
//
//   log p(y)  = log C(y + phi - 1, y) + phi log(phi / (mu + phi)) + y log(mu / (mu + phi))
//   d/d mu    = phi (y - mu) / (mu (mu + phi))
//   d/d phi   = psi(y + phi) - psi(phi) - log1p(mu / phi) + (mu - y) / (mu + phi)
//
//   P(Y <= c) = I_p(phi, k + 1),  p = phi / (mu + phi),  k = floor(c)
//   d/d mu of P(Y <= c) = -p(k) (k + phi) / (mu + phi)
//   d/d phi of P(Y <= c): no closed form; the incomplete beta function's
//   continued fraction is differentiated in forward mode (dual numbers,
//   detail/dual.hpp), exact for the converged approximant.
//
// log p(y) is evaluated as R's dnbinom_mu does, p(y) = phi / (phi + y)
// binomial(phi | y + phi, phi / (mu + phi)) in Loader's saddle-point form
// (detail/saddle_point.hpp), so that large phi and large counts keep their
// digits (the textbook terms, of size y log mu and phi log phi, cancel);
// psi(y + phi) - psi(phi) is formed without cancellation
// (detail/gamma_functions.hpp). For large phi, d/d phi tends to 0 as
// 1 / phi^2 and keeps an absolute error of about eps (y + mu) / phi (a
// relative 1e-8 at phi = 1e6, mu = 2.5).
//
// Parameters outside their domain give NaN; a negative y gives -inf.
// log_density works for float, double and (host) std::complex<double>
// parameters; the CDFs and every *_partials function for float and double.
#include <fluxion/config/macros.hpp>
#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/math/dual.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/incomplete_beta.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/saddle_point.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

struct neg_binomial_2 {
  static constexpr const char* name = "neg_binomial_2";
  static constexpr data_kind data = data_kind::count;
  static constexpr bool discrete = true;
  enum parameter : int { mean = 0, dispersion = 1 };
  static constexpr int parameter_count = 2;

  // A call on the device, as is tail_partials: inlined at the seven places
  // that reach it (the exact term, each tail's rate, each side of an
  // interval), it tripled the SEIR adjoint's terms kernel, whose warps then
  // waited on instruction fetch (Nsight Compute, H100).
  template <class T>
  FLUXION_HOST_DEVICE_CALL static T log_density(math::special::real_of<T> y, T mu, T phi) {
    namespace sp = math::special;
    using R = sp::real_of<T>;
    if (!(sp::value_of(mu) >= R(0)) || !(sp::value_of(phi) > R(0))) return sp::not_a_number<T>();
    if (y < R(0)) return -sp::infinity<T>();
    if (sp::value_of(mu) == R(0)) return y == R(0) ? T(0) : -sp::infinity<T>();
    // As R's dnbinom_mu: p(y) = phi / (phi + y) binomial(phi | y + phi, phi / (mu + phi)).
    const T yt = T(y), total = mu + phi;
    return sp::log(phi / (phi + yt)) + sp::log_binomial_raw(phi, yt, phi / total, mu / total);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_density_partials(math::special::real_of<T> y, T mu, T phi) {
    namespace sp = math::special;
    const T value = log_density<T>(y, mu, phi);
    if (value == -sp::infinity<T>()) return {value, {T(0), T(0)}};
    const T d_mu = y == T(0) ? -phi / (mu + phi) : phi * (y - mu) / (mu * (mu + phi));
    const T d_phi = sp::digamma_diff(phi, y) - sp::log1p(mu / phi) + (mu - y) / (mu + phi);
    return {value, {d_mu, d_phi}};
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_cdf(math::special::real_of<T> c, T mu, T phi) {
    return tails<T>(c, mu, phi).lower;
  }

  template <class T>
  FLUXION_HOST_DEVICE static T log_ccdf(math::special::real_of<T> c, T mu, T phi) {
    return tails<T>(c, mu, phi).upper;
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_cdf_partials(math::special::real_of<T> c, T mu, T phi) {
    return tail_partials<T>(c, mu, phi, false);
  }

  template <class T>
  FLUXION_HOST_DEVICE static partials<T, 2> log_ccdf_partials(math::special::real_of<T> c, T mu, T phi) {
    return tail_partials<T>(c, mu, phi, true);
  }

 private:
  // {log P(Y <= c), log P(Y > c)}, with phi of type S: T for the values
  // alone (the log CDFs), a dual number for d/d phi too (derivative seed 1:
  // the partials). The values alone skip the derivative's arithmetic and its
  // convergence test (on the H200, 62% of a censored term's cost: the SEIR
  // example's six censored days went from 3.8 to 1.5 ms for 1e5 sets, f64).
  template <class T, class S>
  FLUXION_HOST_DEVICE static math::special::log_pair<S> tails(T c, T mu, S phi) {
    namespace sp = math::special;
    if (!(mu >= T(0)) || !(sp::value_of(phi) > T(0)) || sp::is_nan(c))
      return {S(sp::not_a_number<T>()), S(sp::not_a_number<T>())};
    if (c < T(0)) return {S(-sp::infinity<T>()), S(T(0))};
    if (mu == T(0) || sp::is_inf(c)) return {S(T(0)), S(-sp::infinity<T>())};
    const S total = phi + mu;
    return sp::log_beta_i(phi, S(sp::floor(c) + T(1)), phi / total, mu / total);
  }

  template <class T>
  FLUXION_HOST_DEVICE_CALL static partials<T, 2> tail_partials(T c, T mu, T phi, bool upper) {
    namespace sp = math::special;
    const auto both = tails<T>(c, mu, sp::dual<T>(phi, T(1)));
    const sp::dual<T> l = upper ? both.upper : both.lower;
    if (l.v == -sp::infinity<T>()) return {l.v, {T(0), T(0)}};
    if (!(c >= T(0)) || sp::is_inf(c)) return {l.v, {T(0), T(0)}};
    const T k = sp::floor(c);
    // d/d mu of P(Y <= c) = -p(k) (k + phi) / (mu + phi)
    const T rate = sp::exp(log_density<T>(k, mu, phi) - l.v) * (k + phi) / (mu + phi);
    return {l.v, {upper ? rate : -rate, l.d}};
  }
};

}  // namespace fluxion
