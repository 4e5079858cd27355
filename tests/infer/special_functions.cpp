// The special functions under the densities (fluxion/math/):
// erfc and erfcx (Cody), log Phi, digamma and its differences, lbeta,
// complex lgamma, the incomplete gamma and beta functions in logarithms and
// the dual-number derivative of the latter, log1p(t) - t.
// Oracles: the C library (glibc's erfc, lgamma, log1p in long double),
// mathematical identities (psi(n + 1) = H_n - gamma, B(a, b) of integers,
// P + Q = 1), values from mpmath 1.3.0 at 50 digits (typed in below), and
// central differences.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/math/error_function.hpp>
#include <fluxion/math/gamma_functions.hpp>
#include <fluxion/math/incomplete_beta.hpp>
#include <fluxion/math/incomplete_gamma.hpp>
#include <fluxion/math/log_arith.hpp>

#include <cmath>
#include <complex>

#include "infer_oracles.hpp"

namespace sp = fluxion::math::special;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using infer_test::central_difference;

TEST_CASE("erfc and erfcx agree with glibc and mpmath") {
  for (double x = -6; x <= 26; x += 0.0625) {
    INFO("x = " << x);
    CHECK_THAT(sp::erfc(x), WithinRel(std::erfc(x), 4e-15));
    const long double scaled = std::exp((long double)x * x) * std::erfc((long double)x);
    CHECK_THAT(sp::erfcx(x), WithinRel(double(scaled), 1e-13));
  }
  // mpmath: exp(x^2) erfc(x)
  CHECK_THAT(sp::erfcx(10.0), WithinRel(0.056140992743822586, 2e-16));
  CHECK_THAT(sp::erfcx(26.0), WithinRel(0.021683584850562907, 2e-16));
  CHECK_THAT(sp::erfcx(-5.0), WithinRel(144009798674.66104, 4e-16));
  CHECK_THAT(sp::erfcx(1e5), WithinRel(5.6418958351954685e-06, 1e-15));  // 1/(x sqrt(pi)) (1 - 1/(2x^2))
  CHECK(sp::erfc(30.0) == 0.0);
  CHECK(sp::erfc(-30.0) == 2.0);
  CHECK(std::isinf(sp::erfcx(-30.0)));
  CHECK_THAT(double(sp::erfcx(10.0f)), WithinRel(0.056140992743822586, 2e-7));
}

TEST_CASE("log Phi and phi / Phi are finite and accurate far in the lower tail") {
  // Asymptotic expansion (A&S 26.2.12): Phi(z) = phi(z) / (-z) (1 - 1/z^2 + 3/z^4 - 15/z^6 + 105/z^8 - ...)
  for (double z : {-40.0, -60.0, -200.0}) {
    const double z2 = z * z;
    const double series = 1 - 1 / z2 + 3 / (z2 * z2) - 15 / (z2 * z2 * z2) + 105 / (z2 * z2 * z2 * z2);
    const double expected = -z2 / 2 - std::log(-z) - 0.5 * std::log(2 * M_PI) + std::log(series);
    INFO("z = " << z);
    CHECK_THAT(sp::log_ndtr(z), WithinRel(expected, 1e-15));
    // phi/Phi = -z / series
    CHECK_THAT(sp::normal_hazard_ratio(z), WithinRel(-z / series, 1e-13));
  }
  // mpmath: log(ncdf(z))
  CHECK_THAT(sp::log_ndtr(-40.0), WithinRel(-804.60844201375378817, 1e-15));
  CHECK_THAT(sp::log_ndtr(-10.0), WithinRel(-53.231285150512470578, 1e-15));
  CHECK_THAT(sp::log_ndtr(-1e4), WithinRel(-50000010.129278915181, 1e-15));
  CHECK_THAT(sp::log_ndtr(-1.0), WithinRel(-1.8410216450092635, 1e-15));
  CHECK_THAT(sp::log_ndtr(5.0), WithinRel(-2.8665161296376359e-7, 1e-14));
  CHECK_THAT(sp::log_ndtr(10.0), WithinRel(-7.6198530241605261e-24, 1e-14));
  CHECK_THAT(double(sp::log_ndtr(-40.0f)), WithinRel(-804.60844201375378817, 1e-6));
  // Moderate z: glibc's erfc (through log1p of the complement above the median).
  for (double z = -8; z <= 8; z += 0.125) {
    const double expected = z <= 0 ? std::log(0.5 * std::erfc(-z / std::sqrt(2.0)))
                                   : std::log1p(-0.5 * std::erfc(z / std::sqrt(2.0)));
    CHECK_THAT(sp::log_ndtr(z), WithinRel(expected, 3e-14));  // erfc magnifies the rounding of z / sqrt 2 by 2 z^2
  }
  CHECK(sp::log_ndtr(-INFINITY) == -INFINITY);
  CHECK(sp::log_ndtr(INFINITY) == 0.0);
}

