// Observation densities (fluxion/infer/densities.hpp): values, CDFs, tails
// and derivatives of normal, lognormal, poisson, neg_binomial_2, binomial and
// beta_binomial, in float and double.
// Oracles, all independent of the code under test: closed forms and the
// textbook pmfs written out here with glibc's lgamma; exact rationals
// (binomial and beta-binomial CDFs with integer parameters); values from
// mpmath 1.3.0 at 50 digits (typed in, marked "mpmath"); sums of pmfs
// (discrete CDFs) and Simpson integrals of pdfs (continuous CDFs); means and
// variances (the parameterizations); the asymptotic expansion of the normal
// tail; fourth-order central differences and complex-step derivatives.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/infer/densities.hpp>

#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "infer_oracles.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using cplx = std::complex<double>;
using infer_test::central_difference;
using infer_test::complex_step;
using infer_test::log_add;
using infer_test::simpson;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Textbook log pmfs, written here.
double poisson_log_pmf(double y, double m) { return y * std::log(m) - m - std::lgamma(y + 1); }
double nb_log_pmf(double y, double mu, double phi) {
  return std::lgamma(y + phi) - std::lgamma(y + 1) - std::lgamma(phi) + phi * std::log(phi / (mu + phi)) +
         y * std::log(mu / (mu + phi));
}
double binomial_log_pmf(double y, double n, double p) {
  return std::lgamma(n + 1) - std::lgamma(y + 1) - std::lgamma(n - y + 1) + y * std::log(p) + (n - y) * std::log1p(-p);
}
double beta_binomial_log_pmf(double y, double n, double p, double kappa) {
  const double a = p * kappa, b = (1 - p) * kappa;
  const auto lbeta = [](double x, double z) { return std::lgamma(x) + std::lgamma(z) - std::lgamma(x + z); };
  return std::lgamma(n + 1) - std::lgamma(y + 1) - std::lgamma(n - y + 1) + lbeta(y + a, n - y + b) - lbeta(a, b);
}

// log P(Y <= k) and log P(Y > k), k = 0 .. size - 1, from log pmf values
// summed here: from below for the lower tail, from the top for the upper one
// (mass beyond the last value taken as 0).
struct summed_tails {
  std::vector<double> lower, upper;
};
summed_tails sum_tails(const std::vector<double>& log_pmf) {
  const std::size_t n = log_pmf.size();
  summed_tails t{std::vector<double>(n), std::vector<double>(n)};
  double acc = -inf;
  for (std::size_t k = 0; k < n; ++k) t.lower[k] = acc = log_add(acc, log_pmf[k]);
  acc = -inf;
  for (std::size_t k = n; k-- > 0;) {
    t.upper[k] = acc;
    acc = log_add(acc, log_pmf[k]);
  }
  return t;
}

// A log probability within tol (1 + |want|).
void check_log(double got, double want, double tol) { CHECK_THAT(got, WithinAbs(want, tol * (1 + std::abs(want)))); }

// Each partial of r against a central difference of value() in that
// parameter (step h_i = step * scale_i).
template <std::size_t N, class Value, class Partials>
void check_partials(const std::array<double, N>& theta, const std::array<double, N>& scale, Value value,
                    Partials partials, double tol) {
  const auto r = partials(theta);
  CHECK_THAT(r.value, WithinAbs(value(theta), 1e-14 * (1 + std::abs(r.value))));
  for (std::size_t i = 0; i < N; ++i) {
    const auto along = [&](double t) {
      auto th = theta;
      th[i] = t;
      return value(th);
    };
    const double fd = central_difference(along, theta[i], 1e-3 * scale[i]);
    INFO("parameter " << i << " at " << theta[i] << ": analytic " << r.grad[i] << ", central difference " << fd);
    CHECK_THAT(r.grad[i], WithinAbs(fd, tol * (1 + std::abs(fd))));
  }
}

}  // namespace

// ---------------------------------------------------------------- normal

TEMPLATE_TEST_CASE("normal: closed form, unit mass and CDFs by Simpson integration", "[infer][normal]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-13;
  const double mean = 0.5, sd = 2;
  CHECK_THAT(double(fx::normal::log_density<T>(T(1.5), T(mean), T(sd))),
             WithinAbs(-0.5 * 0.25 - std::log(2.0) - 0.5 * std::log(2 * M_PI), tol));
  const auto pdf = [&](double x) { return double(std::exp(fx::normal::log_density<T>(T(x), T(mean), T(sd)))); };
  CHECK_THAT(simpson(pdf, mean - 16 * sd, mean + 16 * sd, 4000), WithinAbs(1.0, tol));
  CHECK_THAT(simpson([&](double x) { return x * pdf(x); }, mean - 16 * sd, mean + 16 * sd, 4000), WithinAbs(mean, 10 * tol));
  for (double y : {-3.0, -0.7, 0.4, 2.5, 6.0}) {
    INFO("y = " << y);
    const double cdf = simpson(pdf, mean - 16 * sd, y, 20000);
    CHECK_THAT(double(std::exp(fx::normal::log_cdf<T>(T(y), T(mean), T(sd)))), WithinAbs(cdf, tol));
    CHECK_THAT(double(std::exp(fx::normal::log_ccdf<T>(T(y), T(mean), T(sd)))), WithinAbs(1 - cdf, tol));
  }
}

