// The log-density's gradient by the discrete adjoint
// (fx::host::log_density(..., fx::discrete_adjoint{})) against independent
// oracles and against forward sensitivities:
//   - y' = c - k y under a normal density: the closed-form log-likelihood
//     and gradient (log_density_fixtures.hpp), Tsit5 and Vern7;
//   - the two-patch SIR with negative-binomial (masked, right-, left- and
//     interval-censored) and log-normal series: complex step and central
//     differences of a hand-written RK4 with hand-written densities;
//   - the same with steps ending on every save time (t1 among them), and
//     with t1 beyond the last save time: the closed form;
//   - y' = (-k + a sin 3t) y, whose Jacobian changes with t: the closed form;
//   - fixed steps, save times on the steps' ends, inside them (several in
//     one step) and at t0: the adjoint is the exact derivative of the
//     computed value, so it equals forward sensitivities integrated with the
//     same steps to rounding, and central differences of the computed value
//     (fixed steps make it smooth in the parameters), float and double;
//   - a missing value whose observable's derivative is infinite adds nothing;
//   - too many steps for the tape, and failed integrations: status, -inf, 0;
//   - thread counts do not change a bit of the result.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>

#include "log_density_fixtures.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

using namespace log_density_fixtures;

namespace {

// Random two-patch SIR initial states and parameters, [element][trajectory].
struct sir2_inputs {
  std::vector<double> x0, th;
  sir2_inputs(std::size_t B, std::uint64_t seed) : x0(n_states * B), th(n_params * B) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::size_t b = 0; b < B; ++b) {
      const double xb[n_states] = {950 + 50 * u(rng), 480 + 40 * u(rng), 3 + 5 * u(rng), 1 + 2 * u(rng), 0, 5 * u(rng)};
      const double tb[n_params] = {0.35 + 0.1 * u(rng), 0.3 + 0.1 * u(rng), 1.0, 0.1 + 0.1 * u(rng),
                                   0.1 + 0.1 * u(rng),  1.0,                0.12 + 0.05 * u(rng), 3 + 5 * u(rng),
                                   0.2 + 0.2 * u(rng)};
      for (int i = 0; i < n_states; ++i) x0[std::size_t(i) * B + b] = xb[i];
      for (int j = 0; j < n_params; ++j) th[std::size_t(j) * B + b] = tb[j];
    }
  }
};

// The relax model (log_density_fixtures.hpp) observed through a normal series
// on y at six save times, with the closed form's priors: B random initial
// states and parameters (seeded), the values and the mask given.
struct relax_case {
  std::size_t B;
  std::vector<double> x0, th;
  std::vector<double> ts = {0.0, 0.3, 0.31, 1.0, 2.0, 3.5};
  std::vector<fx::observation<double>> obs;
  std::vector<unsigned char> mask;

  relax_case(std::size_t count, std::uint64_t seed, const std::vector<double>& values, std::vector<unsigned char> observed)
      : B(count), x0(count), th(3 * count), mask(std::move(observed)) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.3, 2.0);
    for (auto& e : x0) e = u(rng);
    for (auto& e : th) e = u(rng);
    for (const double v : values) obs.push_back(fx::observation<double>::exact(v));
  }

  // fx::host::log_density with `how` (fx::discrete_adjoint{}, or false for the value alone).
  template <class Method, class How>
  fx::log_density_result<double> log_density(Method method, const fx::ode_problem<double>& pr, How how) const {
    const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {2}});
    const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask}};
    const fx::priors pri(fx::prior_on{0, fx::normal_prior{1.0, 0.5}}, fx::prior_on{2, fx::half_normal_prior{1.0}});
    return fx::host::log_density(fx::compiled<relax, double>{}, method, pr, lik, std::span(data), pri, B,
                                 fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(th)), how);
  }

  // Every trajectory's value and gradient against relax_closed_form.
  void check_closed_form(const fx::log_density_result<double>& r) const {
    for (std::size_t b = 0; b < B; ++b) {
      INFO("trajectory " << b);
      REQUIRE(r.status[b] == fx::solve_status::success);
      const auto exact = relax_closed_form(th[b], th[B + b], th[2 * B + b], x0[b], ts, obs, mask);
      CHECK_THAT(r.value[b], WithinRel(exact.value, 1e-9));
      for (int j = 0; j < 4; ++j) {
        INFO("column " << j);
        CHECK_THAT(r.gradient(std::size_t(j), b), WithinAbs(exact.grad[j], 1e-7 * (1 + std::abs(exact.grad[j]))));
      }
    }
  }
};

}  // namespace

