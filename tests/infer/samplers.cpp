// Samplers of replayed observations (fluxion/infer/samplers.hpp) and the
// portable elementary functions under them (math/portable.hpp).
// Oracles: the C library's log, exp, cos and lgamma (accuracy to a few
// units in the last place), and the closed-form means, variances and
// probabilities of each distribution (sample moments within 5 standard
// errors; a chi-square test of the Poisson and negative binomial pmfs).
#include <catch2/catch_test_macros.hpp>

#include <fluxion/infer/samplers.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace fx = fluxion;
namespace pm = fluxion::math::portable;

namespace {

double ulps(double got, double want) {
  return std::abs(got - want) / (std::abs(want) * 2.220446049250313e-16 + 1e-300);
}

struct moments {
  double mean = 0, var = 0;
};
template <class F>
moments sample_moments(int n, F draw) {
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = draw();
    s += x, s2 += x * x;
  }
  const double m = s / n;
  return {m, s2 / n - m * m};
}

// |sample mean - mean| within 5 standard errors, and the variance within 5
// of its standard errors given the fourth central moment mu4.
void check_moments(const char* what, const moments& got, double mean, double var, double mu4, int n) {
  INFO(what << ": mean " << got.mean << " (want " << mean << "), variance " << got.var << " (want " << var << ")");
  CHECK(std::abs(got.mean - mean) < 5 * std::sqrt(var / n));
  CHECK(std::abs(got.var - var) < 5 * std::sqrt((mu4 - var * var) / n));
}

}  // namespace

TEST_CASE("portable log, exp, cos(2 pi u) and lgamma are within a few ulps of the C library") {
  double worst_log = 0, worst_exp = 0, worst_cos = 0, worst_lgamma = 0;
  std::uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return double(x >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 200000; ++i) {
    const double u = next();
    const double lx = std::exp(-700 + 1400 * next());  // 1e-304 .. 1e304
    worst_log = std::max(worst_log, ulps(pm::log(lx), std::log(lx)));
    const double e = -700 + 1400 * u;
    worst_exp = std::max(worst_exp, ulps(pm::exp(e), std::exp(e)));
    worst_cos = std::max(worst_cos, std::abs(pm::cos_two_pi(u) - std::cos(2 * M_PI * u)) / 2.220446049250313e-16);
    const double g = std::exp(-4 + 18 * next());  // 0.018 .. 6.6e5
    // lgamma: relative to max(1, |lgamma|) (near its zeros at 1 and 2 the sum cancels).
    worst_lgamma = std::max(worst_lgamma, std::abs(pm::lgamma(g) - std::lgamma(g)) /
                                              std::max(1.0, std::abs(std::lgamma(g))) / 2.220446049250313e-16);
  }
  INFO("log " << worst_log << " ulp, exp " << worst_exp << ", cos " << worst_cos << " (absolute, in eps), lgamma "
              << worst_lgamma);
  CHECK(worst_log <= 2);
  CHECK(worst_exp <= 2);
  CHECK(worst_cos <= 4);  // cos(2 pi u) in double also rounds 2 pi u
  CHECK(worst_lgamma <= 64);
  CHECK(std::abs(pm::lgamma(1.0)) < 1e-14);
  CHECK(std::abs(pm::lgamma(2.0)) < 1e-14);
  CHECK(std::abs(pm::lgamma(0.5) - 0.5 * std::log(M_PI)) < 1e-14);
  CHECK(std::abs(pm::lgamma(101.0) - 363.73937555556347) < 1e-12);  // log 100!
  // Float: a few float ulps.
  float worst_f = 0;
  for (int i = 1; i < 1000; ++i) {
    const float v = float(i) * 0.0371f;
    worst_f = std::max(worst_f, std::abs(pm::log(v) - std::log(v)) / (std::abs(std::log(v)) * 1.1920929e-7f + 1e-30f));
    worst_f = std::max(worst_f, std::abs(pm::exp(v) - std::exp(v)) / (std::exp(v) * 1.1920929e-7f));
  }
  CHECK(worst_f <= 4);
  CHECK(pm::exp(1000.0) == INFINITY);
  CHECK(pm::exp(-1000.0) == 0.0);
}