TEMPLATE_TEST_CASE("normal: the lower tail is finite and follows its asymptotic expansion", "[infer][normal]", float,
                   double) {
  using T = TestType;
  const double rel = std::is_same_v<T, float> ? 1e-6 : 2e-15;
  // log Phi(z) = -z^2/2 - log(-z) - log(2 pi)/2 + log(1 - 1/z^2 + 3/z^4 - 15/z^6 + 105/z^8 - 945/z^10 + ...) (A&S 26.2.12)
  for (double z : {-40.0, -45.0, -100.0}) {
    const double z2 = z * z;
    const double z4 = z2 * z2;
    const double series = 1 - 1 / z2 + 3 / z4 - 15 / (z4 * z2) + 105 / (z4 * z4) - 945 / (z4 * z4 * z2);
    const double expected = -z2 / 2 - std::log(-z) - 0.5 * std::log(2 * M_PI) + std::log(series);
    INFO("z = " << z);
    // y = mean + z sd with mean 2, sd 0.5: the same z
    CHECK_THAT(double(fx::normal::log_cdf<T>(T(2 + 0.5 * z), T(2), T(0.5))), WithinRel(expected, rel));
    CHECK_THAT(double(fx::normal::log_ccdf<T>(T(2 - 0.5 * z), T(2), T(0.5))), WithinRel(expected, rel));
    // d/d mean of log Phi((y - mean)/sd) = -(phi/Phi)/sd = z / series / sd (the ratio is -z / series)
    const auto d = fx::normal::log_cdf_partials<T>(T(2 + 0.5 * z), T(2), T(0.5));
    CHECK_THAT(double(d.grad[fx::normal::mean]), WithinRel(z / series / 0.5, 10 * rel));
    CHECK_THAT(double(d.grad[fx::normal::sd]), WithinRel(z * z / series / 0.5, 10 * rel));
  }
  // mpmath: log(ncdf(-10)), log(ncdf(-12))
  CHECK_THAT(double(fx::normal::log_cdf<T>(T(-10), T(0), T(1))), WithinRel(-53.231285150512470578, rel));
  CHECK_THAT(double(fx::normal::log_ccdf<T>(T(12), T(0), T(1))), WithinRel(-75.410673001568795939, rel));
  CHECK(fx::normal::log_cdf<T>(T(-INFINITY), T(0), T(1)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::normal::log_ccdf<T>(T(-INFINITY), T(0), T(1)) == T(0));
}

TEST_CASE("normal: derivatives against central differences and the complex step", "[infer][normal]") {
  for (double y : {-4.0, 0.3, 2.0, 9.0})
    for (double mean : {-1.0, 0.5})
      for (double sd : {0.3, 1.7}) {
        INFO("y = " << y << ", mean = " << mean << ", sd = " << sd);
        const std::array<double, 2> theta{mean, sd}, scale{1.0, sd};
        check_partials(theta, scale, [&](auto t) { return fx::normal::log_density(y, t[0], t[1]); },
                       [&](auto t) { return fx::normal::log_density_partials(y, t[0], t[1]); }, 1e-9);
        check_partials(theta, scale, [&](auto t) { return fx::normal::log_cdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::normal::log_cdf_partials(y, t[0], t[1]); }, 1e-9);
        check_partials(theta, scale, [&](auto t) { return fx::normal::log_ccdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::normal::log_ccdf_partials(y, t[0], t[1]); }, 1e-9);
        const auto r = fx::normal::log_density_partials(y, mean, sd);
        CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx m) { return fx::normal::log_density(y, m, cplx(sd)); }, mean), 1e-13));
        CHECK_THAT(r.grad[1], WithinAbs(complex_step([&](cplx s) { return fx::normal::log_density(y, cplx(mean), s); }, sd), 1e-13 * (1 + std::abs(r.grad[1]))));
      }
}

// ---------------------------------------------------------------- lognormal

