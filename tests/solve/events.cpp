// Events at given times (solve/events.hpp; issue 39 item 6): doses, resets,
// a rate switched on a date and a vaccination pulse, against closed forms;
// every method, one trajectory at a time and in SIMD lanes (bit for bit the
// same), saves at an event's time reading the state after it; forward
// sensitivities through the events against the complex-step derivative of
// the closed form; bad events refused before any work.
//
// Oracles (written by hand, no fluxion code):
//   dosing   y' = -k y, with y += 1.5 at t = 2, y += p[D] at t = 5, y = 0.25 at
//            t = 7 and y *= 0.5 at t = 8 (support/dosing.hpp).
//   switch   y' = -(k1 + (k2 - k1) L) y, L' = 0, L = 1 at t = 3: y0 e^{-k1 t}
//            before, y(3) e^{-k2 (t - 3)} after.
//   pulse    S' = -a S, V' = -b V; 30% of S moved to V at t = 4.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <type_traits>
#include <utility>
#include <span>
#include <string>
#include <vector>

#include "support/dosing.hpp"
#include "support/identical_results.hpp"

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;

namespace {

using dosing::y;
constexpr fx::state<"L"> L;
constexpr fx::state<"S"> S;
constexpr fx::state<"V"> V;
constexpr fx::param<"k1"> k1;
constexpr fx::param<"k2"> k2;
constexpr fx::param<"a"> a;
constexpr fx::param<"b"> b;

constexpr auto switched = fx::model(fx::states(y, L), fx::params(k1, k2), fx::d(y) = -(k1 + (k2 - k1) * L) * y,
                                    fx::d(L) = 0.0 * L);
constexpr auto pulse = fx::model(fx::states(S, V), fx::params(a, b), fx::d(S) = -a * S, fx::d(V) = -b * V);

using dosing::exact;
fx::timed_events<double> dosing_events() { return dosing::events(); }

// Save times: between events, just before them and at them (after).
const std::vector<double> dosing_saves = {0, 1, 2, 2.5, 4.999, 5, 6, 7, 7.5, 8, 9.25, 10};

template <class M>
struct ensemble {
  std::vector<double> x0, p;
  std::size_t count() const { return x0.size() / M::n_states; }
};

template <class M, class Method>
fx::ensemble_result<double> run(Method method, const fx::ode_problem<double>& pr, const ensemble<M>& in,
                                bool lanes = true) {
  fx::host::threads exec{1};
  exec.simd_lanes = lanes;
  return fx::host::integrate(M{}, method, pr, in.count(), fx::soa(std::span<const double>(in.x0)),
                             fx::soa(std::span<const double>(in.p)), exec);
}

using support::require_identical;

// Per method: tolerance asked, error allowed against the closed form.
template <class Method>
struct accuracy;
// crossing: the error allowed in a crossing's time (its dense output's).
template <>
struct accuracy<fx::tsit5> {
  static constexpr double rtol = 1e-10, error = 2e-9, crossing = 5e-10;
};
template <>
struct accuracy<fx::vern7> {
  static constexpr double rtol = 1e-10, error = 2e-9, crossing = 2e-11;
};
template <>
struct accuracy<fx::rosenbrock23> {  // order 2: its global error is some 100 rtol here, before any event too
  static constexpr double rtol = 1e-8, error = 3e-6, crossing = 1e-5;
};
template <>
struct accuracy<fx::rodas5p> {
  static constexpr double rtol = 1e-9, error = 2e-8, crossing = 5e-9;
};

}  // namespace

