// Density parameters that are not model parameters (issue 39 item 3): a
// series' sd given as a constant (fx::fixed) or per observation from its data
// (fx::from_data, series_data::parameter_values).
//
// Oracle: y' = c - k y has the closed form y(t) = c/k + (y0 - c/k) e^{-kt};
// the normal log-density with a known sd s_i at each observation and its
// derivatives in k, c and y0 are written out below. The model's own sd
// parameter is NaN in every call: a fixed or per-observation sd that read it
// would give NaN, and its gradient column must be exactly zero. Forward
// sensitivities, the discrete adjoint and a member per sensitivity column
// (the GPU's lane-per-column protocol, run by host threads) are checked.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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
#include <string>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using log_density_fixtures::relax;

namespace {

using M = fx::compiled<relax, double>;
constexpr std::size_t columns = M::n_params + M::n_states;  // k, c, sd, y0
const double not_a_number = std::numeric_limits<double>::quiet_NaN();

const std::vector<double> ts = {0.3, 1.0, 2.0, 3.5};
const std::vector<fx::observation<double>> obs = {fx::observation<double>::exact(1.1),
                                                  fx::observation<double>::exact(0.7),
                                                  fx::observation<double>::exact(0.0),
                                                  fx::observation<double>::exact(1.9)};
const std::vector<unsigned char> mask = {1, 1, 0, 1};

fx::ode_problem<double> problem() { return {.t0 = 0, .t1 = 3.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-12}; }

// The log-likelihood (no priors) with sd s[i] at observation i, and its
// gradient in (k, c, sd, y0): the sd column is zero, sd being known.
struct exact_result {
  double value = 0;
  double grad[columns] = {};
};
exact_result closed_form(double kk, double cc, double y0, const std::vector<double>& s) {
  exact_result r;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!mask[i]) continue;
    const double t = ts[i], e = std::exp(-kk * t);
    const double yt = cc / kk + (y0 - cc / kk) * e;
    const double res = obs[i].value - yt;
    r.value += -0.5 * res * res / (s[i] * s[i]) - std::log(s[i]) - 0.5 * std::log(2 * std::numbers::pi);
    const double w = res / (s[i] * s[i]);
    r.grad[0] += w * (-cc / (kk * kk) + cc / (kk * kk) * e - t * (y0 - cc / kk) * e);
    r.grad[1] += w * (1 - e) / kk;
    r.grad[3] += w * e;
  }
  return r;
}

// Inputs of three trajectories; the model's sd parameter NaN.
struct inputs {
  static constexpr std::size_t B = 3;
  std::vector<double> x0 = {0.4, 1.3, 2.0};
  std::vector<double> th = {0.5, 1.2, 1.9, /* c */ 0.9, 0.3, 1.4, /* sd */ not_a_number, not_a_number, not_a_number};
  double k(std::size_t b) const { return th[b]; }
  double c(std::size_t b) const { return th[B + b]; }
};

template <class Lik, class... How>
fx::log_density_result<double> evaluate(const Lik& lik, const std::vector<fx::series_data<double>>& data,
                                        const inputs& in, How... how) {
  return fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, inputs::B,
                               fx::soa(std::span<const double>(in.x0)), fx::soa(std::span<const double>(in.th)),
                               how...);
}

void check_against(const fx::log_density_result<double>& r, const inputs& in, const std::vector<double>& s,
                   bool gradient) {
  for (std::size_t b = 0; b < inputs::B; ++b) {
    INFO("trajectory " << b);
    REQUIRE(r.status[b] == fx::solve_status::success);
    const exact_result e = closed_form(in.k(b), in.c(b), in.x0[b], s);
    CHECK_THAT(r.value[b], WithinRel(e.value, 1e-9));
    if (!gradient) continue;
    for (std::size_t j = 0; j < columns; ++j) {
      INFO("column " << j);
      if (j == 2) CHECK(r.gradient(j, b) == 0.0);
      else CHECK_THAT(r.gradient(j, b), WithinAbs(e.grad[j], 1e-7 * (1 + std::abs(e.grad[j]))));
    }
  }
}

using log_density_harness::data_error_of;

}  // namespace

TEST_CASE("a normal series with a fixed sd: value and gradient match the closed form, no sd column") {
  const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {fx::fixed(0.4)}});
  const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask}};
  const std::vector<double> s(ts.size(), 0.4);
  const inputs in;
  check_against(evaluate(lik, data, in), in, s, true);
  check_against(evaluate(lik, data, in, false), in, s, false);
  check_against(evaluate(lik, data, in, fx::discrete_adjoint{}), in, s, true);
}

TEST_CASE("a normal series with an sd per observation from its data: value and gradient match the closed form") {
  const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {fx::from_data}});
  // The masked observation's sd is not read (NaN there is fine).
  const std::vector<double> s = {0.25, 0.6, not_a_number, 1.3};
  const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask, .parameter_values = s}};
  const inputs in;
  check_against(evaluate(lik, data, in), in, s, true);
  check_against(evaluate(lik, data, in, false), in, s, false);
  check_against(evaluate(lik, data, in, fx::discrete_adjoint{}), in, s, true);
}