TEMPLATE_TEST_CASE("lognormal: value, unit mass, CDFs by integration, support", "[infer][lognormal]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 3e-6 : 1e-12;
  // mpmath: log(npdf((log 2.5 - 0.3) / 0.8)) - log 0.8 - log 2.5
  CHECK_THAT(double(fx::lognormal::log_density<T>(T(2.5), T(0.3), T(0.8))), WithinAbs(-1.9088156092286662465, tol));
  const double mu = 0.3, sigma = 0.8;
  const auto pdf = [&](double x) { return double(std::exp(fx::lognormal::log_density<T>(T(x), T(mu), T(sigma)))); };
  // E y = exp(mu + sigma^2 / 2), integrated in s = log y (pdf(e^s) e^s ds)
  const auto in_log = [&](double s) { return pdf(std::exp(s)) * std::exp(s); };
  CHECK_THAT(simpson(in_log, mu - 14 * sigma, mu + 14 * sigma, 4000), WithinAbs(1.0, tol));
  CHECK_THAT(simpson([&](double s) { return in_log(s) * std::exp(s); }, mu - 14 * sigma, mu + 20 * sigma, 8000),
             WithinRel(std::exp(mu + sigma * sigma / 2), 10 * tol));
  for (double y : {0.2, 1.0, 2.5, 9.0}) {
    const double cdf = simpson(in_log, mu - 14 * sigma, std::log(y), 4000);
    CHECK_THAT(double(std::exp(fx::lognormal::log_cdf<T>(T(y), T(mu), T(sigma)))), WithinAbs(cdf, tol));
    CHECK_THAT(double(std::exp(fx::lognormal::log_ccdf<T>(T(y), T(mu), T(sigma)))), WithinAbs(1 - cdf, tol));
  }
  CHECK(fx::lognormal::log_density<T>(T(0), T(0), T(1)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::lognormal::log_density<T>(T(-1), T(0), T(1)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::lognormal::log_cdf<T>(T(0), T(0), T(1)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::lognormal::log_ccdf<T>(T(-2), T(0), T(1)) == T(0));
  CHECK(fx::lognormal::log_cdf_partials<T>(T(0), T(0), T(1)).grad[1] == T(0));
}

TEST_CASE("lognormal: derivatives against central differences and the complex step", "[infer][lognormal]") {
  for (double y : {0.05, 1.0, 2.5, 40.0})
    for (double mu : {-0.5, 1.0})
      for (double sigma : {0.2, 1.3}) {
        INFO("y = " << y << ", mu = " << mu << ", sigma = " << sigma);
        const std::array<double, 2> theta{mu, sigma}, scale{1.0, sigma};
        check_partials(theta, scale, [&](auto t) { return fx::lognormal::log_density(y, t[0], t[1]); },
                       [&](auto t) { return fx::lognormal::log_density_partials(y, t[0], t[1]); }, 1e-9);
        check_partials(theta, scale, [&](auto t) { return fx::lognormal::log_cdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::lognormal::log_cdf_partials(y, t[0], t[1]); }, 1e-9);
        check_partials(theta, scale, [&](auto t) { return fx::lognormal::log_ccdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::lognormal::log_ccdf_partials(y, t[0], t[1]); }, 1e-9);
        const auto r = fx::lognormal::log_density_partials(y, mu, sigma);
        CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx m) { return fx::lognormal::log_density(y, m, cplx(sigma)); }, mu), 1e-12 * (1 + std::abs(r.grad[0]))));
        CHECK_THAT(r.grad[1], WithinAbs(complex_step([&](cplx s) { return fx::lognormal::log_density(y, cplx(mu), s); }, sigma), 1e-12 * (1 + std::abs(r.grad[1]))));
      }
}

// ---------------------------------------------------------------- Poisson