TEMPLATE_TEST_CASE("doses, a reset and a scaling at given times follow the closed form", "[events]", fx::tsit5,
                   fx::vern7, fx::rosenbrock23, fx::rodas5p) {
  using M = fx::compiled<dosing::model, double>;
  using acc = accuracy<TestType>;
  const fx::timed_events<double> ev = dosing_events();
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 10, .save_times = dosing_saves, .rtol = acc::rtol, .atol = 1e-12, .events = ev};
  // More trajectories than twice the widest lanes (8 doubles): the lanes run.
  ensemble<M> in;
  for (int i = 0; i < 37; ++i) {
    in.x0.push_back(0.5 + 0.05 * i);
    in.p.push_back(0.1 + 0.04 * i);  // k
  }
  for (int i = 0; i < 37; ++i) in.p.push_back(0.7 + 0.02 * i);  // D: p is [param][trajectory]
  const std::size_t B = in.count();
  const auto lanes = run<M>(TestType{}, pr, in);
  const auto one = run<M>(TestType{}, pr, in, false);
  require_identical(one, lanes);
  for (std::size_t bb = 0; bb < B; ++bb) {
    INFO("trajectory " << bb);
    REQUIRE(lanes.status[bb] == fx::solve_status::success);
    for (std::size_t s = 0; s < dosing_saves.size(); ++s) {
      INFO("save time " << dosing_saves[s]);
      const double e = exact<double>(dosing_saves[s], in.p[bb], in.p[B + bb], in.x0[bb]);
      CHECK_THAT(lanes.saved(s, 0, bb), WithinAbs(e, acc::error * (1 + std::abs(e))));
    }
    CHECK(lanes.final_value(0, bb) == lanes.saved(dosing_saves.size() - 1, 0, bb));
  }
}

TEST_CASE("a step never straddles an event: the steps after it start afresh at its time") {
  // y' = -k y with y set to 1 at t = 1: without a stop there, a step across
  // it would carry y's jump into its error estimate. Fixed steps of 0.3 from
  // 0 stop at 0.9, then 1.0 (cut to the event), then 1.3, 1.6, ... .
  using M = fx::compiled<dosing::model, double>;
  fx::timed_events<double> ev;
  ev.set(1.0, 0, 1.0);
  const std::vector<double> saves = {0.9, 1.0, 1.3, 2.2};
  const fx::ode_problem<double> pr{.t0 = 0,
                                   .t1 = 2.2,
                                   .save_times = saves,
                                   .initial_step = 0.3,
                                   .adaptive = false,
                                   .step_to_save_times = true,
                                   .events = ev};
  ensemble<M> in{{2.0}, {0.5, 0.0}};
  const auto r = run<M>(fx::rodas5p{}, pr, in, false);
  REQUIRE(r.status[0] == fx::solve_status::success);
  // 0.3, 0.6, 0.9, 1.0 | 1.3, 1.6, 1.9, 2.2: eight steps.
  CHECK(r.stats[0].accepted == 8);
  CHECK_THAT(r.saved(1, 0, 0), WithinAbs(1.0, 0));                       // after the reset, exactly
  CHECK_THAT(r.saved(2, 0, 0), WithinAbs(std::exp(-0.5 * 0.3), 1e-6));  // one Rodas5P step from it
  CHECK_THAT(r.saved(0, 0, 0), WithinAbs(2.0 * std::exp(-0.5 * 0.9), 1e-6));
}

TEMPLATE_TEST_CASE("a rate switched on a date, and a pulse moving a fraction between states", "[events]", fx::tsit5,
                   fx::vern7, fx::rosenbrock23, fx::rodas5p) {
  using acc = accuracy<TestType>;
  const std::vector<double> saves = {1, 3, 3.5, 4, 6};
  SECTION("switch") {
    using M = fx::compiled<switched, double>;
    fx::timed_events<double> ev;
    ev.set(3.0, 1, 1.0);
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 6, .save_times = saves, .rtol = acc::rtol, .atol = 1e-12, .events = ev};
    constexpr std::size_t B = 20;  // x0 [state][trajectory], p [param][trajectory]
    ensemble<M> in{std::vector<double>(2 * B, 0.0), std::vector<double>(2 * B)};
    for (std::size_t b = 0; b < B; ++b)
      in.x0[b] = 1.0 + 0.1 * double(b), in.p[b] = 0.2 + 0.02 * double(b), in.p[B + b] = 1.5 - 0.07 * double(b);
    const auto r = run<M>(TestType{}, pr, in);
    require_identical(run<M>(TestType{}, pr, in, false), r);
    for (std::size_t bb = 0; bb < B; ++bb)
      for (std::size_t s = 0; s < saves.size(); ++s) {
        const double t = saves[s], y0 = in.x0[bb], r1 = in.p[bb], r2 = in.p[B + bb];
        const double e = t < 3 ? y0 * std::exp(-r1 * t) : y0 * std::exp(-r1 * 3) * std::exp(-r2 * (t - 3));
        CHECK_THAT(r.saved(s, 0, bb), WithinAbs(e, acc::error * (1 + e)));
        CHECK(r.saved(s, 1, bb) == (t < 3 ? 0.0 : 1.0));
      }
  }
  SECTION("pulse") {
    using M = fx::compiled<pulse, double>;
    fx::timed_events<double> ev;
    ev.move(4.0, 0, 1, 0.3);
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 6, .save_times = saves, .rtol = acc::rtol, .atol = 1e-12, .events = ev};
    ensemble<M> in{{10.0, 1.0}, {0.3, 0.1}};
    const auto r = run<M>(TestType{}, pr, in);
    for (std::size_t s = 0; s < saves.size(); ++s) {
      const double t = saves[s];
      const double s4 = 10 * std::exp(-0.3 * 4), v4 = std::exp(-0.1 * 4);
      const double es = t < 4 ? 10 * std::exp(-0.3 * t) : 0.7 * s4 * std::exp(-0.3 * (t - 4));
      const double ev_ = t < 4 ? std::exp(-0.1 * t) : (v4 + 0.3 * s4) * std::exp(-0.1 * (t - 4));
      CHECK_THAT(r.saved(s, 0, 0), WithinAbs(es, acc::error * (1 + es)));
      CHECK_THAT(r.saved(s, 1, 0), WithinAbs(ev_, acc::error * (1 + ev_)));
    }
  }
}

