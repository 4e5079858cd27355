// Priors (fluxion/infer/priors.hpp) and constraint transforms
// (fluxion/infer/transforms.hpp), in float and double.
// Oracles: closed forms written out here; unit mass of each prior by
// Simpson integration, done on the unconstrained line through the prior's
// own transform (the integral of p(f(u)) |f'(u)| du is 1 only if the density,
// the transform and its log-Jacobian are all right); round trips; numerical
// derivatives of the transforms (central differences, complex step) against
// their stated derivative, log-Jacobian and its derivative.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/infer/priors.hpp>
#include <fluxion/infer/transforms.hpp>

#include <cmath>
#include <complex>
#include <limits>

#include "infer_oracles.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using cplx = std::complex<double>;
using infer_test::central_difference;
using infer_test::complex_step;
using infer_test::simpson;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
const double log_sqrt_two_pi = 0.5 * std::log(2 * M_PI);

// The integral over u of exp(log p(f(u)) + log |f'(u)|), f the prior's transform, in T.
template <class T, class Prior>
double unconstrained_mass(const Prior& prior, double lo = -45, double hi = 45) {
  const auto tr = prior.transform();
  const auto integrand = [&](double u) {
    const auto x = tr.apply(T(u));
    return std::exp(double(prior.log_density(x.value)) + double(x.log_jacobian));
  };
  return simpson(integrand, lo, hi, 60000);
}

// Derivative of the log density against central differences and the complex step.
template <class Prior>
void check_prior_derivative(const Prior& prior, double x, double h) {
  INFO("x = " << x);
  const auto r = prior.log_density_partials(x);
  CHECK(r.value == prior.log_density(x));
  const double fd = central_difference([&](double t) { return prior.log_density(t); }, x, h);
  CHECK_THAT(r.grad[0], WithinAbs(fd, 1e-8 * (1 + std::abs(fd))));
  CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx t) { return prior.log_density(t); }, x), 1e-12 * (1 + std::abs(fd))));
}

// A transform's value, derivative, log-Jacobian and its derivative at u, and its round trip.
template <class Transform>
void check_transform(const Transform& tr, double u) {
  INFO("u = " << u);
  const auto a = tr.apply(u);
  CHECK(a.value == tr.to_constrained(u));
  CHECK_THAT(a.log_jacobian, WithinAbs(tr.log_jacobian(u), 1e-14 * (1 + std::abs(a.log_jacobian))));
  CHECK_THAT(tr.to_unconstrained(a.value), WithinAbs(u, 1e-12 * (1 + std::abs(u))));
  const double h = 1e-3;
  const double dx = central_difference([&](double t) { return tr.to_constrained(t); }, u, h);
  CHECK_THAT(a.derivative, WithinAbs(dx, 1e-9 * (1 + std::abs(dx))));
  CHECK_THAT(a.derivative, WithinRel(complex_step([&](cplx t) { return tr.to_constrained(t); }, u), 1e-13));
  // log |dx/du| against the complex-step derivative (a central difference of x near a bound has
  // rounding error eps / h, large beside a small dx/du)
  CHECK_THAT(a.log_jacobian, WithinAbs(std::log(std::abs(complex_step([&](cplx t) { return tr.to_constrained(t); }, u))), 1e-13 * (1 + std::abs(u))));
  const double dlj = central_difference([&](double t) { return tr.log_jacobian(t); }, u, h);
  CHECK_THAT(a.d_log_jacobian, WithinAbs(dlj, 1e-9));
  CHECK_THAT(a.d_log_jacobian, WithinAbs(complex_step([&](cplx t) { return tr.log_jacobian(t); }, u), 1e-13));
}

}  // namespace