TEMPLATE_TEST_CASE("poisson: pmf values, unit mass, CDFs as sums of the pmf", "[infer][poisson]", float, double) {
  using T = TestType;
  const bool single = std::is_same_v<T, float>;
  const double rel = single ? 2e-6 : 1e-13;
  // mpmath: k log m - m - loggamma(k + 1)
  CHECK_THAT(double(fx::poisson::log_density<T>(T(3), T(2.5))), WithinRel(-1.5428872736055898053, rel));
  CHECK_THAT(double(fx::poisson::log_density<T>(T(20), T(3))), WithinRel(-23.363370687391291202, rel));
  CHECK_THAT(double(fx::poisson::log_density<T>(T(10000), T(9876.5))), WithinRel(-6.2930671338010319133, rel));
  const double tail_tol = single ? 5e-6 : 1e-13;
  for (double m : {0.3, 4.0, 37.5}) {
    std::vector<double> log_pmf;
    for (int y = 0; y <= 600; ++y) log_pmf.push_back(poisson_log_pmf(y, m));
    const summed_tails tails = sum_tails(log_pmf);
    for (int y = 0; y <= 80; ++y) {
      INFO("mean = " << m << ", y = " << y);
      check_log(fx::poisson::log_density<T>(T(y), T(m)), log_pmf[y], rel);
      check_log(fx::poisson::log_cdf<T>(T(y), T(m)), tails.lower[y], tail_tol);
      check_log(fx::poisson::log_ccdf<T>(T(y), T(m)), tails.upper[y], tail_tol);
    }
    CHECK_THAT(tails.lower.back(), WithinAbs(0.0, 1e-14));  // unit mass
  }
  CHECK(fx::poisson::log_cdf<T>(T(2.7), T(4)) == fx::poisson::log_cdf<T>(T(2), T(4)));
  CHECK(fx::poisson::log_cdf<T>(T(-1), T(4)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::poisson::log_ccdf<T>(T(-1), T(4)) == T(0));
  CHECK(fx::poisson::log_density<T>(T(0), T(0)) == T(0));
  CHECK(fx::poisson::log_density<T>(T(2), T(0)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::poisson::log_density<T>(T(-1), T(3)) == -std::numeric_limits<T>::infinity());
  CHECK(std::isnan(fx::poisson::log_density<T>(T(1), T(-3))));
  CHECK(std::isnan(fx::poisson::log_cdf<T>(T(1), T(NAN))));
}

TEST_CASE("poisson: far tails are finite and equal summed pmfs", "[infer][poisson]") {
  // P(Y > 400 | mean 10): mpmath log(gammainc(401, 0, 10, regularized=True)), and the sum of pmfs 401..900 here
  double tail = -inf;
  for (int y = 900; y > 400; --y) tail = log_add(tail, poisson_log_pmf(y, 10));
  CHECK_THAT(fx::poisson::log_ccdf(400.0, 10.0), WithinRel(-1093.132848485508063, 1e-14));
  CHECK_THAT(fx::poisson::log_ccdf(400.0, 10.0), WithinRel(tail, 1e-13));
  CHECK(std::isfinite(fx::poisson::log_ccdf(400.0f, 10.0f)));
  CHECK_THAT(double(fx::poisson::log_ccdf(400.0f, 10.0f)), WithinRel(-1093.132848485508063, 1e-5));
  // P(Y <= 3 | 20) (mpmath) and P(Y = 0 | 1000) = e^-1000
  CHECK_THAT(fx::poisson::log_cdf(3.0, 20.0), WithinRel(-12.651197991859788832, 1e-14));
  CHECK_THAT(fx::poisson::log_cdf(0.0, 1000.0), WithinRel(-1000.0, 1e-15));
  // Derivatives in the tail: d log P(Y > 400) / d mean = p(400) / P(Y > 400)
  const auto d = fx::poisson::log_ccdf_partials(400.0, 10.0);
  CHECK_THAT(d.grad[0], WithinRel(std::exp(poisson_log_pmf(400, 10) - tail), 1e-12));
  // Large counts: the saddle-point form in float and double
  for (double y : {1e4, 1e5}) {
    const double m = 0.98 * y;
    CHECK_THAT(fx::poisson::log_density(y, m), WithinAbs(poisson_log_pmf(y, m), 1e-9));
    CHECK_THAT(double(fx::poisson::log_density(float(y), float(m))), WithinAbs(poisson_log_pmf(y, float(m)), 2e-5));
  }
}

TEST_CASE("poisson: derivatives against central differences and the complex step", "[infer][poisson]") {
  for (double m : {0.2, 3.0, 41.5, 2500.0})
    for (double y : {0.0, 1.0, 7.0, 60.0, 2400.0}) {
      INFO("mean = " << m << ", y = " << y);
      const std::array<double, 1> theta{m}, scale{m};
      check_partials(theta, scale, [&](auto t) { return fx::poisson::log_density(y, t[0]); },
                     [&](auto t) { return fx::poisson::log_density_partials(y, t[0]); }, 1e-8);
      check_partials(theta, scale, [&](auto t) { return fx::poisson::log_cdf(y, t[0]); },
                     [&](auto t) { return fx::poisson::log_cdf_partials(y, t[0]); }, 1e-7);
      check_partials(theta, scale, [&](auto t) { return fx::poisson::log_ccdf(y, t[0]); },
                     [&](auto t) { return fx::poisson::log_ccdf_partials(y, t[0]); }, 1e-7);
      const auto r = fx::poisson::log_density_partials(y, m);
      CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx t) { return fx::poisson::log_density(y, t); }, m), 1e-12 * (1 + std::abs(r.grad[0]))));
    }
}

// ---------------------------------------------------------------- negative binomial

TEMPLATE_TEST_CASE("neg_binomial_2: pmf values, mean and variance, CDFs as sums", "[infer][neg_binomial_2]", float, double) {
  using T = TestType;
  const bool single = std::is_same_v<T, float>;
  const double rel = single ? 3e-6 : 1e-13;
  // mpmath
  CHECK_THAT(double(fx::neg_binomial_2::log_density<T>(T(7), T(10), T(2))), WithinRel(-2.7803282943339564569, rel));
  CHECK_THAT(double(fx::neg_binomial_2::log_density<T>(T(0), T(5), T(0.5))), WithinRel(-1.198947636399185272, rel));
  CHECK_THAT(fx::neg_binomial_2::log_density(3.0, 2.5, 1e9), WithinRel(-1.5428872749805898036, 1e-13));  // near Poisson
  for (double mu : {0.7, 10.0, 55.0})
    for (double phi : {0.4, 2.0, 300.0}) {
      INFO("mu = " << mu << ", phi = " << phi);
      double s0 = 0, s1 = 0, s2 = 0;
      std::vector<double> log_pmf;
      for (int y = 0; y < 20000; ++y) {
        const double lp = fx::neg_binomial_2::log_density<T>(T(y), T(mu), T(phi));
        const double p = std::exp(lp);
        s0 += p, s1 += y * p, s2 += double(y) * y * p;
        log_pmf.push_back(nb_log_pmf(y, mu, phi));
        if (y <= 300) check_log(lp, log_pmf.back(), rel);
      }
      CHECK_THAT(s0, WithinRel(1.0, single ? 1e-5 : 1e-12));
      CHECK_THAT(s1, WithinRel(mu, single ? 1e-5 : 1e-12));                             // E y = mu
      CHECK_THAT(s2 - s1 * s1, WithinRel(mu + mu * mu / phi, single ? 1e-4 : 1e-10));  // Var y = mu + mu^2 / phi
      const summed_tails tails = sum_tails(log_pmf);
      for (int y = 0; y <= 120; ++y) {
        check_log(fx::neg_binomial_2::log_cdf<T>(T(y), T(mu), T(phi)), tails.lower[y], single ? 5e-6 : 1e-12);
        check_log(fx::neg_binomial_2::log_ccdf<T>(T(y), T(mu), T(phi)), tails.upper[y], single ? 5e-6 : 1e-12);
      }
    }
  // mpmath: log(betainc(phi, k + 1, 0, phi / (mu + phi))) and its complement
  CHECK_THAT(double(fx::neg_binomial_2::log_cdf<T>(T(3), T(10), T(2))), WithinRel(-1.6283921342958726892, single ? 1e-6 : 1e-14));
  CHECK_THAT(double(fx::neg_binomial_2::log_ccdf<T>(T(200), T(10), T(2))), WithinRel(-33.105673591547565796, single ? 1e-6 : 1e-13));
  CHECK(fx::neg_binomial_2::log_density<T>(T(0), T(0), T(2)) == T(0));
  CHECK(std::isnan(fx::neg_binomial_2::log_density<T>(T(1), T(2), T(0))));
  CHECK(std::isnan(fx::neg_binomial_2::log_ccdf<T>(T(1), T(-2), T(1))));
}