TEST_CASE("a member per sensitivity column reads fixed and per-observation sds as one thread does") {
  // Two series on the same observable: one fixed sd, one from data.
  const fx::likelihood lik(fx::series<fx::normal>{.name = "fixed", .observable = 0, .parameters = {fx::fixed(0.4)}},
                           fx::series<fx::normal>{.name = "per observation", .observable = 0,
                                                  .parameters = {fx::from_data}});
  const std::vector<double> s = {0.25, 0.6, not_a_number, 1.3};
  const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask},
                                                     {.values = obs, .mask = mask, .parameter_values = s}};
  const inputs in;
  const std::vector<double> fixed_s(ts.size(), 0.4);
  for (std::size_t b = 0; b < inputs::B; ++b) {
    INFO("trajectory " << b);
    const double xb[1] = {in.x0[b]}, tb[3] = {in.k(b), in.c(b), not_a_number};
    double value = not_a_number, grad[columns];
    for (double& g : grad) g = not_a_number;
    const auto status = log_density_harness::members_log_density<fx::tsit5, M>(problem(), lik, data, fx::priors<>{},
                                                                                xb, tb, &value, grad, 1);
    for (const auto st : status) REQUIRE(st == fx::solve_status::success);
    const exact_result a = closed_form(in.k(b), in.c(b), in.x0[b], fixed_s), e = closed_form(in.k(b), in.c(b), in.x0[b], s);
    CHECK_THAT(value, WithinRel(a.value + e.value, 1e-9));
    for (std::size_t j = 0; j < columns; ++j) {
      INFO("column " << j);
      const double want = a.grad[j] + e.grad[j];
      if (j == 2) CHECK(grad[j] == 0.0);
      else CHECK_THAT(grad[j], WithinAbs(want, 1e-7 * (1 + std::abs(want))));
    }
  }
}

TEST_CASE("fixed and per-observation density parameters are checked before any work") {
  const inputs in;
  const auto refused = [&](const auto& lik, std::vector<fx::series_data<double>> data) {
    return data_error_of([&] { (void)evaluate(lik, data, in); });
  };
  using series = fx::series<fx::normal>;
  SECTION("a fixed sd that is zero, negative, infinite or NaN") {
    for (const double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), not_a_number}) {
      INFO("sd " << bad);
      const fx::likelihood lik(series{.name = "y", .observable = 0, .parameters = {fx::fixed(bad)}});
      const std::string what = refused(lik, {{.values = obs, .mask = mask}});
      CHECK_THAT(what, ContainsSubstring("series 'y'"));
      CHECK_THAT(what, ContainsSubstring("normal density's parameter 1 is fixed at"));
      CHECK_THAT(what, ContainsSubstring("must be positive and finite"));
    }
  }
  const fx::likelihood per_obs(series{.name = "y", .observable = 0, .parameters = {fx::from_data}});
  SECTION("fx::from_data without parameter values, or with too few") {
    CHECK_THAT(refused(per_obs, {{.values = obs, .mask = mask}}),
               ContainsSubstring("needs one parameter value per save time (4), got 0"));
    const std::vector<double> three = {1, 1, 1};
    CHECK_THAT(refused(per_obs, {{.values = obs, .mask = mask, .parameter_values = three}}),
               ContainsSubstring("needs one parameter value per save time (4), got 3"));
  }
  SECTION("a non-positive or NaN per-observation sd where the value is observed, with its time index") {
    const std::vector<double> s = {0.25, -0.6, 1.0, 1.3};
    const std::string what = refused(per_obs, {{.values = obs, .mask = mask, .parameter_values = s}});
    CHECK_THAT(what, ContainsSubstring("parameter value -0.6 must be positive and finite"));
    CHECK_THAT(what, ContainsSubstring("at time index 1"));
    const std::vector<double> s_nan = {0.25, 0.6, 1.0, not_a_number};
    CHECK_THAT(refused(per_obs, {{.values = obs, .mask = mask, .parameter_values = s_nan}}),
               ContainsSubstring("must be positive and finite"));
  }
  SECTION("parameter values given to a series that reads none") {
    const fx::likelihood fixed(series{.name = "y", .observable = 0, .parameters = {fx::fixed(0.4)}});
    const std::vector<double> s = {1, 1, 1, 1};
    CHECK_THAT(refused(fixed, {{.values = obs, .mask = mask, .parameter_values = s}}),
               ContainsSubstring("no parameter of the series is fx::from_data"));
  }
  SECTION("a null span of parameter values with a length") {
    const std::span<const double> null_span(static_cast<const double*>(nullptr), 4);
    CHECK_THAT(refused(per_obs, {{.values = obs, .mask = mask, .parameter_values = null_span}}),
               ContainsSubstring("parameter values"));
  }
  SECTION("a negative index that is no marker") {
    const fx::likelihood lik(series{.name = "y", .observable = 0, .parameters = {-7}});
    CHECK_THAT(refused(lik, {{.values = obs, .mask = mask}}), ContainsSubstring("parameter index -7"));
  }
}
