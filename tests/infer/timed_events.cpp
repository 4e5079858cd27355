// Log-densities of a model with events at given times (solve/events.hpp;
// issue 39 item 6): values and gradients stay exact through doses, a reset
// and a scaling, by forward sensitivities, the discrete adjoint and a
// member per sensitivity column (the GPU's lane-per-column protocol on host
// threads), with observations before, at (after the events there) and
// after the events.
//
// Oracle: the closed form of tests/support/dosing.hpp (y' = -k y with the
// events written out by hand), observed with a normal of fixed sd; the
// log-density written out over std::complex and its gradient in (k, D, y0)
// by the complex step. An input from data (a parameter a table drives)
// against its closed form the same way, its own gradient entry 0.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>

#include "log_density_harness.hpp"
#include "support/dosing.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using M = fx::compiled<dosing::model, double>;
constexpr std::size_t columns = M::n_params + M::n_states;  // k, D, y0
using cplx = std::complex<double>;

// Observed before the first event, at events (after them), between them.
const std::vector<double> ts = {1.0, 2.0, 3.0, 5.0, 6.5, 7.0, 8.0, 9.5};
const std::vector<double> ys = {0.9, 1.9, 1.2, 1.5, 0.7, 0.3, 0.1, 0.05};
constexpr double sd = 0.15;

cplx closed_form(cplx kk, cplx dd, cplx y0) {
  cplx value = 0;
  for (std::size_t s = 0; s < ts.size(); ++s) {
    const cplx r = ys[s] - dosing::exact(ts[s], kk, dd, y0);
    value += -0.5 * r * r / (sd * sd) - std::log(sd) - 0.5 * std::log(2 * std::numbers::pi);
  }
  return value;
}

struct exact_result {
  double value;
  double grad[columns];
};
exact_result exact(double kk, double dd, double y0) {
  constexpr double h = 1e-30;
  return {closed_form(kk, dd, y0).real(),
          {closed_form(cplx(kk, h), dd, y0).imag() / h, closed_form(kk, cplx(dd, h), y0).imag() / h,
           closed_form(kk, dd, cplx(y0, h)).imag() / h}};
}

const fx::likelihood observed(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {fx::fixed(sd)}});

const std::vector<fx::observation<double>> observations = [] {
  std::vector<fx::observation<double>> values;
  for (const double v : ys) values.push_back(fx::observation<double>::exact(v));
  return values;
}();
std::vector<fx::series_data<double>> data() { return {{.values = observations}}; }

constexpr std::size_t B = 3;
const std::vector<double> x0 = {0.8, 1.4, 2.1};
const std::vector<double> th = {0.3, 0.55, 0.8, /* D */ 1.1, 0.6, 1.7};

void check(const fx::log_density_result<double>& r, bool gradient) {
  for (std::size_t b = 0; b < B; ++b) {
    INFO("trajectory " << b);
    REQUIRE(r.status[b] == fx::solve_status::success);
    const exact_result e = exact(th[b], th[B + b], x0[b]);
    CHECK_THAT(r.value[b], WithinRel(e.value, 1e-9));
    if (!gradient) continue;
    for (std::size_t j = 0; j < columns; ++j) {
      INFO("column " << j);
      CHECK_THAT(r.gradient(j, b), WithinAbs(e.grad[j], 1e-7 * (1 + std::abs(e.grad[j]))));
    }
  }
}

}  // namespace

TEST_CASE("a log-density through doses, a reset and a scaling: value and gradient match the closed form") {
  const fx::timed_events<double> ev = dosing::events();
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 9.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-13, .events = ev};
  const auto d = data();
  const auto run = [&](auto method, auto... how) {
    return fx::host::log_density(M{}, method, pr, observed, std::span<const fx::series_data<double>>(d),
                                 fx::priors<>{}, B, fx::soa(std::span<const double>(x0)),
                                 fx::soa(std::span<const double>(th)), how...);
  };
  SECTION("forward sensitivities, Tsit5") { check(run(fx::tsit5{}), true); }
  SECTION("forward sensitivities, Vern7") { check(run(fx::vern7{}), true); }
  SECTION("the value alone") { check(run(fx::tsit5{}, false), false); }
  SECTION("the discrete adjoint, Tsit5") { check(run(fx::tsit5{}, fx::discrete_adjoint{}), true); }
  SECTION("the discrete adjoint, Vern7") { check(run(fx::vern7{}, fx::discrete_adjoint{}), true); }
  SECTION("a member per sensitivity column") {
    for (std::size_t b = 0; b < B; ++b) {
      const double xb[] = {x0[b]}, pb[] = {th[b], th[B + b]};
      double value = 0, grad[columns] = {};
      const auto status = log_density_harness::members_log_density<fx::tsit5, M>(pr, observed, d, fx::priors<>{},
                                                                                 xb, pb, &value, grad, 1);
      for (const auto s : status) REQUIRE(s == fx::solve_status::success);
      const exact_result e = exact(th[b], th[B + b], x0[b]);
      CHECK_THAT(value, WithinRel(e.value, 1e-9));
      for (std::size_t j = 0; j < columns; ++j)
        CHECK_THAT(grad[j], WithinAbs(e.grad[j], 1e-7 * (1 + std::abs(e.grad[j]))));
    }
  }
}