TEST_CASE("neg_binomial_2: derivatives in mean and dispersion, densities and both tails", "[infer][neg_binomial_2]") {
  for (double mu : {0.4, 6.0, 80.0})
    for (double phi : {0.3, 2.5, 40.0, 5000.0})
      for (double y : {0.0, 2.0, 9.0, 150.0}) {
        INFO("y = " << y << ", mu = " << mu << ", phi = " << phi);
        const std::array<double, 2> theta{mu, phi}, scale{mu, phi};
        check_partials(theta, scale, [&](auto t) { return fx::neg_binomial_2::log_density(y, t[0], t[1]); },
                       [&](auto t) { return fx::neg_binomial_2::log_density_partials(y, t[0], t[1]); }, 1e-8);
        check_partials(theta, scale, [&](auto t) { return fx::neg_binomial_2::log_cdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::neg_binomial_2::log_cdf_partials(y, t[0], t[1]); }, 1e-7);
        check_partials(theta, scale, [&](auto t) { return fx::neg_binomial_2::log_ccdf(y, t[0], t[1]); },
                       [&](auto t) { return fx::neg_binomial_2::log_ccdf_partials(y, t[0], t[1]); }, 1e-7);
        const auto r = fx::neg_binomial_2::log_density_partials(y, mu, phi);
        CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx t) { return fx::neg_binomial_2::log_density(y, t, cplx(phi)); }, mu), 1e-11 * (1 + std::abs(r.grad[0]))));
        CHECK_THAT(r.grad[1], WithinAbs(complex_step([&](cplx t) { return fx::neg_binomial_2::log_density(y, cplx(mu), t); }, phi), 1e-11 * (1 + std::abs(r.grad[1]))));
      }
  // Large dispersion: log NB = log Poisson + ((y - mu)^2 - y) / (2 phi) + O(phi^-2), so
  // d/d phi = -((y - mu)^2 - y) / (2 phi^2) to a relative O(1/phi).
  for (double phi : {1e6, 1e8}) {
    const double y = 3, mu = 2.5;
    CHECK_THAT(fx::neg_binomial_2::log_density_partials(y, mu, phi).grad[1],
               WithinRel(-((y - mu) * (y - mu) - y) / (2 * phi * phi), 1e-4));
  }
}