TEST_CASE("digamma and digamma differences") {
  constexpr double euler_gamma = 0.57721566490153286061;
  CHECK_THAT(sp::digamma(1.0), WithinRel(-euler_gamma, 1e-15));
  CHECK_THAT(sp::digamma(0.5), WithinRel(-euler_gamma - 2 * std::log(2.0), 1e-15));
  double harmonic = 0;
  for (int n = 1; n <= 200; ++n) {
    harmonic += 1.0 / n;
    CHECK_THAT(sp::digamma(n + 1.0), WithinRel(harmonic - euler_gamma, 1e-15));
  }
  // psi = d lgamma / dx, against central differences of glibc's lgamma.
  for (double x : {0.01, 0.3, 1.7, 9.99, 10.01, 55.5, 1e4})
    CHECK_THAT(sp::digamma(x), WithinRel(central_difference([](double t) { return std::lgamma(t); }, x, 1e-3 * x), 1e-9));
  // psi(x + n) - psi(x) = sum_{j < n} 1 / (x + j), including x >> n.
  for (double x : {0.2, 3.5, 9.5, 12.0, 1e3, 1e8, 1e12}) {
    for (int n : {1, 2, 7, 40}) {
      double sum = 0;
      for (int j = n - 1; j >= 0; --j) sum += 1 / (x + j);
      INFO("x = " << x << ", n = " << n);
      CHECK_THAT(sp::digamma_diff(x, double(n)), WithinRel(sum, 1e-14));
    }
  }
  CHECK(sp::digamma_diff(2.0, 0.0) == 0.0);
  CHECK(std::isnan(sp::digamma(-1.0)));
}

TEST_CASE("lbeta and lchoose keep their digits for large arguments") {
  // B(a, b) = (a-1)! (b-1)! / (a+b-1)! for integers
  for (int a = 1; a <= 30; a += 3)
    for (int b = 1; b <= 60; b += 7) {
      const double expected = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
      CHECK_THAT(sp::lbeta(double(a), double(b)), WithinAbs(expected, 2e-13 * (1 + std::abs(expected))));
    }
  // mpmath: loggamma(a) + loggamma(b) - loggamma(a + b)
  CHECK_THAT(sp::lbeta(3.0, 1e10), WithinRel(-68.384405609561425, 1e-15));
  CHECK_THAT(sp::lbeta(12.5, 1e7), WithinRel(-182.74185531253968, 1e-15));
  CHECK_THAT(sp::lbeta(20.0, 30.0), WithinRel(-33.968820791977383, 1e-15));
  CHECK_THAT(sp::lbeta(0.5, 2.5), WithinRel(0.16390063283767394, 1e-15));
  // log C(n, k): exact integers
  CHECK_THAT(sp::lchoose(10.0, 3.0), WithinRel(std::log(120.0), 1e-15));
  CHECK_THAT(sp::lchoose(100.0, 50.0), WithinRel(std::log(100891344545564193334812497256.0), 1e-15));
  CHECK(sp::lchoose(7.0, 0.0) == 0.0);
  CHECK(sp::lchoose(7.0, 7.0) == 0.0);
}

