// Per-series and per-observation log-density terms (issue 39 item 4),
// returned by the same call as the value: log_density_buffers'
// series_values [series][trajectory] and observation_values
// [series][save time][trajectory], and log_density_result's series_values.
//
// Oracle: y' = c - k y has the closed form y(t) = c/k + (y0 - c/k) e^{-kt};
// each observation's normal log-density (at a save time, and over the
// interval since the save time before) is written out below. The sums over
// series (no priors here) must be the value. Checked by forward
// sensitivities, the value alone, the discrete adjoint (its result's series
// sums) and a member per sensitivity column; a failed trajectory has -inf
// everywhere; a wrong buffer is refused before anything is written.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/infer/log_density_columns.hpp>

#include "log_density_fixtures.hpp"
#include "log_density_harness.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <span>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using log_density_fixtures::relax;

namespace {

using M = fx::compiled<relax, double>;
constexpr std::size_t B = 3, S = 4, K = 2;  // trajectories, save times, series
const std::vector<double> ts = {0.5, 1.0, 2.0, 3.5};
const std::vector<fx::observation<double>> levels = {
    fx::observation<double>::exact(0.9), fx::observation<double>::exact(1.0), fx::observation<double>::exact(1.2),
    fx::observation<double>::exact(1.1)};
const std::vector<fx::observation<double>> counts = {
    fx::observation<double>::exact(0.4), fx::observation<double>::exact(0.5), fx::observation<double>::exact(1.0),
    fx::observation<double>::exact(1.6)};
const std::vector<unsigned char> level_mask = {1, 0, 1, 1}, count_mask = {1, 1, 1, 0};
constexpr double sd_level = 0.3, sd_count = 0.2;
const double minus_inf = -std::numeric_limits<double>::infinity();

const fx::likelihood lik(
    fx::series<fx::normal>{.name = "level", .observable = 0, .parameters = {fx::fixed(sd_level)}},
    fx::interval_series<fx::normal>{.name = "count", .observable = 0, .parameters = {fx::fixed(sd_count)}});
const std::vector<fx::series_data<double>> data = {{.values = levels, .mask = level_mask},
                                                   {.values = counts, .mask = count_mask}};

fx::ode_problem<double> problem() { return {.t0 = 0, .t1 = 3.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-12}; }

double normal_log_pdf(double x, double mean, double sd) {
  const double z = (x - mean) / sd;
  return -0.5 * z * z - std::log(sd) - 0.5 * std::log(2 * std::numbers::pi);
}
// The closed-form terms [series][save time] of trajectory (k, c, y0); 0 where missing.
std::vector<double> exact_terms(double kk, double cc, double y0) {
  const auto y = [&](double t) { return cc / kk + (y0 - cc / kk) * std::exp(-kk * t); };
  const auto integral = [&](double a, double b) {
    return cc / kk * (b - a) + (y0 - cc / kk) * (std::exp(-kk * a) - std::exp(-kk * b)) / kk;
  };
  std::vector<double> out(K * S, 0.0);
  for (std::size_t s = 0; s < S; ++s) {
    if (level_mask[s]) out[s] = normal_log_pdf(levels[s].value, y(ts[s]), sd_level);
    if (count_mask[s]) out[S + s] = normal_log_pdf(counts[s].value, integral(s ? ts[s - 1] : 0.0, ts[s]), sd_count);
  }
  return out;
}

const std::vector<double> x0 = {0.4, 1.3, 2.0};
const std::vector<double> th = {0.5, 1.2, 1.9, /* c */ 0.9, 0.3, 1.4, /* sd, unread */ 1, 1, 1};

void check_terms(const std::vector<double>& values, const std::vector<double>& series,
                 const std::vector<double>& observations) {
  for (std::size_t b = 0; b < B; ++b) {
    INFO("trajectory " << b);
    const auto want = exact_terms(th[b], th[B + b], x0[b]);
    double total = 0;
    for (std::size_t k = 0; k < K; ++k) {
      double sum = 0;
      for (std::size_t s = 0; s < S; ++s) {
        INFO("series " << k << ", save time " << s);
        sum += want[k * S + s];
        if (!observations.empty()) {
          const double got = observations[(k * S + s) * B + b];
          if (want[k * S + s] == 0) CHECK(got == 0.0);
          else CHECK_THAT(got, WithinRel(want[k * S + s], 1e-9));
        }
      }
      CHECK_THAT(series[k * B + b], WithinRel(sum, 1e-9));
      total += series[k * B + b];
    }
    CHECK_THAT(values[b], WithinRel(total, 1e-12));
  }
}

}  // namespace