TEST_CASE("after an event the first step is estimated afresh, not the problem's first step") {
  // In float at t = 1000, the problem's first step 1e-6 is below the time's
  // resolution (16 eps t = 2e-3): restarting with it would end the
  // trajectory with step_too_small.
  using M = fx::compiled<dosing::model, float>;
  fx::timed_events<float> ev;
  ev.add(1000.0f, 0, 1.0f);
  const fx::ode_problem<float> pr{
      .t0 = 0, .t1 = 2000, .rtol = 1e-5f, .atol = 1e-7f, .initial_step = 1e-6f, .events = ev};
  const std::vector<float> x0(20, 1.0f), p = [] {
    std::vector<float> v(40, 0.0f);
    for (int b = 0; b < 20; ++b) v[std::size_t(b)] = 0.001f * float(1 + b);
    return v;
  }();
  for (const bool lanes : {true, false}) {
    fx::host::threads exec{1};
    exec.simd_lanes = lanes;
    const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, 20, fx::soa(std::span<const float>(x0)),
                                       fx::soa(std::span<const float>(p)), exec);
    for (std::size_t b = 0; b < 20; ++b) {
      REQUIRE(r.status[b] == fx::solve_status::success);
      const double kk = p[b], e = (std::exp(-kk * 1000) + 1) * std::exp(-kk * 1000);
      CHECK_THAT(r.final_value(0, b), WithinAbs(e, 1e-4));
    }
  }
}

TEST_CASE("events at t0 and at t1 change the first saved and the final state") {
  using M = fx::compiled<dosing::model, double>;
  fx::timed_events<double> ev;
  ev.add(0.0, 0, 1.0).add(3.0, 0, 2.0).scale(3.0, 0, 10.0);  // two at t1, applied in order: (y + 2) * 10
  const std::vector<double> saves = {0, 3};
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 3, .save_times = saves, .rtol = 1e-10, .atol = 1e-12, .events = ev};
  ensemble<M> in{{1.0}, {0.5, 0.0}};
  for (const bool lanes : {true, false}) {
    const auto r = run<M>(fx::tsit5{}, pr, in, lanes);
    CHECK(r.saved(0, 0, 0) == 2.0);
    const double e = (2.0 * std::exp(-1.5) + 2.0) * 10.0;
    CHECK_THAT(r.saved(1, 0, 0), WithinAbs(e, 1e-8));
    CHECK(r.final_value(0, 0) == r.saved(1, 0, 0));
  }
}