TEST_CASE("lgamma of complex arguments: real part and complex-step derivative") {
  for (double x : {0.3, 1.0, 2.5, 7.25, 31.0, 1e3}) {
    const std::complex<double> z(x, 1e-30);
    const std::complex<double> l = sp::lgamma(z);
    INFO("x = " << x);
    CHECK_THAT(l.real(), WithinAbs(std::lgamma(x), 4e-15 * (1 + std::abs(std::lgamma(x)))));
    CHECK_THAT(l.imag() / 1e-30, WithinRel(sp::digamma(x), 1e-13));
  }
}

TEST_CASE("log1p(t) - t agrees with long double") {
  for (double t = -0.99; t <= 4; t += 0.0137) {
    const long double expected = std::log1p((long double)t) - t;
    CHECK_THAT(sp::log1p_minus(t), WithinRel(double(expected), 1e-14));
  }
  for (double t : {1e-5, -3e-6, 1e-9}) {  // the series -t^2/2 + t^3/3 - t^4/4 + t^5/5
    const double t2 = t * t;
    CHECK_THAT(sp::log1p_minus(t), WithinRel(-t2 / 2 + t2 * t / 3 - t2 * t2 / 4 + t2 * t2 * t / 5, 1e-15));
  }
}

TEST_CASE("regularized incomplete gamma in logarithms: mpmath values, P + Q = 1") {
  // mpmath: log(gammainc(a, 0, x, regularized=True)), log(gammainc(a, x, inf, regularized=True))
  struct row {
    double a, x, log_p, log_q;
  };
  const row rows[] = {
      {1, 0.5, -0.93275212956718857, -0.5},
      {5, 3, -1.6888234106208755, -0.20424421847868438},
      {5, 20, -1.6944887493862582e-5, -10.985552864847867},
      {101, 100, -0.74773473407623107, -0.64138581852615169},
      {1e4, 1e4, -0.69049109440197236, -0.69581034030382007},
      {1e4, 9e3, -56.835486168752249, -2.073299202433928e-25},
      {3, 200, -2.795609373660873e-83, -190.08651261288554},  // log P = -Q to all digits
      {1e6, 1e6 + 3e3, -0.0013626686575809065, -6.5989915106665515},
      {0.5, 1e-3, -3.3334286907475343, -0.036322332917113243},
  };
  for (const row& r : rows) {
    const auto got = sp::log_gamma_pq(r.a, r.x);
    INFO("a = " << r.a << ", x = " << r.x);
    CHECK_THAT(got.lower, WithinRel(r.log_p, 2e-13));
    CHECK_THAT(got.upper, WithinRel(r.log_q, 2e-13));
    const auto got_f = sp::log_gamma_pq(float(r.a), float(r.x));
    if (r.a < 1e5 && std::abs(r.log_p) > 1e-30) {  // float: x = 1e6 + 3e3 has few digits to spare; e^-190 underflows
      CHECK_THAT(double(got_f.lower), WithinRel(r.log_p, 2e-4));
      CHECK_THAT(double(got_f.upper), WithinRel(r.log_q, 2e-4));
    }
  }
  for (double a : {0.1, 1.0, 3.7, 40.0, 900.0})
    for (double x : {0.01, 0.5, 3.0, 39.0, 41.0, 1000.0}) {
      const auto pq = sp::log_gamma_pq(a, x);
      CHECK_THAT(std::exp(pq.lower) + std::exp(pq.upper), WithinRel(1.0, 1e-14));
    }
  CHECK(sp::log_gamma_pq(2.0, 0.0).lower == -INFINITY);
  CHECK(std::isnan(sp::log_gamma_pq(-1.0, 2.0).lower));
}