TEST_CASE("continuous samplers have their distributions' moments") {
  const int n = 200000;
  fx::draw_stream s({.seed = 11, .trajectory = 1});
  check_moments("normal(2, 3)", sample_moments(n, [&] { return fx::sample_normal(s, 2.0, 3.0); }), 2, 9, 3 * 81.0, n);
  // Log-normal(0, 0.5): with w = e^(sigma^2), mean e^(sigma^2 / 2), variance (w - 1) w, fourth
  // central moment e^(2 sigma^2) (w - 1)^2 (w^4 + 2 w^3 + 3 w^2 - 3).
  const double w = std::exp(0.25), m = std::exp(0.125), v = (w - 1) * w;
  const double mu4 = std::exp(0.5) * (w - 1) * (w - 1) * (w * w * w * w + 2 * w * w * w + 3 * w * w - 3);
  check_moments("lognormal(0, 0.5)", sample_moments(n, [&] { return fx::sample_lognormal(s, 0.0, 0.5); }), m, v, mu4, n);
  for (double shape : {0.4, 1.0, 3.5}) {
    const double rate = 2.0, mean = shape / rate, var = shape / (rate * rate);
    const double mu4 = 3 * shape * (shape + 2) / std::pow(rate, 4);
    check_moments("gamma", sample_moments(n, [&] { return fx::sample_gamma(s, shape, rate); }), mean, var, mu4, n);
  }
  // Beta(2, 5): mean 2/7, variance 10 / (49 * 8).
  const double bv = 10.0 / (49 * 8);
  check_moments("beta(2, 5)", sample_moments(n, [&] { return fx::sample_beta(s, 2.0, 5.0); }), 2.0 / 7, bv, 3 * bv * bv, n);
  CHECK(std::isnan(fx::sample_normal(s, 0.0, -1.0)));
  CHECK(std::isnan(fx::sample_gamma(s, 0.0, 1.0)));
}

TEST_CASE("count samplers have their distributions' moments and probabilities") {
  const int n = 200000;
  fx::draw_stream s({.seed = 12, .series = 3});
  for (double mean : {0.3, 4.0, 9.99, 10.0, 37.5, 1200.0}) {
    INFO("Poisson mean " << mean);
    check_moments("poisson", sample_moments(n, [&] { return double(fx::sample_poisson(s, mean)); }), mean, mean,
                  mean * (1 + 3 * mean), n);
  }
  // Poisson(4) and Poisson(25): chi-square of the counts against the pmf, cells with at least 5 expected.
  for (double mean : {4.0, 25.0}) {
    std::vector<int> counts(200, 0);
    for (int i = 0; i < n; ++i) {
      const long long k = fx::sample_poisson(s, mean);
      REQUIRE(k >= 0);
      if (k < 200) ++counts[std::size_t(k)];
    }
    double chi2 = 0;
    int cells = 0;
    for (int k = 0; k < 200; ++k) {
      const double expected = n * std::exp(k * std::log(mean) - mean - std::lgamma(k + 1.0));
      if (expected < 5) continue;
      chi2 += (counts[std::size_t(k)] - expected) * (counts[std::size_t(k)] - expected) / expected;
      ++cells;
    }
    INFO("Poisson(" << mean << "): chi2 " << chi2 << " over " << cells << " cells");
    // Mean cells - 1, sd sqrt(2 (cells - 1)): within 5 sd.
    CHECK(chi2 < (cells - 1) + 5 * std::sqrt(2.0 * (cells - 1)));
  }
  for (double mu : {0.8, 20.0}) {
    const double phi = 2.5, var = mu + mu * mu / phi;
    // Fourth central moment of the negative binomial (r = phi, p = phi / (phi + mu)):
    // var (1 + 3 var (1 + 2 / r) ... ); a generous bound: use 3 var^2 + var (1 + 6 var / r).
    const double mu4 = 3 * var * var + var * (1 + 6 * var / phi);
    check_moments("neg_binomial_2", sample_moments(n, [&] { return double(fx::sample_neg_binomial_2(s, mu, phi)); }), mu,
                  var, mu4 * 2, n);
  }
  {
    const long long trials = 40;
    const double p = 0.3, var = trials * p * (1 - p);
    check_moments("binomial(40, 0.3)", sample_moments(n, [&] { return double(fx::sample_binomial(s, trials, p)); }),
                  trials * p, var, 3 * var * var + var, n);
    const double kappa = 6.0, bbvar = trials * p * (1 - p) * (trials + kappa) / (1 + kappa);
    check_moments("beta_binomial(40, 0.3, 6)",
                  sample_moments(n / 4, [&] { return double(fx::sample_beta_binomial(s, trials, p, kappa)); }),
                  trials * p, bbvar, 3 * bbvar * bbvar * 1.5, n / 4);
  }
  CHECK(fx::sample_poisson(s, -1.0) == -1);
  CHECK(fx::sample_poisson(s, NAN) == -1);
  CHECK(fx::sample_binomial(s, 5, 1.5) == -1);
  CHECK(fx::sample_neg_binomial_2(s, 0.0, 1.0) == 0);
}

TEST_CASE("a sampler's draws are its key's: replaying a key replays the draws") {
  auto draws = [](std::uint32_t trajectory) {
    fx::draw_stream s({.seed = 5, .trajectory = trajectory, .series = 1, .time = 9});
    std::vector<double> out;
    for (int i = 0; i < 50; ++i) {
      out.push_back(fx::sample_normal(s, 0.0, 1.0));
      out.push_back(double(fx::sample_neg_binomial_2(s, 12.0, 3.0)));
      out.push_back(double(fx::sample_poisson(s, 40.0)));
    }
    return out;
  };
  CHECK(draws(3) == draws(3));
  CHECK(draws(3) != draws(4));
}