TEMPLATE_TEST_CASE("forward sensitivities pass through the events exactly", "[events]", fx::tsit5, fx::vern7) {
  using M = fx::compiled<dosing::model, double>;
  const fx::timed_events<double> ev = dosing_events();
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 10, .save_times = dosing_saves, .rtol = 1e-11, .atol = 1e-13, .events = ev};
  const std::vector<double> x0 = {0.8, 1.9}, p = {0.3, 0.9, 1.2, 0.4};
  const auto r = fx::host::integrate_sensitivities(M{}, TestType{}, pr, 2, fx::soa(std::span<const double>(x0)),
                                                   fx::soa(std::span<const double>(p)));
  using cplx = std::complex<double>;
  constexpr double h = 1e-30;
  for (std::size_t bb = 0; bb < 2; ++bb)
    for (std::size_t s = 0; s < dosing_saves.size(); ++s) {
      const double t = dosing_saves[s], kk = p[bb], dd = p[2 + bb], y0 = x0[bb];
      INFO("trajectory " << bb << ", t = " << t);
      const double dk = exact<cplx>(t, cplx(kk, h), dd, y0).imag() / h;
      const double dD = exact<cplx>(t, kk, cplx(dd, h), y0).imag() / h;
      const double dy0 = exact<cplx>(t, kk, dd, cplx(y0, h)).imag() / h;
      CHECK_THAT(r.sensitivity(s, 0, 0, bb), WithinAbs(dk, 1e-8 * (1 + std::abs(dk))));
      CHECK_THAT(r.sensitivity(s, 0, 1, bb), WithinAbs(dD, 1e-8 * (1 + std::abs(dD))));
      CHECK_THAT(r.sensitivity(s, 0, 2, bb), WithinAbs(dy0, 1e-8 * (1 + std::abs(dy0))));
    }
}

TEST_CASE("bad events are refused before any work, naming the event") {
  using M = fx::compiled<dosing::model, double>;
  std::vector<double> saved(2, -7.0);
  const std::vector<double> x0 = {1.0}, p = {0.5, 1.0};
  const auto refuses = [&](std::vector<fx::timed_event<double>> events, const std::string& what) {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .events = events};
    INFO(what);
    CHECK_THROWS_WITH(fx::host::integrate(M{}, fx::tsit5{}, pr, 1, fx::soa(std::span<const double>(x0)),
                                          fx::soa(std::span<const double>(p))),
                      ContainsSubstring(what));
  };
  refuses({{.time = 11.0}}, "event 0 at time 11 lies outside the span [0, 10]");
  refuses({{.time = -1.0}}, "event 0 at time -1 lies outside");
  refuses({{.time = std::nan("")}}, "event 0 at time nan lies outside");
  refuses({{.time = 2.0}, {.time = 1.0}}, "event 1 (time 1) comes before event 0 (time 2)");
  refuses({{.time = 2.0, .state = 1}}, "event 0 changes state 1, which is not among the 1 states");
  refuses({{.time = 2.0, .state = -1}}, "event 0 changes state -1");
  refuses({{.time = 2.0, .source = 3, .source_weight = 1}}, "event 0 reads state 3");
  refuses({{.time = 2.0, .param = 2, .param_weight = 1}}, "event 0 reads parameter 2, which is not among the 2");
  refuses({{.time = 2.0, .scale = std::nan("")}}, "event 0 has a coefficient that is not finite");
  refuses({{.time = 2.0, .shift = INFINITY}}, "event 0 has a coefficient that is not finite (inf)");
  const fx::ode_problem<double> null_events{.t0 = 0, .t1 = 1, .events = std::span<const fx::timed_event<double>>(
                                                                           static_cast<const fx::timed_event<double>*>(nullptr), 2)};
  CHECK_THROWS_WITH(fx::host::integrate(M{}, fx::tsit5{}, null_events, 1, fx::soa(std::span<const double>(x0)),
                                        fx::soa(std::span<const double>(p))),
                    ContainsSubstring("events is a null pointer with a length of 2"));
}

// ---- Crossing events: an observable crossing a level ------------------------

namespace {

constexpr fx::state<"h"> height;
constexpr fx::state<"v"> speed;
constexpr fx::param<"g"> gravity;
// A ball: h' = v, v' = -g, observed as its height.
constexpr auto ball = fx::model(fx::states(height, speed), fx::params(gravity), fx::d(height) = speed,
                                fx::d(speed) = -gravity, fx::observe<"altitude">() = height);
// x'' = -x from (0, 1): x = sin t, observed.
constexpr fx::state<"x"> xs;
constexpr fx::state<"u"> us;
constexpr auto sine = fx::model(fx::states(xs, us), fx::params(k1), fx::d(xs) = us, fx::d(us) = -k1 * xs,
                                fx::observe<"position">() = xs);

}  // namespace

