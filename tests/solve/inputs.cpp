// Inputs from data (solve/events.hpp; issue 39 item 7): parameters that a
// table drives, piecewise constant or linear, read by the equations like
// any parameter; the integration stops at every breakpoint. Against closed
// forms, every method, one trajectory at a time and in SIMD lanes (bit for
// bit the same), in double and float, with a model of more parameters than
// the driver keeps in registers; forward sensitivities through an input
// (0 in the driven parameter); bad tables refused before any work.
//
// Oracles (written by hand, no fluxion code): y' = -c r(t) y has
// y(t) = y0 exp(-c R(t)), R(t) the integral of r from 0 to t, a sum of
// rectangles (piecewise constant) or trapezoids (piecewise linear) over the
// table's intervals.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "support/identical_results.hpp"

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;

namespace {

constexpr fx::state<"y"> y;
constexpr fx::param<"c"> c;
constexpr fx::param<"r"> r;        // driven: piecewise constant
constexpr fx::param<"r0"> r0;      // driven: the level of a line
constexpr fx::param<"r1"> r1;      // driven: its slope
constexpr auto stepped = fx::model(fx::states(y), fx::params(c, r), fx::d(y) = -c * r * y);
constexpr auto observed = fx::model(fx::states(y), fx::params(c, r), fx::d(y) = -c * r * y, fx::observe<"level">() = y);
constexpr auto sloped = fx::model(fx::states(y), fx::params(c, r0, r1), fx::d(y) = -c * (r0 + r1 * fx::t) * y);

// Forty decays y_i' = -c r k_i y_i: 42 parameters, more than the driver
// copies into registers (it copies them anyway when an input drives one).
using forty = fx::index<"i", 40>;
constexpr fx::ivar<forty, 0, "i"> i;
constexpr fx::state<"z", forty> z;
constexpr fx::param<"k", forty> k;
constexpr auto many = fx::model(fx::states(z), fx::params(k, c, r), fx::d(z(i)) = -c * r * k(i) * z(i));

// The tables: the first time before t0 = 0, the last after t1 = 10.
const std::vector<double> step_times = {-1, 2, 3.5, 6, 8}, step_values = {0.5, 1.2, 0.1, 0.8, 0.3};
const std::vector<double> line_times = {0, 2, 5, 7, 12}, line_values = {0.3, 1.0, 0.2, 0.6, 0.9};
const std::vector<double> saves = {0, 1, 2, 3, 3.5, 5, 6, 7, 8, 9.5, 10};

// R(t) = integral of the table's function from 0 to t.
double stepped_integral(double t) {
  double sum = 0;
  for (std::size_t j = 0; j < step_times.size(); ++j) {
    const double from = std::max(step_times[j], 0.0);
    const double to = std::min(j + 1 < step_times.size() ? step_times[j + 1] : 1e300, t);
    if (to > from) sum += step_values[j] * (to - from);
  }
  return sum;
}
double line_at(double t) {
  for (std::size_t j = 0; j + 1 < line_times.size(); ++j)
    if (t <= line_times[j + 1])
      return line_values[j] + (line_values[j + 1] - line_values[j]) * (t - line_times[j]) /
                                  (line_times[j + 1] - line_times[j]);
  return line_values.back();
}
double sloped_integral(double t) {
  double sum = 0;
  for (std::size_t j = 0; j + 1 < line_times.size() && line_times[j] < t; ++j) {
    const double to = std::min(line_times[j + 1], t);
    sum += (to - line_times[j]) * (line_values[j] + line_at(to)) / 2;  // a trapezoid
  }
  return sum;
}

template <class T>
struct ensemble {
  std::vector<T> x0, p;
};
// Nine trajectories: c and y0 vary; the driven parameters' own values are
// nonsense (99), which the inputs replace from t0 on.
template <class T>
ensemble<T> nine(std::size_t np) {
  ensemble<T> e;
  for (std::size_t b = 0; b < 9; ++b) e.x0.push_back(T(1 + 0.25 * double(b)));
  e.p.assign(np * 9, T(99));
  for (std::size_t b = 0; b < 9; ++b) e.p[b] = T(0.5 + 0.1 * double(b));  // c, parameter 0 (soa: [param][b])
  return e;
}

template <class M, class Method, class T>
fx::ensemble_result<T> run(Method method, const fx::ode_problem<T>& pr, const ensemble<T>& in, bool lanes) {
  fx::host::threads exec{1};
  exec.simd_lanes = lanes;
  const std::size_t count = in.x0.size() / M::n_states;
  return fx::host::integrate(M{}, method, pr, count, fx::soa(std::span<const T>(in.x0)),
                             fx::soa(std::span<const T>(in.p)), exec);
}

using support::require_identical;

template <class Method>
struct accuracy;
template <>
struct accuracy<fx::tsit5> {
  static constexpr double rtol = 1e-10, error = 2e-9;
};
template <>
struct accuracy<fx::vern7> {
  static constexpr double rtol = 1e-10, error = 2e-9;
};
template <>
struct accuracy<fx::rosenbrock23> {  // order 2: a global error of some 1000 rtol over ten time units here
  static constexpr double rtol = 1e-8, error = 2e-5;
};
template <>
struct accuracy<fx::rodas5p> {
  static constexpr double rtol = 1e-9, error = 2e-8;
};

// Each saved value against y0 exp(-c R(t)).
template <class T, class Integral>
void check_against(const fx::ensemble_result<T>& res, const ensemble<T>& in, Integral integral, double error,
                   const std::vector<double>& at = saves) {
  for (std::size_t b = 0; b < 9; ++b) {
    REQUIRE(res.status[b] == fx::solve_status::success);
    for (std::size_t s = 0; s < at.size(); ++s) {
      const double exact = double(in.x0[b]) * std::exp(-double(in.p[b]) * integral(at[s]));
      INFO("trajectory " << b << ", t = " << at[s]);
      CHECK_THAT(double(res.saved(s, 0, b)), WithinAbs(exact, error * exact));
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("a piecewise constant and a piecewise linear input follow the closed form", "[inputs]", fx::tsit5,
                   fx::vern7, fx::rosenbrock23, fx::rodas5p) {
  using acc = accuracy<TestType>;
  SECTION("piecewise constant") {
    using M = fx::compiled<stepped, double>;
    fx::timed_events<double> ev;
    ev.piecewise_constant(1, step_times, step_values);
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 10, .save_times = saves, .rtol = acc::rtol, .atol = 1e-14, .events = ev};
    const auto in = nine<double>(2);
    const auto one = run<M>(TestType{}, pr, in, false);
    check_against(one, in, stepped_integral, acc::error);
    require_identical(one, run<M>(TestType{}, pr, in, true));
    // The caller's parameters are not written.
    CHECK(in.p == nine<double>(2).p);
  }
  SECTION("piecewise linear") {
    using M = fx::compiled<sloped, double>;
    fx::timed_events<double> ev;
    ev.piecewise_linear(1, 2, line_times, line_values);
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 10, .save_times = saves, .rtol = acc::rtol, .atol = 1e-14, .events = ev};
    const auto in = nine<double>(3);
    const auto one = run<M>(TestType{}, pr, in, false);
    check_against(one, in, sloped_integral, acc::error);
    require_identical(one, run<M>(TestType{}, pr, in, true));
  }
}

TEST_CASE("fixed steps are cut at every breakpoint, so a jump in the rate costs no accuracy") {
  // Fixed Rodas5P steps of 0.7 from 0: without a stop at 2, 3.5, 6 and 8 a
  // step would straddle each jump of r, an error of order 1e-2 in y; cut
  // there, every step sees one smooth exponential (local error ~ h^6).
  // (Save times apart from the breakpoints, served by the dense output.)
  using M = fx::compiled<stepped, double>;
  fx::timed_events<double> ev;
  ev.piecewise_constant(1, step_times, step_values);
  const std::vector<double> apart = {1, 5, 9.5, 10};
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 10, .save_times = apart, .initial_step = 0.7, .adaptive = false, .events = ev};
  const auto in = nine<double>(2);
  const auto res = run<M>(fx::rodas5p{}, pr, in, false);
  check_against(res, in, stepped_integral, 1e-5, apart);
  // 0.7, 1.4, 2 | 2.7, 3.4, 3.5 | 4.2, 4.9, 5.6, 6 | 6.7, 7.4, 8 | 8.7, 9.4, 10: sixteen steps.
  CHECK(res.stats[0].accepted == 16);
}

TEST_CASE("an input in float, and one driving a model of more parameters than the driver keeps in registers") {
  SECTION("float, piecewise linear") {
    using M = fx::compiled<sloped, float>;
    fx::timed_events<float> ev;
    const std::vector<float> ft(line_times.begin(), line_times.end()), fv(line_values.begin(), line_values.end());
    const std::vector<float> fs(saves.begin(), saves.end());
    ev.piecewise_linear(1, 2, ft, fv);
    const fx::ode_problem<float> pr{.t0 = 0, .t1 = 10, .save_times = fs, .rtol = 1e-5f, .atol = 1e-7f, .events = ev};
    const auto in = nine<float>(3);
    const auto one = run<M>(fx::tsit5{}, pr, in, false);
    check_against(one, in, sloped_integral, 1e-4);
    require_identical(one, run<M>(fx::tsit5{}, pr, in, true));
  }
  SECTION("42 parameters") {
    using M = fx::compiled<many, double>;
    static_assert(M::n_params == 42);
    fx::timed_events<double> ev;
    ev.piecewise_constant(41, step_times, step_values);  // r, after k_0..k_39 and c
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = saves, .rtol = 1e-10, .atol = 1e-14, .events = ev};
    // Two trajectories: z_i(0) = 1, k_i = (i + 1) / 40, c = 1 and 0.5.
    ensemble<double> in;
    in.x0.assign(80, 1.0);
    in.p.assign(42 * 2, 99.0);
    for (std::size_t b = 0; b < 2; ++b) {
      for (std::size_t j = 0; j < 40; ++j) in.p[j * 2 + b] = double(j + 1) / 40;
      in.p[40 * 2 + b] = b == 0 ? 1.0 : 0.5;
    }
    const std::vector<double> given = in.p;
    const auto one = run<M>(fx::tsit5{}, pr, in, false);
    CHECK(in.p == given);  // the driver's own copy was set, not the caller's buffer
    for (std::size_t b = 0; b < 2; ++b) {
      REQUIRE(one.status[b] == fx::solve_status::success);
      for (std::size_t s = 0; s < saves.size(); ++s)
        for (std::size_t j = 0; j < 40; j += 13) {
          const double exact = std::exp(-in.p[40 * 2 + b] * in.p[j * 2 + b] * stepped_integral(saves[s]));
          CHECK_THAT(one.saved(s, j, b), WithinAbs(exact, 2e-9));
        }
    }
    require_identical(one, run<M>(fx::tsit5{}, pr, in, true));
  }
}