TEST_CASE("a log-density's events are checked against the model's own states and parameters") {
  // The log-density integrates larger systems (sensitivities, accumulated
  // observables): an event must name a state of the model itself.
  std::vector<fx::timed_event<double>> events = {{.time = 1.0, .state = 1}};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 9.5, .save_times = ts, .events = events};
  const auto d = data();
  const auto call = [&](auto... how) {
    return fx::host::log_density(M{}, fx::tsit5{}, pr, observed, std::span<const fx::series_data<double>>(d),
                                 fx::priors<>{}, B, fx::soa(std::span<const double>(x0)),
                                 fx::soa(std::span<const double>(th)), how...);
  };
  CHECK_THROWS_WITH(call(), ContainsSubstring("event 0 changes state 1, which is not among the 1 states"));
  CHECK_THROWS_WITH(call(fx::discrete_adjoint{}), ContainsSubstring("event 0 changes state 1"));
  events[0] = {.time = 1.0, .param = 2, .param_weight = 1};
  CHECK_THROWS_WITH(call(), ContainsSubstring("event 0 reads parameter 2, which is not among the 2 parameters"));
}

TEST_CASE("a log-density refuses crossing events: their time's derivative is not taken") {
  const fx::crossing_event<double> c{.observable = 0, .level = 0.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 9.5, .save_times = ts, .crossings = std::span(&c, 1)};
  const auto d = data();
  for (const bool gradient : {true, false})
    CHECK_THROWS_WITH(fx::host::log_density(M{}, fx::tsit5{}, pr, observed, std::span<const fx::series_data<double>>(d),
                                            fx::priors<>{}, B, fx::soa(std::span<const double>(x0)),
                                            fx::soa(std::span<const double>(th)), gradient),
                      ContainsSubstring("a log-density does not take crossing events"));
  CHECK_THROWS_WITH(fx::host::log_density(M{}, fx::tsit5{}, pr, observed, std::span<const fx::series_data<double>>(d),
                                          fx::priors<>{}, B, fx::soa(std::span<const double>(x0)),
                                          fx::soa(std::span<const double>(th)), fx::discrete_adjoint{}),
                    ContainsSubstring("a log-density does not take crossing events"));
}

// An input from data: y' = -k r(t) y with r a table (1 until 2.5, 0.4 until
// 6, then 1.5), observed as y: y = y0 exp(-k R(t)), R the integral of r
// written by hand; the gradient in (k, y0) by the complex step, and r's
// entry exactly 0 (the trajectories' own r, 99, is never read).
namespace {
constexpr fx::param<"r"> r;
constexpr auto driven_decay = fx::model(fx::states(dosing::y), fx::params(dosing::k, r),
                                        fx::d(dosing::y) = -dosing::k * r * dosing::y,
                                        fx::observe<"level">() = dosing::y);
using D = fx::compiled<driven_decay, double>;
double rate_integral(double t) {
  return 1.0 * std::min(t, 2.5) + 0.4 * std::clamp(t - 2.5, 0.0, 3.5) + 1.5 * std::max(t - 6.0, 0.0);
}
cplx driven_closed_form(cplx kk, cplx y0) {
  cplx value = 0;
  for (std::size_t s = 0; s < ts.size(); ++s) {
    const cplx res = ys[s] - y0 * std::exp(-kk * rate_integral(ts[s]));
    value += -0.5 * res * res / (sd * sd) - std::log(sd) - 0.5 * std::log(2 * std::numbers::pi);
  }
  return value;
}
fx::timed_events<double> rate_table() {
  fx::timed_events<double> ev;
  ev.piecewise_constant(1, std::vector<double>{-1.0, 2.5, 6.0}, std::vector<double>{1.0, 0.4, 1.5});
  return ev;
}
}  // namespace