// Generated cases for the tails' continued fraction (its recurrences, their
// stopping test to 4 eps, the dual dispersion): counts up to 3,000, means on
// either side of them (the fraction converges slowest where the mean is near
// the count, where its direction switches), dispersions from 0.1 to 1e4,
// log-uniform, fixed seed. Oracles: the tails as sums of lgamma-form pmfs,
// central differences of the values, and float against double.
TEST_CASE("neg_binomial_2: generated tails and their partials against summed pmfs", "[infer][neg_binomial_2]") {
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int cases = 0, partial_checks = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    const double c = std::floor(std::exp(std::log(3000.0) * u(rng)));
    const double mu = std::max(0.5, c * std::exp(3.0 * (u(rng) - 0.5)));  // within a factor 4.5 of the count
    const double phi = std::exp(std::log(0.1) + std::log(1e5) * u(rng));
    INFO("c = " << c << ", mu = " << mu << ", phi = " << phi);
    // Summed tails: P(Y <= c) and P(Y > c), the upper sum far past the mean
    // and past 50 of the tail's decay lengths ((mu + phi) / phi: a small
    // dispersion's tail is nearly geometric).
    const double sd = std::sqrt(mu + mu * mu / phi);
    const int top = int(std::max(c, mu) + std::max(60 * sd, 50 * (mu + phi) / phi) + 200);
    double lower = -inf, upper = -inf;
    for (int y = 0; y <= top; ++y) {
      const double lp = nb_log_pmf(y, mu, phi);
      if (y <= c) lower = log_add(lower, lp);
      else upper = log_add(upper, lp);
    }
    const double want_lower = lower, want_upper = upper;
    // The oracle's own error: its lgamma terms are of size (c + phi) log(c + phi).
    const double size = c + mu + phi, tol = 1e-11 + 1e-15 * size * std::log(2 + size);
    check_log(fx::neg_binomial_2::log_cdf(c, mu, phi), want_lower, tol);
    check_log(fx::neg_binomial_2::log_ccdf(c, mu, phi), want_upper, tol);
    // Float loses about (c + phi) eps_float: the prefactor's logarithms have
    // terms of that size, and near the fraction's switch point (x close to
    // (a + 1) / (a + b + 2)) its first steps cancel, magnifying x's rounding
    // by up to a + b. The modified Lentz method of 3818bb3 lost as much in
    // general (1.0e-4 at c = 20, mu = 34.7, phi = 6921; 1.7e-4 now) and less
    // at the switch point (c = 1, mu = 3.22, phi = 1727: the fraction off by
    // 2.1e-5 relative, 1.1e-4 now); elsewhere more (c = 1831, mu = 752,
    // phi = 1.67: 1.1e-5, 2.7e-6 now).
    const double tol_f = 2e-5 + 4e-8 * (c + phi);
    check_log(double(fx::neg_binomial_2::log_cdf<float>(float(c), float(mu), float(phi))),
              fx::neg_binomial_2::log_cdf(double(float(c)), double(float(mu)), double(float(phi))), tol_f);
    check_log(double(fx::neg_binomial_2::log_ccdf<float>(float(c), float(mu), float(phi))),
              fx::neg_binomial_2::log_ccdf(double(float(c)), double(float(mu)), double(float(phi))), tol_f);
    ++cases;
    // Partials where the tail is not vanishingly small (central differences
    // of a log far below -100 lose the digits the comparison needs).
    const std::array<double, 2> theta{mu, phi}, scale{mu, phi};
    if (want_lower > -100) {
      check_partials(theta, scale, [&](auto t) { return fx::neg_binomial_2::log_cdf(c, t[0], t[1]); },
                     [&](auto t) { return fx::neg_binomial_2::log_cdf_partials(c, t[0], t[1]); }, 1e-6);
      ++partial_checks;
    }
    if (want_upper > -100) {
      check_partials(theta, scale, [&](auto t) { return fx::neg_binomial_2::log_ccdf(c, t[0], t[1]); },
                     [&](auto t) { return fx::neg_binomial_2::log_ccdf_partials(c, t[0], t[1]); }, 1e-6);
      ++partial_checks;
    }
  }
  WARN("neg_binomial_2 generated tails: " << cases << " cases, " << partial_checks << " partial checks");
  CHECK(partial_checks > cases);
}

// ---------------------------------------------------------------- binomial

TEMPLATE_TEST_CASE("binomial: exact values, unit mass, mean and variance, CDFs as sums", "[infer][binomial]", float, double) {
  using T = TestType;
  const bool single = std::is_same_v<T, float>;
  const double rel = single ? 2e-6 : 1e-14;
  // P(Y <= 3 | 10, 1/2) = (1 + 10 + 45 + 120) / 1024 = 11/64
  CHECK_THAT(double(std::exp(fx::binomial::log_cdf<T>(T(3), T(10), T(0.5)))), WithinRel(11.0 / 64, rel));
  // P(Y > 95 | 100, 1/2) = (C(100,96) + C(100,97) + C(100,98) + C(100,99) + 1) / 2^100 = 4087976 / 2^100
  CHECK_THAT(double(fx::binomial::log_ccdf<T>(T(95), T(100), T(0.5))), WithinRel(std::log(4087976.0) - 100 * std::log(2.0), rel));
  // mpmath: log(binomial(20, 7) 0.3^7 0.7^13)
  CHECK_THAT(double(fx::binomial::log_density<T>(T(7), T(20), T(0.3))), WithinRel(-1.8062926549204250303, rel));
  for (double n : {1.0, 12.0, 150.0})
    for (double p : {0.02, 0.3, 0.5, 0.97}) {
      INFO("n = " << n << ", p = " << p);
      double s0 = 0, s1 = 0, s2 = 0;
      std::vector<double> log_pmf;
      for (double y = 0; y <= n; ++y) {
        const double lp = fx::binomial::log_density<T>(T(y), T(n), T(p));
        log_pmf.push_back(binomial_log_pmf(y, n, p));
        check_log(lp, log_pmf.back(), single ? 2e-6 : 1e-12);
        const double pr = std::exp(lp);
        s0 += pr, s1 += y * pr, s2 += y * y * pr;
      }
      const summed_tails tails = sum_tails(log_pmf);
      for (int y = 0; y < n; ++y) {
        check_log(fx::binomial::log_cdf<T>(T(y), T(n), T(p)), tails.lower[y], single ? 5e-6 : 1e-12);
        check_log(fx::binomial::log_ccdf<T>(T(y), T(n), T(p)), tails.upper[y], single ? 5e-6 : 1e-12);
      }
      CHECK_THAT(s0, WithinRel(1.0, single ? 1e-5 : 1e-13));
      CHECK_THAT(s1, WithinRel(n * p, single ? 1e-5 : 1e-12));
      CHECK_THAT(s2 - s1 * s1, WithinRel(n * p * (1 - p), single ? 1e-3 : 1e-10));
      CHECK(fx::binomial::log_cdf<T>(T(n), T(n), T(p)) == T(0));
    }
  CHECK(fx::binomial::log_density<T>(T(0), T(5), T(0)) == T(0));
  CHECK(fx::binomial::log_density<T>(T(1), T(5), T(0)) == -std::numeric_limits<T>::infinity());
  CHECK(fx::binomial::log_density<T>(T(5), T(5), T(1)) == T(0));
  CHECK(fx::binomial::log_density<T>(T(6), T(5), T(0.5)) == -std::numeric_limits<T>::infinity());
  CHECK(std::isnan(fx::binomial::log_density<T>(T(1), T(5), T(1.5))));
  CHECK(std::isnan(fx::binomial::log_cdf<T>(T(1), T(5), T(-0.1))));
}