TEST_CASE("adjoint: y' = c - k y under a normal density matches the closed forms (Tsit5, Vern7)") {
  // A save time at t0, two inside the first steps, one at t1; day 2 missing.
  const relax_case rc(8, 5, {0.9, 1.1, 1.0, 0.7, 0.0, 1.9}, {1, 1, 1, 1, 0, 1});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 3.5, .save_times = rc.ts, .rtol = 1e-11, .atol = 1e-12};
  const auto tsit = rc.log_density(fx::tsit5{}, pr, fx::discrete_adjoint{});
  const auto vern = rc.log_density(fx::vern7{}, pr, fx::discrete_adjoint{});
  const auto value_only = rc.log_density(fx::tsit5{}, pr, false);
  for (const auto* r : {&tsit, &vern}) {
    INFO((r == &tsit ? "Tsit5" : "Vern7"));
    REQUIRE(r->columns == 4);
    rc.check_closed_form(*r);
    for (std::size_t b = 0; b < rc.B; ++b) CHECK(r->stats[b].jacobian_evaluations > 0);
  }
  // The adjoint integrates the model alone: the value-only path's steps and value.
  for (std::size_t b = 0; b < rc.B; ++b) {
    CHECK(tsit.stats[b].accepted == value_only.stats[b].accepted);
    CHECK(tsit.value[b] == value_only.value[b]);
  }
}

// The tape keeps no step's end: the backward pass takes it from the next
// step's start, and t1 for the last. Steps that end on every save time
// (t1 among them), and an integration that runs past its last save time.
TEST_CASE("adjoint: steps ending on the save times, and an end beyond the last one, match the closed forms") {
  const relax_case rc(6, 11, {0.9, 1.1, 1.0, 0.7, 0.4, 1.9}, {1, 1, 1, 1, 1, 1});
  for (const bool onto_saves : {true, false}) {
    // Onto the save times, the last of which is t1; otherwise an end beyond it.
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = onto_saves ? 3.5 : 4.25, .save_times = rc.ts, .rtol = 1e-11,
                                     .atol = 1e-12, .step_to_save_times = onto_saves};
    INFO((onto_saves ? "steps onto the save times" : "t1 beyond the last save time"));
    {
      INFO("Tsit5");
      rc.check_closed_form(rc.log_density(fx::tsit5{}, pr, fx::discrete_adjoint{}));
    }
    {
      INFO("Vern7");
      rc.check_closed_form(rc.log_density(fx::vern7{}, pr, fx::discrete_adjoint{}));
    }
  }
}

TEST_CASE("adjoint: two-patch SIR with censored negative-binomial and log-normal series matches complex step") {
  using M = fx::compiled<sir2, double>;
  constexpr std::size_t B = 3;
  const sir2_inputs in(B, 19);
  const sir2_data stored;
  const std::vector<fx::series_data<double>> data = stored.series();
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}},
                       fx::prior_on{7, fx::gamma_prior{2.0, 0.2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-12, .atol = 1e-10};
  const auto xs = fx::soa(std::span<const double>(in.x0));
  const auto ps = fx::soa(std::span<const double>(in.th));
  for (int method = 0; method < 2; ++method) {
    const auto r = method == 0 ? fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri,
                                                       B, xs, ps, fx::discrete_adjoint{})
                               : fx::host::log_density(M{}, fx::vern7{}, pr, sir2_likelihood, std::span(data), pri,
                                                       B, xs, ps, fx::discrete_adjoint{});
    std::size_t checked = 0;
    for (std::size_t b = 0; b < B; ++b) {
      INFO((method == 0 ? "Tsit5" : "Vern7") << ", trajectory " << b);
      REQUIRE(r.status[b] == fx::solve_status::success);
      double xb[n_states], tb[n_params];
      for (int i = 0; i < n_states; ++i) xb[i] = in.x0[std::size_t(i) * B + b];
      for (int j = 0; j < n_params; ++j) tb[j] = in.th[std::size_t(j) * B + b];
      const auto want = oracle_value_and_gradient(xb, tb);
      REQUIRE(std::isfinite(want.value));
      CHECK_THAT(r.value[b], WithinRel(want.value, 1e-9));
      for (int j = 0; j < n_params + n_states; ++j) {
        const double expected = want.grad[std::size_t(j)];
        INFO("column " << j);
        CHECK_THAT(r.gradient(std::size_t(j), b), WithinAbs(expected, 2e-6 * (1 + std::abs(expected))));
        ++checked;
      }
    }
    CHECK(checked == B * (n_params + n_states));
  }
}

