// Censored observations (fluxion/infer/censoring.hpp): the dispatch of
// fx::log_likelihood on the censoring kind, interval probabilities
// log P(a < Y <= b) on each of their three evaluation paths (below the
// median, above it, holding it), their derivatives, and empty or unbounded
// intervals, in float and double.
// Oracles: sums of pmfs written out here (discrete families, in logs, so
// that intervals far in a tail are checked to their digits), Simpson
// integrals of the pdf (continuous families; for the far upper tail the pdf
// is scaled by e^800 before integrating), and central differences.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/densities.hpp>

#include <array>
#include <cmath>
#include <limits>

#include "infer_oracles.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using infer_test::central_difference;
using infer_test::log_add;
using infer_test::simpson;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

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

// log sum_{a < k <= b} e^(log_pmf(k)) for integers a < b (k >= 0, k <= last).
template <class LogPmf>
double log_interval_sum(int a, int b, int last, LogPmf log_pmf) {
  double acc = -inf;
  for (int k = std::max(a + 1, 0); k <= std::min(b, last); ++k) acc = log_add(acc, log_pmf(k));
  return acc;
}

void check_log(double got, double want, double tol) { CHECK_THAT(got, WithinAbs(want, tol * (1 + std::abs(want)))); }

template <std::size_t N, class Value, class Partials>
void check_partials(const std::array<double, N>& theta, const std::array<double, N>& scale, Value value,
                    Partials partials, double tol) {
  const auto r = partials(theta);
  CHECK_THAT(r.value, WithinAbs(value(theta), 1e-13 * (1 + std::abs(r.value))));
  for (std::size_t i = 0; i < N; ++i) {
    const auto along = [&](double t) {
      auto th = theta;
      th[i] = t;
      return value(th);
    };
    const double fd = central_difference(along, theta[i], 1e-3 * scale[i]);
    INFO("parameter " << i << ": analytic " << r.grad[i] << ", central difference " << fd);
    CHECK_THAT(r.grad[i], WithinAbs(fd, tol * (1 + std::abs(fd))));
  }
}

const int lowers[] = {-1, 0, 2, 5, 9, 14, 25, 40};
const int widths[] = {1, 3, 10, 60};

}  // namespace

TEST_CASE("log_likelihood dispatches on the censoring kind", "[infer][censoring]") {
  using obs = fx::observation<double>;
  CHECK(fx::log_likelihood<fx::poisson>(obs::exact(4), 3.5) == fx::poisson::log_density(4.0, 3.5));
  CHECK(fx::log_likelihood<fx::poisson>(obs::left(4), 3.5) == fx::poisson::log_cdf(4.0, 3.5));
  CHECK(fx::log_likelihood<fx::poisson>(obs::right(4), 3.5) == fx::poisson::log_ccdf(4.0, 3.5));
  CHECK(fx::log_likelihood<fx::poisson>(obs::interval(2, 6), 3.5) == fx::log_interval_probability<fx::poisson>(2.0, 6.0, 3.5));
  CHECK(fx::log_likelihood<fx::normal>(obs::exact(0.3), 1.0, 2.0) == fx::normal::log_density(0.3, 1.0, 2.0));
  CHECK(fx::log_likelihood<fx::binomial>(obs::right(3), 10.0, 0.4) == fx::binomial::log_ccdf(3.0, 10.0, 0.4));
  const auto lp = fx::log_likelihood_partials<fx::neg_binomial_2>(obs::left(7), 5.0, 2.0);
  const auto direct = fx::neg_binomial_2::log_cdf_partials(7.0, 5.0, 2.0);
  CHECK(lp.value == direct.value);
  CHECK(lp.grad[0] == direct.grad[0]);
  CHECK(lp.grad[1] == direct.grad[1]);
  const auto li = fx::log_likelihood_partials<fx::beta_binomial>(obs::interval(1, 4), 12.0, 0.3, 5.0);
  const auto di = fx::log_interval_probability_partials<fx::beta_binomial>(1.0, 4.0, 12.0, 0.3, 5.0);
  CHECK(li.value == di.value);
  CHECK(li.grad[1] == di.grad[1]);
  // "At least 10 cases" is Y > 9.
  CHECK_THAT(std::exp(fx::log_likelihood<fx::poisson>(obs::right(9), 8.0)),
             WithinAbs(1 - std::exp(fx::poisson::log_cdf(9.0, 8.0)), 1e-15));
}

