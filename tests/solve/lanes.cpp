// Ensembles of explicit methods in SIMD lanes (solve/host_lanes.hpp): every
// trajectory gets the same steps, states, statuses and statistics as when
// integrated one at a time (adaptive_driver), whatever its neighbours, the
// batch size (not a multiple of the lane count), the threads, save times,
// per-lane times of non-autonomous models, and trajectories that stop early
// (step budget, blow-up, NaN) while their lanes take the next ones. The
// scalar path is itself checked against closed forms in explicit.cpp; here
// the closed forms are checked again through the lanes.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;

namespace {

constexpr fx::state<"y"> y;
constexpr fx::state<"v"> v;
constexpr fx::param<"k"> k;
constexpr fx::param<"w"> w;

// Decay at rates spanning decades: lanes finish at very different times.
constexpr auto decay = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);
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
  }
}

}  // namespace

TEST_CASE("lanes give every decay trajectory the steps and values it gets alone") {
  using M = fx::compiled<decay, double>;
  const std::vector<double> ts = {0.0, 0.3, 1.7, 2.0};
  for (std::size_t B : {std::size_t(1), std::size_t(17), std::size_t(37), std::size_t(1000)}) {
    std::vector<double> x0(B), p(B);
    for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0 + 0.01 * double(i % 7), p[i] = std::pow(10.0, -2.0 + 4.0 * double(i % 23) / 22);
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = 1e-8, .atol = 1e-12};
    for (unsigned th : {1u, 3u}) check_same_as_one_at_a_time<M>(fx::tsit5{}, pr, B, x0, p, th);
    // And the closed form, through the lanes.
    const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
    for (std::size_t i = 0; i < B; ++i)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(r.saved(s, 0, i), WithinAbs(x0[i] * std::exp(-p[i] * ts[s]), 1e-7 * x0[i]));
  }
}

TEST_CASE("lanes read their own time: a forced oscillator, float and double") {
  const std::size_t B = 45;
  std::vector<double> x0(2 * B), p(B);
  for (std::size_t i = 0; i < B; ++i) x0[i] = 1.0, x0[B + i] = 0.0, p[i] = 1.5 + 0.1 * double(i);
  const std::vector<double> ts = {1.0, 5.0, 9.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = ts, .rtol = 1e-9, .atol = 1e-9};
  check_same_as_one_at_a_time<fx::compiled<forced, double>>(fx::tsit5{}, pr, B, x0, p, 2);
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
  check_same_as_one_at_a_time<M>(fx::tsit5{}, pr, B, x0, p, 2);
  const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));
  int success = 0, stopped = 0;
  for (std::size_t i = 0; i < B; ++i) {
    if (r.status[i] == fx::solve_status::success) {
      ++success;
      CHECK(p[i] * 2.0 <= 1.0);  // only trajectories without a blow-up before t = 2
    } else {
      ++stopped;
      CHECK(std::isnan(r.saved(2, 0, i)));  // save times not reached read NaN
    }
  }
  CHECK(success > 10);
  CHECK(stopped > 10);
  // Fixed steps go through the lanes too.
  fx::ode_problem<double> fixed{.t0 = 0, .t1 = 0.4, .save_times = {}, .initial_step = 0.01, .adaptive = false};
  check_same_as_one_at_a_time<M>(fx::tsit5{}, fixed, B, x0, p, 1);
}