// y' = (-k + a sin 3t) y: y(t) = y0 exp(-k t + a (1 - cos 3t) / 3), so
// d y/d k = -t y, d y/d a = y (1 - cos 3t) / 3, d y/d y0 = y / y0; observed
// through a normal density with sd a parameter.
constexpr fx::param<"a"> a_amp;
constexpr auto seasonal = fx::model(fx::states(y), fx::params(k, a_amp, sd),
                                    fx::d(y) = (-k + a_amp * fx::sin(3.0 * fx::t)) * y,
                                    fx::observe<"y_obs">() = y);

TEST_CASE("adjoint: a non-autonomous model (y' = (-k + a sin 3t) y) matches the closed form") {
  using M = fx::compiled<seasonal, double>;
  const std::vector<double> ts = {0.4, 1.3, 2.2, 3.0, 4.5};
  const std::vector<double> data_y = {0.8, 0.9, 0.5, 0.45, 0.3};
  std::vector<fx::observation<double>> obs;
  for (double v : data_y) obs.push_back(fx::observation<double>::exact(v));
  const std::vector<fx::series_data<double>> data = {{.values = obs}};
  const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-12};
  const std::vector<double> x0 = {1.2, 0.9}, th = {0.3, 0.5, 0.6, 0.9, 0.2, 0.3};  // two trajectories
  for (int method = 0; method < 2; ++method) {
    const auto xs = fx::soa(std::span<const double>(x0));
    const auto ps = fx::soa(std::span<const double>(th));
    const auto r = method == 0 ? fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, 2,
                                                       xs, ps, fx::discrete_adjoint{})
                               : fx::host::log_density(M{}, fx::vern7{}, pr, lik, std::span(data), fx::priors<>{}, 2,
                                                       xs, ps, fx::discrete_adjoint{});
    for (std::size_t b = 0; b < 2; ++b) {
      INFO((method == 0 ? "Tsit5" : "Vern7") << ", trajectory " << b);
      REQUIRE(r.status[b] == fx::solve_status::success);
      const double kk = th[b], aa = th[2 + b], s = th[4 + b], y0 = x0[b];
      double value = 0, g[4] = {};
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const double t = ts[i], q = (1 - std::cos(3 * t)) / 3;
        const double yt = y0 * std::exp(-kk * t + aa * q);
        const double res = data_y[i] - yt, w = res / (s * s);
        value += -0.5 * res * res / (s * s) - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
        g[0] += w * -t * yt;
        g[1] += w * q * yt;
        g[2] += res * res / (s * s * s) - 1 / s;
        g[3] += w * yt / y0;
      }
      CHECK_THAT(r.value[b], WithinRel(value, 1e-9));
      for (std::size_t j = 0; j < 4; ++j) {
        INFO("column " << j);
        CHECK_THAT(r.gradient(j, b), WithinAbs(g[j], 1e-7 * (1 + std::abs(g[j]))));
      }
    }
  }
}