TEMPLATE_TEST_CASE("discrete interval probabilities are sums of the pmf, in either tail", "[infer][censoring]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (int a : lowers)
    for (int w : widths) {
      const int b = a + w;
      INFO("(" << a << ", " << b << "]");
      check_log(fx::log_interval_probability<fx::poisson>(T(a), T(b), T(6.5)),
                log_interval_sum(a, b, 2000, [](int k) { return poisson_log_pmf(k, 6.5); }), tol);
      check_log(fx::log_interval_probability<fx::neg_binomial_2>(T(a), T(b), T(6.5), T(3)),
                log_interval_sum(a, b, 5000, [](int k) { return nb_log_pmf(k, 6.5, 3); }), tol);
      check_log(fx::log_interval_probability<fx::binomial>(T(a), T(b), T(50), T(0.2)),
                log_interval_sum(a, b, 50, [](int k) { return binomial_log_pmf(k, 50, 0.2); }), tol);
      check_log(fx::log_interval_probability<fx::beta_binomial>(T(a), T(b), T(50), T(0.2), T(9)),
                log_interval_sum(a, b, 50, [](int k) { return beta_binomial_log_pmf(k, 50, 0.2, 9); }), tol);
    }
  // Fractional bounds are floored: (2.5, 6.9] is (2, 6].
  CHECK(fx::log_interval_probability<fx::poisson>(T(2.5), T(6.9), T(4)) == fx::log_interval_probability<fx::poisson>(T(2), T(6), T(4)));
}

TEMPLATE_TEST_CASE("continuous interval probabilities are integrals of the pdf", "[infer][censoring]", float, double) {
  using T = TestType;
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-12;
  const double mean = 1, sd = 2;
  const auto pdf = [&](double x) { return std::exp(-0.5 * std::pow((x - mean) / sd, 2)) / (sd * std::sqrt(2 * M_PI)); };
  // below the median, holding it, above it
  for (auto [a, b] : {std::pair{-6.0, -2.0}, std::pair{-9.0, 0.5}, std::pair{-0.5, 2.5}, std::pair{0.9, 1.1},
                      std::pair{1.5, 7.0}, std::pair{4.0, 12.0}}) {
    INFO("(" << a << ", " << b << "]");
    check_log(fx::log_interval_probability<fx::normal>(T(a), T(b), T(mean), T(sd)), std::log(simpson(pdf, a, b, 20000)), tol);
    // lognormal: the same interval of log y
    check_log(fx::log_interval_probability<fx::lognormal>(T(std::exp(a)), T(std::exp(b)), T(mean), T(sd)),
              std::log(simpson(pdf, a, b, 20000)), 5 * tol);
  }
  // Far in the upper tail of normal(0, 1): (40, 41] has probability e^-800.8..., below the
  // smallest double. Integrate e^800 phi(x) and take the 800 back out.
  const auto scaled = [](double x) { return std::exp(800 - 0.5 * x * x) / std::sqrt(2 * M_PI); };
  const double expected = std::log(simpson(scaled, 40, 41, 20000)) - 800;
  CHECK(std::isfinite(fx::log_interval_probability<fx::normal>(T(40), T(41), T(0), T(1))));
  check_log(fx::log_interval_probability<fx::normal>(T(40), T(41), T(0), T(1)), expected, tol);
  check_log(fx::log_interval_probability<fx::normal>(T(-41), T(-40), T(0), T(1)), expected, tol);
}