TEMPLATE_TEST_CASE("a threshold stop ends each trajectory where its observable crosses the level", "[events]",
                   fx::tsit5, fx::vern7, fx::rosenbrock23, fx::rodas5p) {
  // y' = -k y observed as y, stopped when it falls to 0.3: at t* = ln(y0 / 0.3) / k.
  using M = fx::compiled<dosing::model, double>;
  using acc = accuracy<TestType>;
  const fx::crossing_event<double> stop_at{.observable = 0, .level = 0.3, .direction = fx::crossing_direction::down};
  const std::vector<double> saves = {0.5, 1.0, 2.0, 4.0, 8.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 8, .save_times = saves, .rtol = acc::rtol, .atol = 1e-12,
                                   .crossings = std::span(&stop_at, 1)};
  ensemble<M> in;
  for (int i = 0; i < 23; ++i) in.x0.push_back(0.5 + 0.05 * i);
  for (int i = 0; i < 23; ++i) in.p.push_back(0.2 + 0.05 * i);
  for (int i = 0; i < 23; ++i) in.p.push_back(0.0);
  const auto r = run<M>(TestType{}, pr, in);
  require_identical(run<M>(TestType{}, pr, in, false), r);
  for (std::size_t b = 0; b < in.count(); ++b) {
    INFO("trajectory " << b);
    REQUIRE(r.status[b] == fx::solve_status::success);
    const double y0 = in.x0[b], kk = in.p[b], t_stop = std::log(y0 / 0.3) / kk;
    CHECK_THAT(r.crossing_time(0, b), WithinAbs(t_stop, acc::crossing));
    CHECK_THAT(r.final_value(0, b), WithinAbs(0.3, acc::error));
    CHECK(r.final_value(0, b) <= 0.3);  // placed where the observable has crossed
    for (std::size_t s = 0; s < saves.size(); ++s) {
      if (saves[s] < r.crossing_time(0, b)) CHECK_THAT(r.saved(s, 0, b), WithinAbs(y0 * std::exp(-kk * saves[s]), acc::error));
      else CHECK(std::isnan(r.saved(s, 0, b)));
    }
  }
}

TEMPLATE_TEST_CASE("a bouncing ball: each crossing of the floor reverses and damps the speed", "[events]", fx::tsit5,
                   fx::vern7, fx::rodas5p) {
  using M = fx::compiled<ball, double>;
  const fx::crossing_event<double> bounce{.observable = 0,
                                          .level = 0,
                                          .direction = fx::crossing_direction::down,
                                          .stop = false,
                                          .change = {.state = 1, .scale = -0.8}};
  const std::vector<double> saves = {0.3, 1.0, 1.7, 2.5, 3.3, 4.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .save_times = saves, .rtol = 1e-10, .atol = 1e-12,
                                   .crossings = std::span(&bounce, 1)};
  // 20 balls from heights 1 to 2.9, thrown up at 0.5 to -0.45.
  constexpr std::size_t B = 20;
  ensemble<M> in{std::vector<double>(2 * B), std::vector<double>(B, 9.81)};
  for (std::size_t b = 0; b < B; ++b) in.x0[b] = 1.0 + 0.1 * double(b), in.x0[B + b] = 0.5 - 0.05 * double(b);
  const auto r = run<M>(TestType{}, pr, in, false);
  // By hand: from (h, v) the floor is reached after (v + sqrt(v^2 + 2 g h)) / g,
  // at speed -sqrt(v^2 + 2 g h), which leaves as 0.8 times that upwards.
  const auto exact = [](double t, double h, double v, double g, double* first) {
    double at = 0;
    *first = -1;
    for (;;) {
      const double hit = at + (v + std::sqrt(v * v + 2 * g * h)) / g;
      if (hit > t) {
        const double dt = t - at;
        return h + v * dt - 0.5 * g * dt * dt;
      }
      if (*first < 0) *first = hit;
      v = 0.8 * std::sqrt(v * v + 2 * g * h), h = 0, at = hit;
    }
  };
  for (std::size_t b = 0; b < B; ++b) {
    INFO("ball " << b);
    REQUIRE(r.status[b] == fx::solve_status::success);
    double first = 0;
    for (std::size_t s = 0; s < saves.size(); ++s)
      CHECK_THAT(r.saved(s, 0, b), WithinAbs(exact(saves[s], in.x0[b], in.x0[B + b], 9.81, &first), 1e-7));
    exact(4.0, in.x0[b], in.x0[B + b], 9.81, &first);
    CHECK_THAT(r.crossing_time(0, b), WithinAbs(first, 1e-9));
  }
  require_identical(r, run<M>(TestType{}, pr, in, true));
}