// With fixed steps the computed log-density is a smooth function of the
// parameters and the initial state, and both gradients are its exact
// derivative: forward sensitivities (the variational equation integrated by
// the same Runge-Kutta steps) and the adjoint agree to rounding. Save times:
// at t0, on step ends (steps of 0.25 from 0), inside steps (two in one).
template <class T, class Method>
void fixed_step_case(Method method, double rel) {
  using M = fx::compiled<sir2, T>;
  constexpr std::size_t B = 4;
  const sir2_inputs in(B, 41);
  const std::vector<T> x0(in.x0.begin(), in.x0.end()), th(in.th.begin(), in.th.end());
  const std::vector<T> ts = {T(0), T(2), T(5.1), T(5.15), T(9), T(14.3), T(20), T(27)};
  std::vector<fx::observation<T>> nb_obs, ln_obs;
  const double nb_values[] = {3, 37, 40, 41, 60, 80, 50, 12};
  for (std::size_t s = 0; s < ts.size(); ++s) {
    nb_obs.push_back(s == 4 ? fx::observation<T>::right(T(60)) : fx::observation<T>::exact(T(nb_values[s])));
    ln_obs.push_back(fx::observation<T>::exact(T(5 + 3 * double(s))));
  }
  const std::vector<unsigned char> nb_mask = {1, 1, 1, 1, 1, 0, 1, 1};
  const std::vector<fx::series_data<T>> data = {{.values = nb_obs, .mask = nb_mask}, {.values = ln_obs}};
  const fx::likelihood lik(fx::series<fx::neg_binomial_2>{.name = "new infections", .observable = 2, .parameters = {7}},
                           fx::series<fx::lognormal>{.name = "prevalence 1", .observable = 1, .parameters = {8}});
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior<T>{T(std::log(0.15)), T(0.5)}});
  const fx::ode_problem<T> pr{.t0 = 0, .t1 = 27, .save_times = ts, .initial_step = T(0.25), .adaptive = false};
  const auto xs = fx::soa(std::span<const T>(x0));
  const auto ps = fx::soa(std::span<const T>(th));
  const auto adj = fx::host::log_density(M{}, method, pr, lik, std::span(data), pri, B, xs, ps, fx::discrete_adjoint{});
  const auto fwd = fx::host::log_density(M{}, method, pr, lik, std::span(data), pri, B, xs, ps, true);
  for (std::size_t b = 0; b < B; ++b) {
    INFO("trajectory " << b);
    REQUIRE(adj.status[b] == fx::solve_status::success);
    REQUIRE(fwd.status[b] == fx::solve_status::success);
    CHECK(adj.stats[b].accepted == 108);
    CHECK_THAT(double(adj.value[b]), WithinRel(double(fwd.value[b]), rel));
    for (std::size_t j = 0; j < adj.columns; ++j) {
      INFO("column " << j);
      const double g = double(fwd.gradient(j, b));
      CHECK_THAT(double(adj.gradient(j, b)), WithinAbs(g, rel * (1 + std::abs(g))));
    }
  }
  if constexpr (std::is_same_v<T, double>) {
    // Central differences of the computed value (fixed steps): an oracle that
    // shares no derivative code with either gradient.
    std::size_t checked = 0;
    for (std::size_t j = 0; j < adj.columns; ++j) {
      std::vector<double> xu = in.x0, xd = in.x0, pu = in.th, pd = in.th;
      const std::size_t b = 1;
      double& up = j < n_params ? pu[j * B + b] : xu[(j - n_params) * B + b];
      double& dn = j < n_params ? pd[j * B + b] : xd[(j - n_params) * B + b];
      const double h = 1e-6 * (1 + std::abs(up));
      up += h, dn -= h;
      const auto vu = fx::host::log_density(M{}, method, pr, lik, std::span(data), pri, B,
                                            fx::soa(std::span<const double>(xu)),
                                            fx::soa(std::span<const double>(pu)), false);
      const auto vd = fx::host::log_density(M{}, method, pr, lik, std::span(data), pri, B,
                                            fx::soa(std::span<const double>(xd)),
                                            fx::soa(std::span<const double>(pd)), false);
      const double fd = (vu.value[b] - vd.value[b]) / (2 * h);
      INFO("column " << j);
      CHECK_THAT(adj.gradient(j, b), WithinAbs(fd, 1e-5 * (1 + std::abs(fd))));
      ++checked;
    }
    CHECK(checked == n_params + n_states);
  }
}

TEST_CASE("adjoint: fixed steps, save times on, inside and before the steps: forward sensitivities to rounding") {
  SECTION("Tsit5, double") { fixed_step_case<double>(fx::tsit5{}, 1e-11); }
  SECTION("Vern7, double") { fixed_step_case<double>(fx::vern7{}, 1e-11); }
  SECTION("Tsit5, float") { fixed_step_case<float>(fx::tsit5{}, 2e-3); }
  SECTION("Vern7, float") { fixed_step_case<float>(fx::vern7{}, 2e-3); }
}