TEST_CASE("interval probabilities: derivatives on each evaluation path", "[infer][censoring]") {
  // normal(mean, sd) on (a, b]: below the median, above it, holding it, far in either tail
  for (auto [a, b] : {std::pair{-5.0, -1.0}, std::pair{2.0, 4.0}, std::pair{-0.5, 1.5}, std::pair{30.0, 31.0},
                      std::pair{-31.0, -30.0}}) {
    INFO("normal (" << a << ", " << b << "]");
    const std::array<double, 2> theta{0.5, 1.3}, scale{1.0, 1.3};
    check_partials(theta, scale, [&](auto t) { return fx::log_interval_probability<fx::normal>(a, b, t[0], t[1]); },
                   [&](auto t) { return fx::log_interval_probability_partials<fx::normal>(a, b, t[0], t[1]); }, 1e-8);
  }
  for (int a : lowers)
    for (int w : {1, 3, 10}) {
      const double lo = a, hi = a + w;
      INFO("(" << lo << ", " << hi << "]");
      check_partials(std::array<double, 1>{6.5}, std::array<double, 1>{6.5},
                     [&](auto t) { return fx::log_interval_probability<fx::poisson>(lo, hi, t[0]); },
                     [&](auto t) { return fx::log_interval_probability_partials<fx::poisson>(lo, hi, t[0]); }, 1e-7);
      check_partials(std::array<double, 2>{6.5, 3.0}, std::array<double, 2>{6.5, 3.0},
                     [&](auto t) { return fx::log_interval_probability<fx::neg_binomial_2>(lo, hi, t[0], t[1]); },
                     [&](auto t) { return fx::log_interval_probability_partials<fx::neg_binomial_2>(lo, hi, t[0], t[1]); }, 1e-7);
      if (lo < 50) {
        check_partials(std::array<double, 1>{0.2}, std::array<double, 1>{0.2},
                       [&](auto t) { return fx::log_interval_probability<fx::binomial>(lo, hi, 50.0, t[0]); },
                       [&](auto t) { return fx::log_interval_probability_partials<fx::binomial>(lo, hi, 50.0, t[0]); }, 1e-7);
        check_partials(std::array<double, 2>{0.2, 9.0}, std::array<double, 2>{0.2, 9.0},
                       [&](auto t) { return fx::log_interval_probability<fx::beta_binomial>(lo, hi, 50.0, t[0], t[1]); },
                       [&](auto t) { return fx::log_interval_probability_partials<fx::beta_binomial>(lo, hi, 50.0, t[0], t[1]); }, 1e-7);
      }
    }
}

TEST_CASE("empty, unbounded and NaN intervals", "[infer][censoring]") {
  CHECK(fx::log_interval_probability<fx::normal>(2.0, 2.0, 0.0, 1.0) == -inf);
  CHECK(fx::log_interval_probability<fx::normal>(3.0, 2.0, 0.0, 1.0) == -inf);
  const auto empty = fx::log_interval_probability_partials<fx::poisson>(4.0, 4.0, 3.0);
  CHECK(empty.value == -inf);
  CHECK(empty.grad[0] == 0.0);
  // (2.2, 2.8] holds no integer
  CHECK(fx::log_interval_probability<fx::poisson>(2.2, 2.8, 3.0) == -inf);
  CHECK(fx::log_interval_probability<fx::normal>(-inf, 1.5, 0.0, 1.0) == fx::normal::log_cdf(1.5, 0.0, 1.0));
  CHECK(fx::log_interval_probability<fx::normal>(1.5, inf, 0.0, 1.0) == fx::normal::log_ccdf(1.5, 0.0, 1.0));
  CHECK(fx::log_interval_probability<fx::normal>(-inf, inf, 0.0, 1.0) == 0.0);
  const auto all = fx::log_interval_probability_partials<fx::normal>(-inf, inf, 0.0, 1.0);
  CHECK(all.grad[0] == 0.0);
  CHECK(all.grad[1] == 0.0);
  CHECK(std::isnan(fx::log_interval_probability<fx::normal>(std::nan(""), 1.0, 0.0, 1.0)));
  CHECK(std::isnan(fx::log_interval_probability_partials<fx::poisson>(1.0, std::nan(""), 3.0).grad[0]));
  CHECK(std::isnan(fx::log_interval_probability<fx::poisson>(1.0, 3.0, -3.0)));
}