TEST_CASE("per-series and per-observation terms into buffers: the closed forms, summing to the value") {
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  for (const bool gradient : {true, false}) {
    INFO((gradient ? "with the gradient" : "the value alone"));
    std::vector<double> value(B), grad(gradient ? 4 * B : 0), series(K * B, 7.0), observations(K * S * B, 7.0);
    std::vector<fx::solve_status> status(B);
    fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, B, xs, ps,
                          fx::log_density_buffers<double>{.value = value,
                                                          .gradients = grad,
                                                          .status = status,
                                                          .series_values = series,
                                                          .observation_values = observations});
    check_terms(value, series, observations);
    // Asked for alone, each is the same.
    std::vector<double> series_only(K * B, 7.0);
    fx::host::log_density(
        M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, B, xs, ps,
        fx::log_density_buffers<double>{.value = value, .gradients = grad, .status = status, .series_values = series_only});
    CHECK(series_only == series);
  }
}

TEST_CASE("the result forms' series values: forward sensitivities and the discrete adjoint") {
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  const auto forward = fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, B, xs, ps);
  const auto adjoint = fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, B, xs,
                                             ps, fx::discrete_adjoint{});
  REQUIRE(forward.series_values.size() == K * B);
  REQUIRE(adjoint.series_values.size() == K * B);
  check_terms(forward.value, forward.series_values, {});
  check_terms(adjoint.value, adjoint.series_values, {});
  CHECK_THAT(forward.series_value(1, 2), WithinRel(forward.series_values[1 * B + 2], 0.0));
}

TEST_CASE("a member per sensitivity column writes the same terms") {
  std::vector<double> value(B), grad(5 * B), series(K * B, 7.0), observations(K * S * B, 7.0);
  for (std::size_t b = 0; b < B; ++b) {
    const double xb[1] = {x0[b]}, tb[3] = {th[b], th[B + b], 1};
    const fx::term_outputs<double> terms{series.data() + b, observations.data() + b, std::ptrdiff_t(B), S};
    const auto status = log_density_harness::members_log_density<fx::tsit5, M>(
        problem(), lik, data, fx::priors<>{}, xb, tb, &value[b], grad.data() + b, std::ptrdiff_t(B), terms);
    for (const auto st : status) REQUIRE(st == fx::solve_status::success);
  }
  check_terms(value, series, observations);
}

TEST_CASE("a failed trajectory's terms are -inf, as its value") {
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  fx::ode_problem<double> pr = problem();
  pr.max_steps = 2;
  std::vector<double> value(B), series(K * B, 7.0), observations(K * S * B, 7.0);
  std::vector<fx::solve_status> status(B);
  fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, B, xs, ps,
                        fx::log_density_buffers<double>{
                            .value = value, .gradients = {}, .status = status, .series_values = series,
                            .observation_values = observations});
  for (std::size_t b = 0; b < B; ++b) REQUIRE(status[b] == fx::solve_status::max_steps);
  for (double v : value) CHECK(v == minus_inf);
  for (double v : series) CHECK(v == minus_inf);
  for (double v : observations) CHECK(v == minus_inf);
  const auto adjoint = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, B, xs, ps,
                                             fx::discrete_adjoint{});
  for (double v : adjoint.series_values) CHECK(v == minus_inf);
}

TEST_CASE("term buffers of the wrong size or over an input are refused before anything is written") {
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  std::vector<double> value(B, 7.0), series(K * B - 1, 7.0), observations(K * S * B, 7.0);
  std::vector<fx::solve_status> status(B, fx::solve_status::non_finite);
  const auto call = [&](fx::log_density_buffers<double> out) {
    fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, B, xs, ps, out);
  };
  CHECK_THROWS_AS(call({.value = value, .gradients = {}, .status = status, .series_values = series}), fx::layout_error);
  std::vector<double> short_observations(K * S * B - 1, 7.0);
  CHECK_THROWS_AS(call({.value = value, .gradients = {}, .status = status, .observation_values = short_observations}),
                  fx::layout_error);
  // The two term buffers overlapping each other.
  std::vector<double> shared(K * B + K * S * B, 7.0);
  CHECK_THROWS_AS(call({.value = value,
                        .gradients = {},
                        .status = status,
                        .series_values = std::span<double>(shared.data(), K * B),
                        .observation_values = std::span<double>(shared.data() + 1, K * S * B)}),
                  fx::layout_error);
  for (double v : value) CHECK(v == 7.0);
  for (double v : shared) CHECK(v == 7.0);
  for (auto s : status) CHECK(s == fx::solve_status::non_finite);
}
