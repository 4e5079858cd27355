// Ensembles integrated with Tsit5 on the host (fx::host::integrate), against
// closed-form solutions: linear decay, the harmonic oscillator, logistic
// growth; the convergence order of the steps (5) and of the dense output
// measured from the error against the step size, in double and float; SIR's
// conserved total; every status produced on purpose; bad problems and
// buffers refused before any work; layouts, threads and save times.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "support/closed_form_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// y' = -k y; x'' = -w^2 x as (x, v); y' = r y (1 - y / K); y' = k y^2
// (blowup: infinite at t = 1 / (k y0)).
using closed_form_models::blowup;
using closed_form_models::decay;
using closed_form_models::k;
using closed_form_models::logistic;
using closed_form_models::oscillator;
using closed_form_models::y;

// SIR: S + I + R is conserved.
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gam;
constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta, gam),  //
                               fx::d(S) = -beta * S * I / (S + I + R),      //
                               fx::d(I) = beta * S * I / (S + I + R) - gam * I, fx::d(R) = gam * I);

// y' = log(-1 - y^2) is NaN from the start of its second half.
constexpr auto poisoned =
    fx::model(fx::states(y), fx::params(k), fx::d(y) = fx::where(fx::t > 0.5, fx::log(-1 - y * y), -k * y));

// y' = k: with a large k the state overflows to +inf while the error
// estimate (weights summing to zero) stays finite.
constexpr auto constant_rate = fx::model(fx::states(y), fx::params(k), fx::d(y) = k);

double logistic_exact(double t, double rr, double kk, double y0) {
  return kk / (1 + (kk / y0 - 1) * std::exp(-rr * t));
}

template <class M, class T = typename M::scalar>
fx::ensemble_result<T> solve_soa(const fx::ode_problem<T>& pr, std::size_t B, const std::vector<T>& x0,
                                 const std::vector<T>& p, fx::host::threads exec = fx::host::threads{}) {
  return fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const T>(x0)), fx::soa(std::span<const T>(p)),
                             exec);
}

}  // namespace

TEST_CASE("linear decay matches its closed form at every save time, trajectory by trajectory") {
  using M = fx::compiled<decay, double>;
  constexpr std::size_t B = 64;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.1, 5.0);
  std::vector<double> x0(B), p(B);
  for (auto& e : x0) e = u(rng);
  for (auto& e : p) e = u(rng);
  const std::vector<double> ts = {0.0, 0.1, 0.37, 1.0, 2.5, 3.0};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 3, .save_times = ts, .rtol = 1e-9, .atol = 1e-12};
  const auto res = solve_soa<M>(pr, B, x0, p);
  REQUIRE(res.all_succeeded());
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double want = x0[b] * std::exp(-p[b] * ts[s]);
      CHECK_THAT(res.saved(s, 0, b), WithinAbs(want, 1e-7 * x0[b] + 1e-11));
    }
    CHECK(res.final_value(0, b) == res.saved(ts.size() - 1, 0, b));  // t1 is the end of the last step
    CHECK(res.saved(0, 0, b) == x0[b]);                               // t0 is the initial state
    // Faster decays need more steps: each trajectory has its own.
    CHECK(res.stats[b].accepted > 0);
    CHECK(res.stats[b].rhs_evaluations == 2 + 6 * (res.stats[b].accepted + res.stats[b].rejected));
  }
  std::size_t fastest = 0, slowest = 0;
  for (std::size_t b = 0; b < B; ++b) {
    if (p[b] > p[fastest]) fastest = b;
    if (p[b] < p[slowest]) slowest = b;
  }
  CHECK(res.stats[fastest].accepted > res.stats[slowest].accepted);
}

TEST_CASE("the harmonic oscillator over ten periods, at 200 save times") {
  using M = fx::compiled<oscillator, double>;
  constexpr std::size_t B = 5;
  const std::vector<double> x0 = {1, 0.5, -2, 0, 3, /* v */ 0, 1, 0.25, -1, 2};
  const std::vector<double> p = {1, 2, 0.5, 3, 1.7};
  std::vector<double> ts(200);
  for (std::size_t s = 0; s < ts.size(); ++s) ts[s] = 20.0 * double(s + 1) / 200.0;
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 20, .save_times = ts, .rtol = 1e-10, .atol = 1e-10};
  const auto res = solve_soa<M>(pr, B, x0, p);
  REQUIRE(res.all_succeeded());
  for (std::size_t b = 0; b < B; ++b) {
    const double om = p[b], a = x0[b], c = x0[B + b] / om;
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double t = ts[s];
      CHECK_THAT(res.saved(s, 0, b), WithinAbs(a * std::cos(om * t) + c * std::sin(om * t), 2e-7));
      CHECK_THAT(res.saved(s, 1, b), WithinAbs(om * (-a * std::sin(om * t) + c * std::cos(om * t)), 2e-7 * om));
    }
  }
}