TEMPLATE_TEST_CASE("forward sensitivities through an input: exact in c and y0, and 0 in the driven parameter",
                   "[inputs]", fx::tsit5, fx::vern7) {
  // y = y0 exp(-c R(t)): dy/dc = -R(t) y, dy/dy0 = exp(-c R(t)), dy/dr = 0
  // (r is the table's from t0 on, whatever the trajectory's own value).
  using M = fx::compiled<stepped, double>;
  fx::timed_events<double> ev;
  ev.piecewise_constant(1, step_times, step_values);
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = saves, .rtol = 1e-11, .atol = 1e-14, .events = ev};
  const auto in = nine<double>(2);
  const auto res = fx::host::integrate_sensitivities(M{}, TestType{}, pr, 9, fx::soa(std::span<const double>(in.x0)),
                                                     fx::soa(std::span<const double>(in.p)));
  for (std::size_t b = 0; b < 9; ++b) {
    REQUIRE(res.status[b] == fx::solve_status::success);
    for (std::size_t s = 0; s < saves.size(); ++s) {
      const double big_r = stepped_integral(saves[s]), e = std::exp(-in.p[b] * big_r), y = in.x0[b] * e;
      INFO("trajectory " << b << ", t = " << saves[s]);
      CHECK_THAT(res.state(s, 0, b), WithinAbs(y, 2e-9 * y));
      CHECK_THAT(res.sensitivity(s, 0, 0, b), WithinAbs(-big_r * y, 2e-9 * (1 + big_r * y)));  // c
      CHECK(res.sensitivity(s, 0, 1, b) == 0.0);                                               // r
      CHECK_THAT(res.sensitivity(s, 0, 2, b), WithinAbs(e, 2e-9));                            // y0
    }
  }
}

