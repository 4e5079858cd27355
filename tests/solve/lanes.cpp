// Ensembles in SIMD lanes (solve/host_lanes.hpp), explicit (Tsit5, and
// Vern7 with its extra dense stages computed lane by lane) and Rosenbrock
// methods: every trajectory gets the same steps, states, statuses and
// statistics as when integrated one at a time (adaptive_driver), whatever
// its neighbours, the batch size (not a multiple of the lane count), the
// threads, save times, per-lane times of non-autonomous models, singular
// iteration matrices, and trajectories that stop early (step budget,
// blow-up, NaN) while their lanes take the next ones. The scalar paths are
// themselves checked against closed forms in explicit.cpp and stiff.cpp;
// here closed forms are checked again through the lanes.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "support/closed_form_models.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;

namespace {

using closed_form_models::k;
using closed_form_models::v;
using closed_form_models::w;
using closed_form_models::y;

// Decay (y' = -k y) at rates spanning decades: lanes finish at very
// different times.
using closed_form_models::decay;
// A forced oscillator, non-autonomous: each lane reads its own time.
// y'' = -w^2 y + cos(t) from y = 1, y' = 0: y = (1 - 1/(w^2 - 1)) cos(w t) + cos(t)/(w^2 - 1).
constexpr auto forced = fx::model(fx::states(y, v), fx::params(w), fx::d(y) = v,
                                  fx::d(v) = -w * w * y + fx::cos(fx::t));
// y' = k y^2 blows up at t = 1 / (k y0); y' = log(-1 - y^2) is NaN after t = 0.5 for k < 0.
constexpr auto mixed = fx::model(fx::states(y), fx::params(k),
                                 fx::d(y) = fx::where(k < 0.0, fx::where(fx::t > 0.5, fx::log(-1 - y * y), -y), k * y * y));

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class M, class Method, class T = typename M::scalar>
void check_same_as_one_at_a_time(Method method, const fx::ode_problem<T>& pr, std::size_t B, const std::vector<T>& x0,
                                 const std::vector<T>& p, unsigned n_threads) {
  fx::host::threads in_lanes(n_threads, 1), one_at_a_time(n_threads, 1);
  one_at_a_time.simd_lanes = false;
  const auto a = fx::host::integrate(M{}, method, pr, B, fx::soa(std::span<const T>(x0)),
                                     fx::soa(std::span<const T>(p)), in_lanes);
  const auto b = fx::host::integrate(M{}, method, pr, B, fx::soa(std::span<const T>(x0)),
                                     fx::soa(std::span<const T>(p)), one_at_a_time);
  INFO("B = " << B << ", threads " << n_threads << ", lanes " << fx::lanes<T>::width);
  CHECK(same_bits(a.saved_states, b.saved_states));
  CHECK(same_bits(a.final_state, b.final_state));
  REQUIRE(a.status.size() == B);
  for (std::size_t i = 0; i < B; ++i) {
    INFO("trajectory " << i);
    CHECK(a.status[i] == b.status[i]);
    CHECK(a.stats[i].accepted == b.stats[i].accepted);
    CHECK(a.stats[i].rejected == b.stats[i].rejected);
    CHECK(a.stats[i].rhs_evaluations == b.stats[i].rhs_evaluations);
    CHECK(a.stats[i].jacobian_evaluations == b.stats[i].jacobian_evaluations);
    CHECK(a.stats[i].factorizations == b.stats[i].factorizations);
  }
}

// Stiff problems: Robertson's kinetics (autonomous) and Prothero-Robinson
// (non-autonomous, with a closed form).
using stiff_models::prothero_robinson;
using stiff_models::robertson;
// Nine states: beyond the unrolled factorization, the one that exchanges
// rows by a recorded pivot. A chain whose coupling K outweighs the diagonal
// of the iteration matrix makes the pivoting exchange rows.
constexpr fx::index<"i", 9, fx::ordered> nine;
constexpr fx::state<"z", decltype(nine)> z;
constexpr fx::ivar<decltype(nine), 0, "i"> i9;
constexpr fx::param<"K"> K;
constexpr auto nine_chain =
    fx::model(fx::states(z), fx::params(k, K), fx::d(z(i9)) = -k * z(i9) + K * z(i9 - 1));
constexpr auto nine_decays = fx::model(fx::states(z), fx::params(k), fx::d(z(i9)) = -k * z(i9));

}  // namespace