TEST_CASE("logistic growth, float and double, within the tolerance asked for") {
  std::vector<double> ts = {0.5, 1, 2, 4, 8};
  SECTION("double") {
    using M = fx::compiled<logistic, double>;
    const std::vector<double> x0 = {0.01, 0.5, 2.0}, p = {1.5, 0.7, 2.0, /* K */ 1.0, 3.0, 1.0};
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 8, .save_times = ts, .rtol = 1e-8, .atol = 1e-10};
    const auto res = solve_soa<M>(pr, 3, x0, p);
    REQUIRE(res.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(res.saved(s, 0, b), WithinRel(logistic_exact(ts[s], p[b], p[3 + b], x0[b]), 1e-6));
  }
  SECTION("float") {
    using M = fx::compiled<logistic, float>;
    const std::vector<float> x0 = {0.01f, 0.5f, 2.0f}, p = {1.5f, 0.7f, 2.0f, 1.0f, 3.0f, 1.0f};
    std::vector<float> tsf(ts.begin(), ts.end());
    fx::ode_problem<float> pr{.t0 = 0, .t1 = 8, .save_times = tsf, .rtol = 1e-5f, .atol = 1e-7f};
    const auto res = solve_soa<M>(pr, 3, x0, p);
    REQUIRE(res.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(double(res.saved(s, 0, b)), WithinRel(logistic_exact(ts[s], p[b], p[3 + b], x0[b]), 2e-4));
  }
}

// Fixed steps h, h/2, h/4, ... on the harmonic oscillator (w = 1) over
// [0, t1]: the error at t1 falls as h^5, and the dense output's error at
// points a third of the way into steps at least as h^4 (Tsitouras' free
// interpolant is of order 4 and its error does not accumulate; the measured
// slope sits between 4 and 5 where the step's and the interpolant's errors
// mix).
template <class T>
std::pair<double, double> observed_orders(const std::vector<double>& steps, double t1) {
  using M = fx::compiled<oscillator, T>;
  const std::vector<T> x0 = {T(1), T(0)}, p = {T(1)};
  std::vector<double> end_err, dense_err;
  for (double h : steps) {
    std::vector<T> ts;
    for (double t = h / 3; t < t1; t += 7 * h) ts.push_back(T(t));
    fx::ode_problem<T> pr{.t0 = 0, .t1 = T(t1), .save_times = ts, .initial_step = T(h), .adaptive = false};
    const auto res = solve_soa<M>(pr, 1, x0, p);
    REQUIRE(res.status[0] == fx::solve_status::success);
    REQUIRE(res.stats[0].accepted == std::int32_t(std::llround(t1 / h)));
    end_err.push_back(std::abs(double(res.final_value(0, 0)) - std::cos(t1)));
    double worst = 0;
    for (std::size_t s = 0; s < ts.size(); ++s)
      worst = std::max(worst, std::abs(double(res.saved(s, 0, 0)) - std::cos(double(ts[s]))));
    dense_err.push_back(worst);
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    UNSCOPED_INFO("h " << steps[i] << ": error at t1 " << end_err[i] << ", dense output " << dense_err[i]);
  const double span = std::log(steps.front() / steps.back());
  return {std::log(end_err.front() / end_err.back()) / span, std::log(dense_err.front() / dense_err.back()) / span};
}

TEST_CASE("Tsit5 converges with order 5, its dense output with order 4") {
  const auto [step64, dense64] = observed_orders<double>({0.2, 0.1, 0.05, 0.025}, 10.0);
  UNSCOPED_INFO("double: slope of the step error " << step64 << ", of the dense output " << dense64);
  CHECK(step64 > 4.7);
  CHECK(step64 < 5.5);
  CHECK(dense64 > 3.8);
  const auto [step32, dense32] = observed_orders<float>({0.5, 0.35, 0.25}, 10.0);
  UNSCOPED_INFO("float: slope of the step error " << step32 << ", of the dense output " << dense32);
  // In float the truncation error meets float's rounding (about 1e-6 after 40
  // steps) by h = 0.25, which bends the slope down from 5: 4.3 here.
  CHECK(step32 > 4.0);
  CHECK(step32 < 5.5);
  CHECK(dense32 > 3.8);
}

TEST_CASE("SIR keeps its total population") {
  using M = fx::compiled<sir, double>;
  constexpr std::size_t B = 16;
  std::vector<double> x0(3 * B), p(2 * B);
  for (std::size_t b = 0; b < B; ++b) {
    x0[b] = 990 + double(b);
    x0[B + b] = 10;
    x0[2 * B + b] = 0;
    p[b] = 0.2 + 0.05 * double(b);
    p[B + b] = 0.1;
  }
  std::vector<double> ts(50);
  for (std::size_t s = 0; s < ts.size(); ++s) ts[s] = 4.0 * double(s);
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 200, .save_times = ts, .rtol = 1e-8, .atol = 1e-8};
  const auto res = solve_soa<M>(pr, B, x0, p);
  REQUIRE(res.all_succeeded());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double total = res.saved(s, 0, b) + res.saved(s, 1, b) + res.saved(s, 2, b);
      CHECK_THAT(total, WithinRel(x0[b] + 10, 1e-12));
    }
}

