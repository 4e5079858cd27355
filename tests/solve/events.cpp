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
#include <span>
#include <string>
#include <vector>

#include "support/dosing.hpp"

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

// Every saved value, final value, status and statistic the same.
void require_identical(const fx::ensemble_result<double>& one, const fx::ensemble_result<double>& lanes) {
  REQUIRE(one.saved_states.size() == lanes.saved_states.size());
  for (std::size_t i = 0; i < one.saved_states.size(); ++i) REQUIRE(one.saved_states[i] == lanes.saved_states[i]);
  for (std::size_t i = 0; i < one.final_state.size(); ++i) REQUIRE(one.final_state[i] == lanes.final_state[i]);
  for (std::size_t bb = 0; bb < one.status.size(); ++bb) {
    REQUIRE(one.status[bb] == lanes.status[bb]);
    REQUIRE(one.stats[bb].accepted == lanes.stats[bb].accepted);
    REQUIRE(one.stats[bb].rejected == lanes.stats[bb].rejected);
    REQUIRE(one.stats[bb].rhs_evaluations == lanes.stats[bb].rhs_evaluations);
    REQUIRE(one.stats[bb].jacobian_evaluations == lanes.stats[bb].jacobian_evaluations);
  }
}

// Per method: tolerance asked, error allowed against the closed form.
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
struct accuracy<fx::rosenbrock23> {  // order 2: its global error is some 100 rtol here, before any event too
  static constexpr double rtol = 1e-8, error = 3e-6;
};
template <>
struct accuracy<fx::rodas5p> {
  static constexpr double rtol = 1e-9, error = 2e-8;
};

}  // namespace

TEMPLATE_TEST_CASE("doses, a reset and a scaling at given times follow the closed form", "[events]", fx::tsit5,
                   fx::vern7, fx::rosenbrock23, fx::rodas5p) {
  using M = fx::compiled<dosing::model, double>;
  using acc = accuracy<TestType>;
  const fx::timed_events<double> ev = dosing_events();
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 10, .save_times = dosing_saves, .rtol = acc::rtol, .atol = 1e-12, .events = ev};
  ensemble<M> in;
  for (int i = 0; i < 13; ++i) {
    in.x0.push_back(0.5 + 0.2 * i);
    in.p.push_back(0.1 + 0.13 * i);  // k
  }
  for (int i = 0; i < 13; ++i) in.p.push_back(0.7 + 0.05 * i);  // D: p is [param][trajectory]
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
    ensemble<M> in{{1.0, 2.0, 0.0, 0.0}, {0.2, 0.4, 1.5, 0.05}};  // x0 [state][trajectory], p [param][trajectory]
    const auto r = run<M>(TestType{}, pr, in);
    require_identical(run<M>(TestType{}, pr, in, false), r);
    for (std::size_t bb = 0; bb < 2; ++bb)
      for (std::size_t s = 0; s < saves.size(); ++s) {
        const double t = saves[s], y0 = in.x0[bb], r1 = in.p[bb], r2 = in.p[2 + bb];
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