TEST_CASE("lanes give every decay trajectory the steps and values it gets alone") {
  using M = fx::compiled<decay, double>;
  const std::vector<double> ts = {0.0, 0.3, 1.7, 2.0};
  for (std::size_t B : {std::size_t(1), std::size_t(17), std::size_t(37), std::size_t(1000)}) {
    std::vector<double> x0(B), p(B);
    for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0 + 0.01 * double(i % 7), p[i] = std::pow(10.0, -2.0 + 4.0 * double(i % 23) / 22);
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = 1e-8, .atol = 1e-12};
    for (unsigned th : {1u, 3u}) check_same_as_one_at_a_time<M>(fx::tsit5{}, pr, B, x0, p, th);
    // Vern7: f(t, y) at every attempt, and the extra stages of a lane with a save time inside its step.
    check_same_as_one_at_a_time<M>(fx::vern7{}, pr, B, x0, p, 2);
    // And the closed form, through the lanes.
    const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
    for (std::size_t i = 0; i < B; ++i)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(r.saved(s, 0, i), WithinAbs(x0[i] * std::exp(-p[i] * ts[s]), 1e-7 * x0[i]));
    const auto r7 = fx::host::integrate(M{}, fx::vern7{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
    for (std::size_t i = 0; i < B; ++i)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(r7.saved(s, 0, i), WithinAbs(x0[i] * std::exp(-p[i] * ts[s]), 1e-7 * x0[i]));
  }
}

TEST_CASE("lanes read their own time: a forced oscillator, float and double") {
  const std::size_t B = 45;
  std::vector<double> x0(2 * B), p(B);
  for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0, x0[B + i] = 0.0, p[i] = 1.5 + 0.1 * double(i);
  const std::vector<double> ts = {1.0, 5.0, 9.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = ts, .rtol = 1e-9, .atol = 1e-9};
  check_same_as_one_at_a_time<fx::compiled<forced, double>>(fx::tsit5{}, pr, B, x0, p, 2);
  check_same_as_one_at_a_time<fx::compiled<forced, double>>(fx::vern7{}, pr, B, x0, p, 1);
  const auto r = fx::host::integrate(fx::compiled<forced, double>{}, fx::tsit5{}, pr, B, fx::soa(std::as_const(x0)),
                                     fx::soa(std::as_const(p)));
  for (std::size_t i = 0; i < B; ++i) {
    const double w2 = p[i] * p[i], c = 1 / (w2 - 1);
    for (std::size_t s = 0; s < ts.size(); ++s)
      CHECK_THAT(r.saved(s, 0, i), WithinAbs((1 - c) * std::cos(p[i] * ts[s]) + c * std::cos(ts[s]), 1e-6));
  }
  const std::vector<float> xf(x0.begin(), x0.end()), pf(p.begin(), p.end()), tf(ts.begin(), ts.end());
  const fx::ode_problem<float> prf{.t0 = 0, .t1 = 10, .save_times = tf, .rtol = 1e-5f, .atol = 1e-5f};
  check_same_as_one_at_a_time<fx::compiled<forced, float>>(fx::tsit5{}, prf, B, xf, pf, 1);
  check_same_as_one_at_a_time<fx::compiled<forced, float>>(fx::vern7{}, prf, B, xf, pf, 1);
}

TEST_CASE("trajectories that stop early free their lanes for the next ones, with the statuses they get alone") {
  using M = fx::compiled<mixed, double>;
  const std::size_t B = 61;
  std::vector<double> x0(B, 1.0), p(B);
  // k < 0: NaN after t = 0.5 (non_finite); k > 0.5: blow-up before t = 2 (step_too_small
  // or max_steps); small k: success.
  for (std::size_t i = 0; i < B; ++i) p[i] = (i % 5 == 0) ? -1.0 : 0.05 * double(i % 17);
  const std::vector<double> ts = {0.25, 1.0, 1.9};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = 1e-6, .atol = 1e-6, .max_steps = 400};
  const auto each_method = [&](auto method) {
    check_same_as_one_at_a_time<M>(method, pr, B, x0, p, 2);
    const auto r = fx::host::integrate(M{}, method, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
    int success = 0, stopped = 0;
    for (std::size_t i = 0; i < B; ++i) {
      if (r.status[i] == fx::solve_status::success) {
        ++success;
        CHECK(p[i] * 2.0 <= 1.0);  // only trajectories without a blow-up before t = 2
      } else {
        ++stopped;
        // Save times not reached read NaN: 1.9 where the trajectory turns NaN
        // (t = 0.5) or blows up (t = 1 / k) before it.
        if (p[i] < 0.0 || 1.0 / p[i] < 1.9) CHECK(std::isnan(r.saved(2, 0, i)));
      }
    }
    CHECK(success > 10);
    CHECK(stopped > 10);
  };
  each_method(fx::tsit5{});
  each_method(fx::vern7{});
  each_method(fx::rodas5p{});
  each_method(fx::rosenbrock23{});
  // Fixed steps go through the lanes too.
  fx::ode_problem<double> fixed{.t0 = 0, .t1 = 0.4, .save_times = {}, .initial_step = 0.01, .adaptive = false};
  check_same_as_one_at_a_time<M>(fx::tsit5{}, fixed, B, x0, p, 1);
  check_same_as_one_at_a_time<M>(fx::vern7{}, fixed, B, x0, p, 1);
  // Save times stepped onto: no dense output, so Vern7 computes no extra stages.
  fx::ode_problem<double> onto = pr;
  onto.step_to_save_times = true;
  check_same_as_one_at_a_time<M>(fx::vern7{}, onto, B, x0, p, 2);
  check_same_as_one_at_a_time<M>(fx::tsit5{}, onto, B, x0, p, 2);
}

TEST_CASE("which methods and models integrate in lanes") {
  STATIC_REQUIRE(fx::lane_integrable<fx::tsit5, fx::compiled<decay, double>>);
  STATIC_REQUIRE(fx::lane_integrable<fx::vern7, fx::compiled<forced, float>>);
  STATIC_REQUIRE(fx::lane_integrable<fx::rodas5p, fx::compiled<robertson, double>>);
  STATIC_REQUIRE(fx::lane_integrable<fx::rosenbrock23, fx::compiled<prothero_robinson, float>>);
  STATIC_REQUIRE(fx::lane_integrable<fx::rodas5p, fx::compiled<nine_decays, double>>);
  STATIC_REQUIRE(fx::lane_integrable<fx::rosenbrock23, fx::compiled<nine_chain, float>>);
}

TEST_CASE("Rosenbrock methods in lanes: Robertson's trajectories get the steps and values they get alone") {
  using M = fx::compiled<robertson, double>;
  const std::vector<double> ts = {1e-3, 0.4, 40.0, 1e4};
  for (std::size_t B : {std::size_t(5), std::size_t(37), std::size_t(200)}) {
    std::vector<double> x0(3 * B, 0.0), p(3 * B);
    for (std::size_t i = 0; i < B; ++i) {
      x0[i] = 1.0;
      // Rate constants over decades: lanes take very different step counts.
      p[i] = 0.04 * std::pow(10.0, -1.0 + 2.0 * double(i % 11) / 10);
      p[B + i] = 3e7 * std::pow(10.0, -1.0 + 2.0 * double(i % 7) / 6);
      p[2 * B + i] = 1e4;
    }
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e5, .save_times = ts, .rtol = 1e-6, .atol = 1e-10};
    for (unsigned th : {1u, 3u}) {
      check_same_as_one_at_a_time<M>(fx::rodas5p{}, pr, B, x0, p, th);
      check_same_as_one_at_a_time<M>(fx::rosenbrock23{}, pr, B, x0, p, th);
    }
    // The total is conserved through the lanes too.
    const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
    REQUIRE(r.all_succeeded());
    for (std::size_t i = 0; i < B; ++i)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(r.saved(s, 0, i) + r.saved(s, 1, i) + r.saved(s, 2, i), WithinAbs(1.0, 1e-9));
  }
  // Float, and save times served by stepping onto them.
  const std::size_t B = 23;
  std::vector<float> x0(3 * B, 0.0f), p(3 * B);
  for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0f, p[i] = 0.04f * float(1 + i % 5), p[B + i] = 3e7f, p[2 * B + i] = 1e4f;
  const std::vector<float> tf = {0.5f, 40.0f};
  const fx::ode_problem<float> prf{.t0 = 0, .t1 = 100, .save_times = tf, .rtol = 1e-4f, .atol = 1e-7f,
                                   .step_to_save_times = true};
  check_same_as_one_at_a_time<fx::compiled<robertson, float>>(fx::rodas5p{}, prf, B, x0, p, 1);
  check_same_as_one_at_a_time<fx::compiled<robertson, float>>(fx::rosenbrock23{}, prf, B, x0, p, 2);
}