TEST_CASE("a crossing's direction: x = sin t crosses 1/2 upwards at pi/6 and downwards at 5 pi/6") {
  using M = fx::compiled<sine, double>;
  ensemble<M> in{{0.0, 1.0}, {1.0}};
  for (const auto& [direction, t_cross] : {std::pair{fx::crossing_direction::up, std::numbers::pi / 6},
                                          std::pair{fx::crossing_direction::down, 5 * std::numbers::pi / 6},
                                          std::pair{fx::crossing_direction::either, std::numbers::pi / 6}}) {
    const fx::crossing_event<double> c{.observable = 0, .level = 0.5, .direction = direction};
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .rtol = 1e-11, .atol = 1e-12, .crossings = std::span(&c, 1)};
    const auto r = run<M>(fx::tsit5{}, pr, in, false);
    CHECK_THAT(r.crossing_time(0, 0), WithinAbs(t_cross, 1e-9));
    CHECK_THAT(r.final_value(0, 0), WithinAbs(0.5, 1e-9));
  }
  // Never reached: NaN, and the integration goes to t1.
  const fx::crossing_event<double> never{.observable = 0, .level = 2.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .rtol = 1e-8, .atol = 1e-10, .crossings = std::span(&never, 1)};
  const auto r = run<M>(fx::tsit5{}, pr, in, false);
  CHECK(std::isnan(r.crossing_time(0, 0)));
  CHECK_THAT(r.final_value(0, 0), WithinAbs(std::sin(4.0), 1e-7));
}

TEST_CASE("bad crossing events are refused, and so is a crossing where derivatives are taken") {
  using M = fx::compiled<dosing::model, double>;
  const std::vector<double> x0 = {1.0}, p = {0.5, 1.0};
  const auto refuses = [&](fx::crossing_event<double> c, const std::string& what) {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .crossings = std::span(&c, 1)};
    INFO(what);
    CHECK_THROWS_WITH(fx::host::integrate(M{}, fx::tsit5{}, pr, 1, fx::soa(std::span<const double>(x0)),
                                          fx::soa(std::span<const double>(p))),
                      ContainsSubstring(what));
  };
  refuses({.observable = 1}, "crossing event 0 watches observable 1, which is not among the 1 observables");
  refuses({.observable = -1}, "crossing event 0 watches observable -1");
  refuses({.level = std::nan("")}, "crossing event 0 has a level that is not finite");
  refuses({.direction = fx::crossing_direction(3)}, "not up, down or either");
  refuses({.stop = false, .change = {.state = 2}}, "crossing event 0's change changes state 2, which is not among");
  const std::vector<fx::crossing_event<double>> many(33);
  const fx::ode_problem<double> too_many{.t0 = 0, .t1 = 1, .crossings = many};
  CHECK_THROWS_WITH(fx::host::integrate(M{}, fx::tsit5{}, too_many, 1, fx::soa(std::span<const double>(x0)),
                                        fx::soa(std::span<const double>(p))),
                    ContainsSubstring("at most 32 crossing events, got 33"));
  const fx::crossing_event<double> c{};
  const fx::ode_problem<double> with_crossing{.t0 = 0, .t1 = 1, .crossings = std::span(&c, 1)};
  CHECK_THROWS_WITH(fx::host::integrate_sensitivities(M{}, fx::tsit5{}, with_crossing, 1,
                                                      fx::soa(std::span<const double>(x0)),
                                                      fx::soa(std::span<const double>(p))),
                    ContainsSubstring("an integration with sensitivities does not take crossing events"));
}