TEST_CASE("regularized incomplete beta in logarithms, and its derivative in a shape by dual numbers") {
  // mpmath: log(betainc(a, b, 0, x, regularized=True)), log(betainc(a, b, x, 1, ...)) and d/da of each
  struct row {
    double a, b, x, log_i, log_j, d_log_i, d_log_j;
  };
  const row rows[] = {
      {2, 3, 0.4, -0.64473804135225769, -0.74401951093370196, -0.45897365870342331, 0.50688000018425209},
      {0.5, 0.5, 0.9, -0.22920282758111512, -1.5855614147303535, -0.34812239748989761, 1.3514220967770901},
      {10, 1001, 0.01, -0.58842327628588202, -0.81013502148032245, -0.2266889235270773, 0.28295572649020958},
      {50, 50, 0.5, -0.69314718055994531, -0.69314718055994531, -0.080121948498665784, 0.080121948498665784},
  };
  for (const row& r : rows) {
    INFO("a = " << r.a << ", b = " << r.b << ", x = " << r.x);
    const auto got = sp::log_beta_i(r.a, r.b, r.x, 1 - r.x);
    CHECK_THAT(got.lower, WithinRel(r.log_i, 2e-14));
    CHECK_THAT(got.upper, WithinRel(r.log_j, 2e-14));
    const sp::dual<double> a(r.a, 1.0);
    const auto d = sp::log_beta_i(a, sp::dual<double>(r.b), sp::dual<double>(r.x), sp::dual<double>(1 - r.x));
    CHECK_THAT(d.lower.v, WithinRel(r.log_i, 2e-14));
    CHECK_THAT(d.lower.d, WithinRel(r.d_log_i, 1e-12));
    CHECK_THAT(d.upper.d, WithinRel(r.d_log_j, 1e-12));
  }
  // Dual derivative in a and in x against central differences, both branches of the symmetry.
  for (double a : {0.7, 3.0, 25.0, 400.0})
    for (double b : {0.9, 6.0, 120.0})
      for (double x : {0.02, 0.3, 0.6, 0.97}) {
        INFO("a = " << a << ", b = " << b << ", x = " << x);
        const auto lower = [&](double t) { return sp::log_beta_i(t, b, x, 1 - x).lower; };
        const auto upper = [&](double t) { return sp::log_beta_i(t, b, x, 1 - x).upper; };
        const auto d = sp::log_beta_i(sp::dual<double>(a, 1), sp::dual<double>(b), sp::dual<double>(x),
                                      sp::dual<double>(1 - x));
        if (d.lower.v > -600) CHECK_THAT(d.lower.d, WithinAbs(central_difference(lower, a, 1e-3 * a), 1e-7 * (1 + std::abs(d.lower.d))));
        if (d.upper.v > -600) CHECK_THAT(d.upper.d, WithinAbs(central_difference(upper, a, 1e-3 * a), 1e-7 * (1 + std::abs(d.upper.d))));
        const auto dx = sp::log_beta_i(sp::dual<double>(a), sp::dual<double>(b), sp::dual<double>(x, 1),
                                       sp::dual<double>(1 - x, -1));
        const auto in_x = [&](double t) { return sp::log_beta_i(a, b, t, 1 - t).lower; };
        if (dx.lower.v > -600) CHECK_THAT(dx.lower.d, WithinAbs(central_difference(in_x, x, 1e-4 * std::min(x, 1 - x)), 1e-7 * (1 + std::abs(dx.lower.d))));
        CHECK_THAT(std::exp(d.lower.v) + std::exp(d.upper.v), WithinRel(1.0, 1e-13));
      }
}

TEST_CASE("log-space arithmetic") {
  CHECK_THAT(sp::log1m_exp(-1e-20), WithinRel(std::log(1e-20), 1e-15));
  CHECK_THAT(sp::log1m_exp(-50.0), WithinRel(-std::exp(-50.0), 1e-15));
  CHECK_THAT(sp::log_diff_exp(std::log(5.0), std::log(3.0)), WithinRel(std::log(2.0), 1e-15));
  CHECK(sp::log_diff_exp(-3.0, -3.0) == -INFINITY);
  CHECK(sp::log_diff_exp(-3.0, -HUGE_VAL) == -3.0);
  CHECK_THAT(sp::log_sum_exp(-1000.0, -1000.0), WithinRel(-1000 + std::log(2.0), 1e-15));
  CHECK_THAT(sp::log1p_exp(800.0), WithinRel(800.0, 1e-15));
  CHECK_THAT(sp::log1p_exp(-800.0), WithinAbs(0.0, 1e-300));
}