TEST_CASE("bad input tables are refused before any work, naming what is wrong") {
  fx::timed_events<double> ev;
  const std::vector<double> two = {0, 1}, three = {0, 1, 2};
  CHECK_THROWS_WITH(ev.piecewise_constant(1, two, three), ContainsSubstring("has 2 times and 3 values"));
  CHECK_THROWS_WITH(ev.piecewise_linear(1, 2, std::vector<double>{0}, std::vector<double>{1}),
                    ContainsSubstring("needs at least 2 points, got 1"));
  CHECK_THROWS_WITH(ev.piecewise_constant(1, std::vector<double>{0, 2, 2}, three),
                    ContainsSubstring("times that do not increase at point 2"));
  CHECK_THROWS_WITH(ev.piecewise_constant(1, two, std::vector<double>{0, std::nan("")}),
                    ContainsSubstring("not finite at point 1"));
  CHECK(ev.size() == 0);

  using M = fx::compiled<stepped, double>;
  const auto in = nine<double>(2);
  const auto refused = [&](const fx::timed_events<double>& events, const std::string& what) {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = saves, .events = events};
    INFO(what);
    CHECK_THROWS_WITH(run<M>(fx::tsit5{}, pr, in, false), ContainsSubstring(what));
  };
  fx::timed_events<double> late;
  late.piecewise_constant(1, std::vector<double>{0.5, 3}, two);
  refused(late, "event 0 first sets parameter 1 at time 0.5, after t0 = 0: an input's table must start at or before t0");
  fx::timed_events<double> unknown;
  unknown.piecewise_constant(2, two, two);
  refused(unknown, "event 0 sets parameter 2, which is not among the 2 parameters of the model");

  fx::crossing_event<double> setting{.observable = 0, .stop = false};
  setting.change.sets_param = 1;
  using O = fx::compiled<observed, double>;
  const fx::ode_problem<double> crossing{.t0 = 0, .t1 = 10, .crossings = std::span(&setting, 1)};
  CHECK_THROWS_WITH(fx::host::integrate(O{}, fx::tsit5{}, crossing, 9, fx::soa(std::span<const double>(in.x0)),
                                        fx::soa(std::span<const double>(in.p))),
                    ContainsSubstring("crossing event 0's change sets a parameter"));
}