TEST_CASE("every status, on purpose") {
  const std::vector<double> one = {1.0}, rate = {1.0};
  SECTION("max_steps: a budget of 5 steps for a long span; unreached save times read NaN") {
    using M = fx::compiled<decay, double>;
    const std::vector<double> ts = {0.0, 1e3};
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e3, .save_times = ts, .max_steps = 5};
    const auto res = solve_soa<M>(pr, 1, one, rate);
    CHECK(res.status[0] == fx::solve_status::max_steps);
    CHECK(res.stats[0].accepted + res.stats[0].rejected == 5);
    CHECK(res.saved(0, 0, 0) == 1.0);
    CHECK(std::isnan(res.saved(1, 0, 0)));
  }
  SECTION("step_too_small: y' = y^2 from 1 past its blow-up at t = 1") {
    using M = fx::compiled<blowup, double>;
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 2};
    const auto res = solve_soa<M>(pr, 1, one, rate);
    CHECK(res.status[0] == fx::solve_status::step_too_small);
    CHECK(res.final_value(0, 0) > 1e6);  // close to the singularity
  }
  SECTION("non_finite: a right-hand side that is NaN past t = 0.5") {
    using M = fx::compiled<poisoned, double>;
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 1};
    const auto res = solve_soa<M>(pr, 1, one, rate);
    CHECK(res.status[0] == fx::solve_status::non_finite);
    CHECK_THAT(res.final_value(0, 0), WithinRel(std::exp(-0.5), 1e-3));  // stopped near t = 0.5
    fx::ode_problem<double> fixed{.t0 = 0, .t1 = 1, .initial_step = 0.01, .adaptive = false};
    CHECK(solve_soa<M>(fixed, 1, one, rate).status[0] == fx::solve_status::non_finite);
  }
  SECTION("success") {
    using M = fx::compiled<decay, double>;
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 1};
    CHECK(solve_soa<M>(pr, 1, one, rate).status[0] == fx::solve_status::success);
  }
}