TEST_CASE("adjoint: a missing value whose observable's derivative is infinite adds nothing") {
  using M = fx::compiled<relax_sqrt, double>;
  const std::vector<double> ts = {0.0, 1.0, 2.5};
  const std::vector<fx::observation<double>> values = {fx::observation<double>::exact(std::nan("")),
                                                       fx::observation<double>::exact(0.8),
                                                       fx::observation<double>::exact(1.1)};
  const std::vector<unsigned char> mask = {0, 1, 1};
  const std::vector<fx::series_data<double>> data = {{.values = values, .mask = mask}};
  const fx::likelihood lik(fx::series<fx::normal>{.name = "root", .observable = 0, .parameters = {2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2.5, .save_times = ts, .rtol = 1e-10, .atol = 1e-10};
  const std::vector<double> x0 = {0.0}, th = {0.7, 1.3, 0.2};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  const auto adj = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, 1, xs, ps,
                                         fx::discrete_adjoint{});
  const auto fwd = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, 1, xs, ps, true);
  REQUIRE(adj.status[0] == fx::solve_status::success);
  for (std::size_t j = 0; j < 4; ++j) {
    INFO("column " << j);
    REQUIRE(std::isfinite(adj.gradient(j, 0)));
    CHECK_THAT(adj.gradient(j, 0), WithinAbs(fwd.gradient(j, 0), 1e-6 * (1 + std::abs(fwd.gradient(j, 0)))));
  }
}

TEST_CASE("adjoint: a full tape, failed integrations and bad settings; threads change no bit") {
  using M = fx::compiled<sir2, double>;
  constexpr std::size_t B = 9;
  const sir2_inputs in(B, 53);
  const sir2_data stored;
  const std::vector<fx::series_data<double>> data = stored.series();
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-8, .atol = 1e-8};
  const auto xs = fx::soa(std::span<const double>(in.x0));
  const auto ps = fx::soa(std::span<const double>(in.th));
  const auto one = fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps,
                                         fx::discrete_adjoint{}, fx::host::threads{1});
  const auto two = fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps,
                                         fx::discrete_adjoint{}, fx::host::threads{2});
  // The adjoint's forward pass is the value-only path's integration: the same
  // steps, and the same value up to the rounding of the densities (evaluated
  // with their partials here, without them there).
  const auto value_only = fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs,
                                                ps, false);
  for (std::size_t b = 0; b < B; ++b) {
    REQUIRE(one.status[b] == fx::solve_status::success);
    CHECK(one.stats[b].accepted == value_only.stats[b].accepted);
    CHECK_THAT(one.value[b], WithinRel(value_only.value[b], 1e-14));
    CHECK(two.value[b] == one.value[b]);
    for (std::size_t j = 0; j < one.columns; ++j) CHECK(two.gradient(j, b) == one.gradient(j, b));
  }
  // A tape of fewer steps than the trajectories take.
  const int steps = one.stats[0].accepted;
  REQUIRE(steps > 3);
  const auto full = fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps,
                                          fx::discrete_adjoint{.recorded_steps = steps - 1});
  CHECK(full.status[0] == fx::solve_status::max_steps);
  CHECK(full.value[0] == -std::numeric_limits<double>::infinity());
  for (std::size_t j = 0; j < full.columns; ++j) CHECK(full.gradient(j, 0) == 0.0);
  const auto exact_fit = fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps,
                                               fx::discrete_adjoint{.recorded_steps = steps});
  CHECK(exact_fit.status[0] == fx::solve_status::success);
  CHECK(exact_fit.value[0] == one.value[0]);
  // The step budget.
  fx::ode_problem<double> short_budget = pr;
  short_budget.max_steps = 5;
  const auto failed = fx::host::log_density(M{}, fx::tsit5{}, short_budget, sir2_likelihood, std::span(data), pri, B,
                                            xs, ps, fx::discrete_adjoint{});
  for (std::size_t b = 0; b < B; ++b) {
    CHECK(failed.status[b] == fx::solve_status::max_steps);
    CHECK(failed.value[b] == -std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < failed.columns; ++j) CHECK(failed.gradient(j, b) == 0.0);
  }
  CHECK_THROWS_WITH(fx::host::log_density(M{}, fx::tsit5{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps,
                                          fx::discrete_adjoint{.recorded_steps = 0}),
                    ContainsSubstring("recorded_steps"));
}