TEST_CASE("binomial: derivatives against central differences and the complex step", "[infer][binomial]") {
  for (double n : {1.0, 10.0, 400.0})
    for (double p : {0.01, 0.35, 0.8})
      for (double y : {0.0, 1.0, 5.0, 300.0}) {
        if (y > n) continue;
        INFO("y = " << y << ", n = " << n << ", p = " << p);
        const std::array<double, 1> theta{p}, scale{std::min(p, 1 - p)};
        check_partials(theta, scale, [&](auto t) { return fx::binomial::log_density(y, n, t[0]); },
                       [&](auto t) { return fx::binomial::log_density_partials(y, n, t[0]); }, 1e-8);
        if (y < n) {  // P(Y <= n) = 1 and P(Y > n) = 0 have no parameter dependence
          check_partials(theta, scale, [&](auto t) { return fx::binomial::log_cdf(y, n, t[0]); },
                         [&](auto t) { return fx::binomial::log_cdf_partials(y, n, t[0]); }, 1e-7);
          check_partials(theta, scale, [&](auto t) { return fx::binomial::log_ccdf(y, n, t[0]); },
                         [&](auto t) { return fx::binomial::log_ccdf_partials(y, n, t[0]); }, 1e-7);
        }
        const auto r = fx::binomial::log_density_partials(y, n, p);
        CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx t) { return fx::binomial::log_density(y, n, t); }, p), 1e-11 * (1 + std::abs(r.grad[0]))));
      }
}

// ---------------------------------------------------------------- beta-binomial

TEMPLATE_TEST_CASE("beta_binomial: exact values, mean and variance, CDFs as sums", "[infer][beta_binomial]", float, double) {
  using T = TestType;
  const bool single = std::is_same_v<T, float>;
  const double rel = single ? 3e-6 : 1e-13;
  // n = 3, a = 2, b = 3 (p = 0.4, kappa = 5): C(3, y) B(y + 2, 6 - y) / B(2, 3) = 2/7, 12/35, 9/35, 4/35
  const double exact[4] = {2.0 / 7, 12.0 / 35, 9.0 / 35, 4.0 / 35};
  double cdf = 0;
  for (int y = 0; y < 4; ++y) {
    CHECK_THAT(double(std::exp(fx::beta_binomial::log_density<T>(T(y), T(3), T(0.4), T(5)))), WithinRel(exact[y], rel));
    cdf += exact[y];
    CHECK_THAT(double(std::exp(fx::beta_binomial::log_cdf<T>(T(y), T(3), T(0.4), T(5)))), WithinRel(cdf, rel));
    if (y < 3) CHECK_THAT(double(std::exp(fx::beta_binomial::log_ccdf<T>(T(y), T(3), T(0.4), T(5)))), WithinRel(1 - cdf, rel));
  }
  // a = b = 1 (p = 1/2, kappa = 2): uniform on 0..n, P(Y <= k) = (k + 1) / (n + 1)
  for (int k = 0; k < 8; ++k)
    CHECK_THAT(double(std::exp(fx::beta_binomial::log_cdf<T>(T(k), T(8), T(0.5), T(2)))), WithinRel((k + 1) / 9.0, rel));
  // mpmath: log(binomial(40, 12) beta(12 + 2, 28 + 6) / beta(2, 6))
  CHECK_THAT(double(fx::beta_binomial::log_density<T>(T(12), T(40), T(0.25), T(8))), WithinRel(-3.0147400664240855675, rel));
  for (double n : {5.0, 40.0})
    for (double p : {0.1, 0.6})
      for (double kappa : {0.5, 7.0, 2000.0}) {
        INFO("n = " << n << ", p = " << p << ", kappa = " << kappa);
        double s0 = 0, s1 = 0, s2 = 0;
        std::vector<double> log_pmf;
        for (double y = 0; y <= n; ++y) {
          const double lp = fx::beta_binomial::log_density<T>(T(y), T(n), T(p), T(kappa));
          log_pmf.push_back(beta_binomial_log_pmf(y, n, p, kappa));
          // The oracle's plain lgamma differences lose about 1e-16 lgamma(kappa). In float, a shape
          // below 10 leaves lgamma differences of size n log n (1e-5 absolute at n = 40).
          check_log(lp, log_pmf.back(), single ? 1e-5 : 1e-12 + 1e-15 * kappa);
          const double pr = std::exp(lp);
          s0 += pr, s1 += y * pr, s2 += y * y * pr;
        }
        const summed_tails tails = sum_tails(log_pmf);
        for (int y = 0; y < n; ++y) {
          check_log(fx::beta_binomial::log_cdf<T>(T(y), T(n), T(p), T(kappa)), tails.lower[y], single ? 1e-5 : 1e-11 + 1e-15 * kappa);
          check_log(fx::beta_binomial::log_ccdf<T>(T(y), T(n), T(p), T(kappa)), tails.upper[y], single ? 1e-5 : 1e-11 + 1e-15 * kappa);
        }
        CHECK_THAT(s0, WithinRel(1.0, single ? 1e-5 : 1e-12));
        CHECK_THAT(s1, WithinRel(n * p, single ? 1e-5 : 1e-12));
        CHECK_THAT(s2 - s1 * s1, WithinRel(n * p * (1 - p) * (n + kappa) / (1 + kappa), single ? 1e-3 : 1e-9));
      }
  CHECK(std::isnan(fx::beta_binomial::log_density<T>(T(1), T(5), T(0), T(2))));
  CHECK(std::isnan(fx::beta_binomial::log_cdf<T>(T(1), T(5), T(0.5), T(-2))));
  CHECK(fx::beta_binomial::log_density<T>(T(6), T(5), T(0.5), T(2)) == -std::numeric_limits<T>::infinity());
}