// An attempt whose new state is infinite has an infinite tolerance, so its
// weighted error is 0: only the finiteness check keeps it from being
// accepted. It must be rejected (the step shrinks) for every method, in
// lanes and one at a time, so that the trajectory stops non_finite with the
// last finite state instead of reaching t1 at +inf.
TEMPLATE_TEST_CASE("a new state that overflows is never accepted, though its error estimate is finite", "", float,
                   double) {
  using T = TestType;
  using M = fx::compiled<constant_rate, T>;
  // The rate leaves room for the stages' coefficients (up to some hundreds)
  // times the rate; the state overflows at t = 1e4.
  const std::vector<T> zero(8, T(0)), rate(8, std::numeric_limits<T>::max() / T(1e4));
  // A given first step: the starting-step heuristic's norms overflow here.
  const fx::ode_problem<T> pr{.t0 = 0, .t1 = T(1e5), .initial_step = T(1)};
  auto check = [&](auto method, bool lanes) {
    fx::host::threads exec(1, 1);
    exec.simd_lanes = lanes;
    const auto res = fx::host::integrate(M{}, method, pr, zero.size(), fx::soa(std::span<const T>(zero)),
                                         fx::soa(std::span<const T>(rate)), exec);
    for (std::size_t b = 0; b < zero.size(); ++b) {
      CHECK(res.status[b] == fx::solve_status::non_finite);
      CHECK(std::isfinite(res.final_value(0, b)));
      CHECK(res.final_value(0, b) > T(0.5) * std::numeric_limits<T>::max());  // it got close to the overflow
    }
  };
  for (bool lanes : {false, true}) {
    check(fx::tsit5{}, lanes);
    check(fx::vern7{}, lanes);
    check(fx::rosenbrock23{}, lanes);
    check(fx::rodas5p{}, lanes);
  }
}

TEST_CASE("bad problems and buffers are refused before any work") {
  using M = fx::compiled<oscillator, double>;
  const std::vector<double> x0 = {1, 0}, p = {1};
  auto run = [&](const fx::ode_problem<double>& pr) { return solve_soa<M>(pr, 1, x0, p); };
  const std::vector<double> unsorted = {0.5, 0.2}, repeated = {0.2, 0.2}, outside = {0.5, 1.5}, before = {-0.1};
  const std::vector<double> atol_short = {1e-6}, atol_bad = {1e-6, 0.0};
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .save_times = unsorted}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .save_times = repeated}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .save_times = outside}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .save_times = before}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 1, .t1 = 1}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 1, .t1 = 0}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = INFINITY}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .rtol = 0}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .rtol = NAN}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .atol = -1}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .atol_per_state = atol_short}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .atol_per_state = atol_bad}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .initial_step = -1}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .max_steps = 0}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .max_steps = 100000001}), fx::problem_error);
  CHECK_THROWS_AS(run({.t0 = 0, .t1 = 1, .adaptive = false}), fx::problem_error);
  CHECK_THROWS_WITH(run({.t0 = 0, .t1 = 1, .save_times = unsorted}),
                    Catch::Matchers::ContainsSubstring("save times must be strictly increasing"));
  // Buffers: too small, null.
  const std::vector<double> short_x = {1};
  fx::ode_problem<double> ok{.t0 = 0, .t1 = 1};
  CHECK_THROWS_AS(fx::host::integrate(M{}, fx::tsit5{}, ok, 1, fx::soa(std::span<const double>(short_x)),
                                      fx::soa(std::span<const double>(p))),
                  fx::layout_error);
  CHECK_THROWS_AS(fx::host::integrate(M{}, fx::tsit5{}, ok, 2, fx::soa(std::span<const double>(x0)),
                                      fx::broadcast(std::span<const double>(p))),
                  fx::layout_error);
  CHECK_THROWS_AS(fx::host::integrate(M{}, fx::tsit5{}, ok, 1, fx::soa(std::span<const double>()),
                                      fx::soa(std::span<const double>(p))),
                  fx::layout_error);
}

TEST_CASE("layouts, broadcast parameters and threads give identical trajectories") {
  using M = fx::compiled<oscillator, double>;
  constexpr std::size_t B = 150;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::vector<double> soa_x(2 * B), aos_x(2 * B), one_p = {1.3}, soa_p(B, 1.3);
  for (std::size_t b = 0; b < B; ++b) {
    soa_x[b] = aos_x[2 * b] = u(rng);
    soa_x[B + b] = aos_x[2 * b + 1] = u(rng);
  }
  const std::vector<double> ts = {0.25, 0.5, 1.0};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts};
  const auto a = solve_soa<M>(pr, B, soa_x, soa_p);
  const auto b = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::aos(std::span<const double>(aos_x)),
                                     fx::broadcast(std::span<const double>(one_p)), fx::host::threads(2, 1));
  CHECK(a.saved_states == b.saved_states);
  CHECK(a.final_state == b.final_state);
  for (std::size_t i = 0; i < B; ++i) CHECK(a.stats[i].accepted == b.stats[i].accepted);
}