TEST_CASE("Rosenbrock methods in lanes read their own time and d rhs / dt: Prothero-Robinson") {
  using M = fx::compiled<prothero_robinson, double>;
  const std::size_t B = 29;
  std::vector<double> x0(B), p(B);
  for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0 + 0.1 * double(i % 3), p[i] = -std::pow(10.0, double(i % 6));
  const std::vector<double> ts = {0.05, 1.0, 2.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 3, .save_times = ts, .rtol = 1e-8, .atol = 1e-10};
  check_same_as_one_at_a_time<M>(fx::rodas5p{}, pr, B, x0, p, 2);
  check_same_as_one_at_a_time<M>(fx::rosenbrock23{}, pr, B, x0, p, 1);
  const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
  for (std::size_t i = 0; i < B; ++i)
    for (std::size_t s = 0; s < ts.size(); ++s) {
      // Between steps Rodas5P's interpolant is looser on very stiff lanes (docs/guide/solving.md): 1e-3 there.
      const double exact = std::sin(ts[s]) + x0[i] * std::exp(p[i] * ts[s]);
      CHECK_THAT(r.saved(s, 0, i), WithinAbs(exact, p[i] < -1e3 ? 1e-3 : 1e-6));
    }
}

TEST_CASE("Rosenbrock methods in lanes: a lane whose iteration matrix is singular stops as it stops alone") {
  // y' = -k y with k = -1 / (gamma h0) and fixed steps h0: the iteration
  // matrix I / (gamma h0) - J is exactly zero in those lanes (non_finite).
  using D = fx::compiled<decay, double>;
  const std::size_t B = 41;
  std::vector<double> xd(B, 1.0), pd(B);
  const double h0 = 0.01;
  for (std::size_t i = 0; i < B; ++i) pd[i] = (i % 4 == 0) ? -1.0 / (fx::rodas5p::gamma * h0) : double(i % 9);
  const fx::ode_problem<double> fixed{.t0 = 0, .t1 = 0.1, .save_times = {}, .initial_step = h0, .adaptive = false};
  check_same_as_one_at_a_time<D>(fx::rodas5p{}, fixed, B, xd, pd, 1);
  const auto r = fx::host::integrate(D{}, fx::rodas5p{}, fixed, B, fx::soa(std::as_const(xd)), fx::soa(std::as_const(pd)));
  for (std::size_t i = 0; i < B; ++i)
    CHECK((r.status[i] == fx::solve_status::non_finite) == (i % 4 == 0));
}