TEMPLATE_TEST_CASE("priors have unit mass on the unconstrained line through their transforms", "[infer][priors]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 5e-6 : 1e-11;
  CHECK_THAT(unconstrained_mass<T>(fx::normal_prior<T>{T(1), T(2)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::lognormal_prior<T>{T(0.3), T(0.5)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::half_normal_prior<T>{T(1.5)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::gamma_prior<T>{T(2.5), T(1.5)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::gamma_prior<T>{T(0.7), T(3)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::beta_prior<T>{T(2), T(3.5)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::beta_prior<T>{T(0.6), T(0.9)}, -120, 120), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::uniform_prior<T>{T(-1), T(3)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::truncated_normal_prior<T>{T(0.5), T(1), T(-1), T(2)}), WithinAbs(1.0, tol));
  // bounded on one side (log transform), and far in the tail: mass Phi(-8) = 6e-16 renormalized
  CHECK_THAT(unconstrained_mass<T>(fx::truncated_normal_prior<T>{T(0), T(1), T(0)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::truncated_normal_prior<T>{T(0), T(1), T(8)}), WithinAbs(1.0, tol));
  CHECK_THAT(unconstrained_mass<T>(fx::truncated_normal_prior<T>{T(2), T(0.5), -std::numeric_limits<T>::infinity(), T(1)}), WithinAbs(1.0, tol));
}

TEMPLATE_TEST_CASE("prior log densities: closed forms", "[infer][priors]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-15;
  const auto check = [&](T got, double want) { CHECK_THAT(double(got), WithinAbs(want, tol * (1 + std::abs(want)))); };
  check(fx::normal_prior<T>{T(1), T(2)}.log_density(T(2)), -0.125 - std::log(2.0) - log_sqrt_two_pi);
  check(fx::lognormal_prior<T>{T(0), T(1)}.log_density(T(std::exp(1.0))), -0.5 - 1 - log_sqrt_two_pi);  // phi(1) / e
  check(fx::half_normal_prior<T>{T(2)}.log_density(T(1)), std::log(2.0) - 0.125 - std::log(2.0) - log_sqrt_two_pi);
  check(fx::gamma_prior<T>{T(2), T(3)}.log_density(T(0.5)), 2 * std::log(3.0) + std::log(0.5) - 1.5);  // 3^2 x e^(-3x) / Gamma(2)
  check(fx::beta_prior<T>{T(2), T(3)}.log_density(T(0.25)), std::log(12 * 0.25 * 0.75 * 0.75));         // B(2, 3) = 1/12
  check(fx::uniform_prior<T>{T(-1), T(3)}.log_density(T(0.4)), -std::log(4.0));
  // normal(0, 1) truncated to [0, inf) is the half-normal
  check(fx::truncated_normal_prior<T>{T(0), T(1), T(0)}.log_density(T(1)), std::log(2.0) - 0.5 - log_sqrt_two_pi);
  check(fx::truncated_normal_prior<T>{T(0), T(1)}.log_density(T(1)), -0.5 - log_sqrt_two_pi);
  // outside the support: -inf with derivative 0; invalid hyperparameters: NaN
  const T minus_inf = -std::numeric_limits<T>::infinity();
  CHECK(fx::lognormal_prior<T>{T(0), T(1)}.log_density(T(-1)) == minus_inf);
  CHECK(fx::half_normal_prior<T>{T(1)}.log_density(T(-0.5)) == minus_inf);
  CHECK(fx::gamma_prior<T>{T(2), T(1)}.log_density(T(0)) == minus_inf);
  CHECK(fx::beta_prior<T>{T(2), T(2)}.log_density(T(1)) == minus_inf);
  CHECK(fx::uniform_prior<T>{T(0), T(1)}.log_density(T(1.5)) == minus_inf);
  CHECK(fx::truncated_normal_prior<T>{T(0), T(1), T(-1), T(1)}.log_density(T(2)) == minus_inf);
  CHECK(fx::beta_prior<T>{T(2), T(2)}.log_density_partials(T(1.5)).grad[0] == T(0));
  CHECK(std::isnan(fx::normal_prior<T>{T(0), T(-1)}.log_density(T(0))));
  CHECK(std::isnan(fx::gamma_prior<T>{T(0), T(1)}.log_density(T(1))));
  CHECK(std::isnan(fx::uniform_prior<T>{T(2), T(1)}.log_density(T(1.5))));
}

TEST_CASE("prior derivatives against central differences and the complex step", "[infer][priors]") {
  for (double x : {-2.0, 0.1, 3.5}) check_prior_derivative(fx::normal_prior{1.0, 2.0}, x, 1e-3);
  for (double x : {0.05, 1.0, 7.0}) check_prior_derivative(fx::lognormal_prior{0.3, 0.8}, x, 1e-3 * x);
  for (double x : {0.2, 1.0, 4.0}) check_prior_derivative(fx::half_normal_prior{1.5}, x, 1e-3);
  for (double x : {0.01, 0.6, 9.0}) check_prior_derivative(fx::gamma_prior{2.5, 0.7}, x, 1e-3 * x);
  for (double x : {0.01, 0.5, 0.98}) check_prior_derivative(fx::beta_prior{2.5, 0.7}, x, 1e-3 * std::min(x, 1 - x));
  for (double x : {-0.5, 2.0}) check_prior_derivative(fx::uniform_prior{-1.0, 3.0}, x, 1e-3);
  for (double x : {-0.9, 0.0, 1.9}) check_prior_derivative(fx::truncated_normal_prior{0.5, 1.2, -1.0, 2.0}, x, 1e-3);
  for (double x : {8.1, 9.0}) check_prior_derivative(fx::truncated_normal_prior{0.0, 1.0, 8.0}, x, 1e-3);
}

TEST_CASE("transforms: round trips, derivatives, log-Jacobians", "[infer][transforms]") {
  for (double u : {-7.0, -1.3, 0.0, 0.4, 2.0, 12.0}) {
    check_transform(fx::identity_transform{}, u);
    check_transform(fx::log_transform<double>{}, u);
    check_transform(fx::log_transform{-2.5}, u);
    check_transform(fx::upper_log_transform{3.0}, u);
    check_transform(fx::logit_transform<double>{}, u);
    check_transform(fx::logit_transform{-3.0, 5.0}, u);
    check_transform(fx::affine_transform{1.5, 0.25}, u);
    check_transform(fx::affine_transform{1.5, -4.0}, u);
    check_transform(fx::bounds_transform{1.0, 2.0}, u);
    check_transform(fx::bounds_transform{1.0, inf}, u);
    check_transform(fx::bounds_transform{-inf, 1.0}, u);
    check_transform(fx::bounds_transform<double>{}, u);
  }
  // Closed forms.
  CHECK_THAT(fx::logit_transform<double>{}.to_constrained(0.0), WithinAbs(0.5, 1e-16));
  CHECK_THAT(fx::logit_transform<double>{}.log_jacobian(0.0), WithinAbs(std::log(0.25), 1e-15));  // s(0) s(-0) = 1/4
  const fx::logit_transform two_to_six{2.0, 6.0};
  CHECK_THAT(two_to_six.to_unconstrained(5.0), WithinAbs(std::log(3.0), 1e-15));
  CHECK(fx::log_transform<double>{}.to_constrained(0.0) == 1.0);
  const fx::affine_transform flip{0.0, -4.0};
  CHECK(flip.log_jacobian(1.0) == std::log(4.0));
}

TEMPLATE_TEST_CASE("transforms stay inside their bounds far out, and bounds_transform picks by finite bounds", "[infer][transforms]", float, double) {
  using T = TestType;
  const fx::logit_transform<T> tr{T(-3), T(5)};
  for (double u : {-800.0, -40.0, 40.0, 800.0}) {
    const auto a = tr.apply(T(u));
    INFO("u = " << u);
    CHECK(a.value >= T(-3));
    CHECK(a.value <= T(5));
    CHECK(std::isfinite(a.log_jacobian));
    // log J = log 8 - |u| - 2 log1p(e^-|u|)
    CHECK_THAT(double(a.log_jacobian), WithinRel(std::log(8.0) - std::abs(u), 1e-6));
    CHECK(std::abs(a.d_log_jacobian) <= T(1));
  }
  // Close to the bounds x keeps its distance: x - lower = width e^u / (1 + e^u) for u << 0.
  CHECK_THAT(double(fx::logit_transform<T>{}.to_constrained(T(-30))), WithinRel(std::exp(-30.0), 1e-6));
  CHECK_THAT(double(T(1) - fx::logit_transform<T>{}.to_constrained(T(5))), WithinRel(1 / (1 + std::exp(5.0)), 1e-4));
  const T i = std::numeric_limits<T>::infinity();
  for (double u : {-2.0, 0.5, 3.0}) {
    const T v = T(u);
    CHECK(fx::bounds_transform<T>{T(1), T(2)}.apply(v).value == fx::logit_transform<T>{T(1), T(2)}.apply(v).value);
    CHECK(fx::bounds_transform<T>{T(1), i}.apply(v).value == fx::log_transform<T>{T(1)}.apply(v).value);
    CHECK(fx::bounds_transform<T>{-i, T(2)}.apply(v).value == fx::upper_log_transform<T>{T(2)}.apply(v).value);
    CHECK(fx::bounds_transform<T>{-i, i}.apply(v).value == v);
    CHECK(fx::bounds_transform<T>{T(1), i}.log_jacobian(v) == v);
  }
  // The priors' transforms map onto their supports.
  CHECK_THAT(double(fx::uniform_prior<T>{T(2), T(5)}.transform().to_constrained(T(0))), WithinAbs(3.5, 1e-6));
  CHECK(fx::gamma_prior<T>{T(2), T(1)}.transform().to_constrained(T(-50)) > T(0));
  CHECK(fx::beta_prior<T>{T(2), T(1)}.transform().to_constrained(T(50)) <= T(1));
}