TEST_CASE("beta_binomial: derivatives against central differences and the complex step", "[infer][beta_binomial]") {
  for (double n : {1.0, 12.0, 90.0})
    for (double p : {0.05, 0.5, 0.9})
      for (double kappa : {0.3, 6.0, 800.0})
        for (double y : {0.0, 1.0, 10.0, 60.0}) {
          if (y > n) continue;
          INFO("y = " << y << ", n = " << n << ", p = " << p << ", kappa = " << kappa);
          const std::array<double, 2> theta{p, kappa}, scale{std::min(p, 1 - p), kappa};
          check_partials(theta, scale, [&](auto t) { return fx::beta_binomial::log_density(y, n, t[0], t[1]); },
                         [&](auto t) { return fx::beta_binomial::log_density_partials(y, n, t[0], t[1]); }, 1e-8);
          if (y < n) {
            check_partials(theta, scale, [&](auto t) { return fx::beta_binomial::log_cdf(y, n, t[0], t[1]); },
                           [&](auto t) { return fx::beta_binomial::log_cdf_partials(y, n, t[0], t[1]); }, 1e-7);
            check_partials(theta, scale, [&](auto t) { return fx::beta_binomial::log_ccdf(y, n, t[0], t[1]); },
                           [&](auto t) { return fx::beta_binomial::log_ccdf_partials(y, n, t[0], t[1]); }, 1e-7);
          }
          const auto r = fx::beta_binomial::log_density_partials(y, n, p, kappa);
          CHECK_THAT(r.grad[0], WithinAbs(complex_step([&](cplx t) { return fx::beta_binomial::log_density(y, n, t, cplx(kappa)); }, p), 1e-11 * (1 + std::abs(r.grad[0]))));
          CHECK_THAT(r.grad[1], WithinAbs(complex_step([&](cplx t) { return fx::beta_binomial::log_density(y, n, cplx(p), t); }, kappa), 1e-11 * (1 + std::abs(r.grad[1]))));
        }
}

// ---------------------------------------------------------------- float against double

TEST_CASE("float derivatives agree with double", "[infer][float]") {
  const auto close = [](auto f, auto d, double rel) {
    CHECK_THAT(double(f.value), WithinAbs(d.value, rel * (1 + std::abs(d.value))));
    for (int i = 0; i < decltype(d)::size; ++i) CHECK_THAT(double(f.grad[i]), WithinAbs(d.grad[i], rel * (1 + std::abs(d.grad[i]))));
  };
  close(fx::normal::log_cdf_partials(-30.0f, 1.0f, 0.5f), fx::normal::log_cdf_partials(-30.0, 1.0, 0.5), 1e-5);
  close(fx::lognormal::log_density_partials(3.0f, 0.2f, 0.7f), fx::lognormal::log_density_partials(3.0, 0.2, 0.7), 1e-5);
  close(fx::poisson::log_ccdf_partials(30.0f, 12.5f), fx::poisson::log_ccdf_partials(30.0, 12.5), 1e-5);
  close(fx::neg_binomial_2::log_cdf_partials(4.0f, 12.5f, 3.0f), fx::neg_binomial_2::log_cdf_partials(4.0, 12.5, 3.0), 1e-4);
  close(fx::neg_binomial_2::log_density_partials(40.0f, 12.5f, 3.0f), fx::neg_binomial_2::log_density_partials(40.0, 12.5, 3.0), 1e-5);
  close(fx::binomial::log_cdf_partials(4.0f, 50.0f, 0.2f), fx::binomial::log_cdf_partials(4.0, 50.0, 0.2), 1e-4);
  close(fx::beta_binomial::log_ccdf_partials(20.0f, 30.0f, 0.3f, 4.0f), fx::beta_binomial::log_ccdf_partials(20.0, 30.0, 0.3, 4.0), 1e-4);
}