TEST_CASE("nine-state stiff models in lanes: the pivoting factorization, lane by lane") {
  // Decays: the closed form.
  using M = fx::compiled<nine_decays, double>;
  const std::size_t B = 9;
  std::vector<double> x0(9 * B, 1.0), p(B);
  for (std::size_t i = 0; i < B; ++i) p[i] = double(1 + i);
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = {}, .rtol = 1e-8, .atol = 1e-10};
  check_same_as_one_at_a_time<M>(fx::rodas5p{}, pr, B, x0, p, 1);
  const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
  for (std::size_t i = 0; i < B; ++i)
    for (std::size_t e = 0; e < 9; ++e) CHECK_THAT(r.final_value(e, i), WithinAbs(std::exp(-p[i]), 1e-7));
  // A chain with couplings from none to far above the diagonal: lanes that
  // exchange rows beside lanes that do not.
  using C = fx::compiled<nine_chain, double>;
  const std::size_t BC = 19;
  std::vector<double> xc(9 * BC, 0.0), pc(2 * BC);
  for (std::size_t i = 0; i < BC; ++i) {
    xc[i] = 1.0;  // z(0) = 1, the rest 0
    pc[i] = 1.0 + double(i % 4);
    pc[BC + i] = i % 3 == 0 ? 0.0 : std::pow(10.0, double(i % 6));
  }
  const std::vector<double> ts = {0.01, 0.5};
  const fx::ode_problem<double> prc{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = 1e-7, .atol = 1e-9};
  for (unsigned th : {1u, 2u}) {
    check_same_as_one_at_a_time<C>(fx::rodas5p{}, prc, BC, xc, pc, th);
    check_same_as_one_at_a_time<C>(fx::rosenbrock23{}, prc, BC, xc, pc, th);
  }
  // z(0) decays alone, e^(-k t), where the chain stays of order one (K <= 10;
  // beyond, the states downstream grow like K^8 and the error control is theirs).
  const auto rc = fx::host::integrate(C{}, fx::rodas5p{}, prc, BC, fx::soa(std::as_const(xc)), fx::soa(std::as_const(pc)));
  for (std::size_t i = 0; i < BC; ++i)
    if (pc[BC + i] <= 10.0) CHECK_THAT(rc.final_value(0, i), WithinAbs(std::exp(-pc[i]), 1e-6));
}