TEST_CASE("a log-density with an input from data: value and gradient match the closed form, the input's entry is 0") {
  const fx::timed_events<double> ev = rate_table();
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 9.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-13, .events = ev};
  const auto d = data();
  const std::vector<double> own = {0.3, 0.55, 0.8, /* r, never read */ 99, 99, 99};
  const auto check_driven = [&](std::size_t b, double value, const double* grad, std::ptrdiff_t stride) {
    INFO("trajectory " << b);
    constexpr double h = 1e-30;
    const double kk = own[b], y0 = x0[b];
    CHECK_THAT(value, WithinRel(driven_closed_form(kk, y0).real(), 1e-9));
    const double dk = driven_closed_form(cplx(kk, h), y0).imag() / h, dy0 = driven_closed_form(kk, cplx(y0, h)).imag() / h;
    CHECK_THAT(grad[0], WithinAbs(dk, 1e-7 * (1 + std::abs(dk))));
    CHECK(grad[stride] == 0.0);  // r: data
    CHECK_THAT(grad[2 * stride], WithinAbs(dy0, 1e-7 * (1 + std::abs(dy0))));
  };
  const auto run = [&](auto method, auto... how) {
    return fx::host::log_density(D{}, method, pr, observed, std::span<const fx::series_data<double>>(d),
                                 fx::priors<>{}, B, fx::soa(std::span<const double>(x0)),
                                 fx::soa(std::span<const double>(own)), how...);
  };
  const auto check_all = [&](const fx::log_density_result<double>& res) {
    for (std::size_t b = 0; b < B; ++b) {
      REQUIRE(res.status[b] == fx::solve_status::success);
      const double grad[] = {res.gradient(0, b), res.gradient(1, b), res.gradient(2, b)};
      check_driven(b, res.value[b], grad, 1);
    }
  };
  SECTION("forward sensitivities, Tsit5") { check_all(run(fx::tsit5{})); }
  SECTION("forward sensitivities, Vern7") { check_all(run(fx::vern7{})); }
  SECTION("the discrete adjoint, Tsit5") { check_all(run(fx::tsit5{}, fx::discrete_adjoint{})); }
  SECTION("the discrete adjoint, Vern7") { check_all(run(fx::vern7{}, fx::discrete_adjoint{})); }
  SECTION("a member per sensitivity column") {
    for (std::size_t b = 0; b < B; ++b) {
      const double xb[] = {x0[b]}, pb[] = {own[b], own[B + b]};
      double value = 0, grad[3] = {};
      const auto status = log_density_harness::members_log_density<fx::tsit5, D>(pr, observed, d, fx::priors<>{},
                                                                                 xb, pb, &value, grad, 1);
      for (const auto st : status) REQUIRE(st == fx::solve_status::success);
      check_driven(b, value, grad, 1);
    }
  }
}

TEST_CASE("a log-density refuses observables, density parameters and priors that read a parameter an input drives") {
  const fx::timed_events<double> ev = rate_table();
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 9.5, .save_times = ts, .events = ev};
  const auto d = data();
  const std::vector<double> own = {0.3, 0.55, 0.8, 1, 1, 1};
  const auto call = [&](auto model, const auto& lik, const auto& pri) {
    using C = decltype(model);
    return fx::host::log_density(C{}, fx::tsit5{}, pr, lik, std::span<const fx::series_data<double>>(d), pri, B,
                                 fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(own)));
  };
  constexpr auto reads_r = fx::model(fx::states(dosing::y), fx::params(dosing::k, r),
                                     fx::d(dosing::y) = -dosing::k * r * dosing::y,
                                     fx::observe<"level">() = r * dosing::y);
  CHECK_THROWS_WITH(call(fx::compiled<reads_r, double>{}, observed, fx::priors<>{}),
                    ContainsSubstring("observable 0 reads parameter 1, which an input from data drives"));
  const fx::likelihood sd_is_r(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {1}});
  CHECK_THROWS_WITH(call(D{}, sd_is_r, fx::priors<>{}),
                    ContainsSubstring("series 'y' reads parameter 1 (its normal density's parameter 1), which an "
                                      "input from data drives"));
  CHECK_THROWS_WITH(call(D{}, observed, fx::priors(fx::prior_on{1, fx::lognormal_prior<double>{0.0, 1.0}})),
                    ContainsSubstring("prior 0 is on parameter 1, which an input from data drives"));
}
