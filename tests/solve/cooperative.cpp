// One trajectory integrated by a group of members together
// (fluxion/solve/cooperative.hpp, the GPU's warp per trajectory), here with
// host threads as the members (a std::barrier for sync, a fixed-order sum):
// against the one-thread driver (bit for bit with one member; to far below
// the tolerances with several, whose error norms sum in another order),
// against closed forms, with shares that leave padding, per-state
// tolerances, save times and none, Tsit5 and Vern7, float and double, and
// every status.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/solve/cooperative.hpp>

#include <barrier>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "../../examples/model_a_grid.hpp"
#include "support/group_decays.hpp"
#include "support/host_members.hpp"

namespace fx = fluxion;

namespace {

using support::host_members;

// One trajectory's outputs (NaN until written) and where the drivers write them.
template <class T>
struct run_result {
  std::vector<T> saved, final_state;
  fx::solve_status status = fx::solve_status::success;
  fx::solve_statistics stats{};
  run_result(std::size_t n_save, std::ptrdiff_t n)
      : saved(n_save * std::size_t(n), std::numeric_limits<T>::quiet_NaN()),
        final_state(std::size_t(n), std::numeric_limits<T>::quiet_NaN()) {}
  fx::trajectory_io<T> io(const std::vector<T>& x0, const std::vector<T>& p, std::ptrdiff_t n) {
    return {x0.data(), 1, p.data(), 1, saved.data(), 1, n, final_state.data(), 1};
  }
};

template <class M>
fx::ode_options<typename M::scalar> options_of(const fx::ode_problem<typename M::scalar>& pr) {
  return fx::check_problem(pr, M::n_states, M::n_params);
}

// One thread: the driver a thread per trajectory runs.
template <class Method, class M>
run_result<typename M::scalar> run_alone(const M& m, const fx::ode_problem<typename M::scalar>& pr,
                                         const std::vector<typename M::scalar>& x0,
                                         const std::vector<typename M::scalar>& p) {
  using T = typename M::scalar;
  constexpr std::ptrdiff_t n = M::n_states;
  const auto o = options_of<M>(pr);
  run_result<T> r(o.n_save, n);
  const fx::trajectory_io<T> io = r.io(x0, p, n);
  if (o.n_save > 0) {
    r.status = fx::stepper_of<Method, M>::type::run(m, o, io, r.stats);
  } else {
    fx::detail::no_saved_states none;
    r.status = fx::stepper_of<Method, M>::type::run(m, o, io, r.stats, none);
  }
  return r;
}

// G host threads together; every member must report the same status and
// statistics.
template <class Method, int G, class M>
run_result<typename M::scalar> run_shared(const M& m, const fx::ode_problem<typename M::scalar>& pr,
                                          const std::vector<typename M::scalar>& x0,
                                          const std::vector<typename M::scalar>& p) {
  using T = typename M::scalar;
  using system = fx::shared_state_system<M, G, host_members<T>>;
  constexpr std::ptrdiff_t n = M::n_states;
  const auto o = options_of<M>(pr);
  run_result<T> r(o.n_save, n);
  const fx::trajectory_io<T> io = r.io(x0, p, n);
  // NaN where nothing was written: a member reading memory no one wrote shows.
  std::vector<T> shared(system::shared_values, std::numeric_limits<T>::quiet_NaN()), slots(G);
  std::vector<fx::solve_status> status(G);
  std::vector<fx::solve_statistics> stats(G);
  std::barrier<> meet(G);
  std::vector<std::thread> members;
  for (unsigned rank = 0; rank < unsigned(G); ++rank)
    members.emplace_back([&, rank] {
      const host_members<T> g{rank, unsigned(G), &meet, slots.data()};
      status[rank] = o.n_save > 0 ? fx::integrate_shared<Method, G, true>(m, g, o, io, shared.data(), stats[rank])
                                  : fx::integrate_shared<Method, G, false>(m, g, o, io, shared.data(), stats[rank]);
    });
  for (auto& t : members) t.join();
  for (int rank = 1; rank < G; ++rank) {
    REQUIRE(status[rank] == status[0]);
    REQUIRE(stats[rank].accepted == stats[0].accepted);
    REQUIRE(stats[rank].rejected == stats[0].rejected);
    REQUIRE(stats[rank].rhs_evaluations == stats[0].rhs_evaluations);
  }
  r.status = status[0];
  r.stats = stats[0];
  return r;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Two runs of one method whose steps differ only through the rounding of the
// error norm's sum: their states differ by far less than the tolerance
// atol + rtol |y| (a hundredth of it).
template <class T>
void require_close(const std::vector<T>& a, const std::vector<T>& b, T rtol, T atol) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("value " << i << ": " << a[i] << " against " << b[i]);
    REQUIRE(std::isfinite(double(a[i])));
    REQUIRE(std::abs(double(a[i]) - double(b[i])) <= 0.01 * (double(atol) + double(rtol) * std::abs(double(b[i]))));
  }
}

// y_i' = -k_i y_i, ten states (shares of 4, 2 and 1 leave padding), with an
// alias read by every element (a scratch step: members sync after it).
using group_decays::c;
using group_decays::decays;

// y' = c y^2 blows up at t = 1 / (c y0).
constexpr fx::state<"u"> u;
constexpr auto blowup = fx::model(fx::states(u), fx::params(c), fx::d(u) = c * u * u);

}  // namespace

TEMPLATE_TEST_CASE("a group integrates decays as one thread does, and as their closed form", "[solve][cooperative]",
                   float, double) {
  using T = TestType;
  using M = fx::compiled<decays, T>;
  std::vector<T> x0(10), p(11), atol(10);
  for (int j = 0; j < 10; ++j) {
    x0[std::size_t(j)] = T(1 + j);
    p[std::size_t(j)] = T(0.3 + 0.25 * j);
    atol[std::size_t(j)] = T(1e-7 * (1 + j % 3));
  }
  p[10] = T(1.5);  // c
  const std::vector<T> ts = {T(0), T(0.1), T(0.55), T(1), T(2)};
  const T rtol = sizeof(T) == 8 ? T(1e-8) : T(1e-5);
  fx::ode_problem<T> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = rtol, .atol = T(1e-6)};
  if (sizeof(T) == 8) {
    pr.atol_per_state = atol;
    pr.atol = 0;  // unused with per-state tolerances, so not checked: the padding must not read it
  }

  SECTION("Tsit5") {
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    REQUIRE(alone.status == fx::solve_status::success);
    // One member holds everything: the same arithmetic in the same order.
    const auto one = run_shared<fx::tsit5, 1>(M{}, pr, x0, p);
    CHECK(same_bits(one.saved, alone.saved));
    CHECK(same_bits(one.final_state, alone.final_state));
    CHECK(one.stats.accepted == alone.stats.accepted);
    CHECK(one.stats.rhs_evaluations == alone.stats.rhs_evaluations);
    const T tol = 10 * rtol;  // the global error of a tolerance-controlled integration
    const auto check = [&](const run_result<T>& r) {
      REQUIRE(r.status == fx::solve_status::success);
      require_close(r.saved, alone.saved, rtol, T(1e-6));
      require_close(r.final_state, alone.final_state, rtol, T(1e-6));
      for (std::size_t s = 0; s < ts.size(); ++s)
        for (int j = 0; j < 10; ++j) {
          const double exact = double(x0[std::size_t(j)]) * std::exp(-1.5 * double(p[std::size_t(j)]) * double(ts[s]));
          INFO("save time " << s << ", state " << j);
          REQUIRE(std::abs(double(r.saved[s * 10 + std::size_t(j)]) - exact) <= double(tol) * (1 + exact));
        }
    };
    check(run_shared<fx::tsit5, 3>(M{}, pr, x0, p));
    check(run_shared<fx::tsit5, 7>(M{}, pr, x0, p));
    check(run_shared<fx::tsit5, 16>(M{}, pr, x0, p));
  }
  SECTION("Vern7, whose dense output needs extra stages at the save times") {
    const auto alone = run_alone<fx::vern7>(M{}, pr, x0, p);
    REQUIRE(alone.status == fx::solve_status::success);
    const auto one = run_shared<fx::vern7, 1>(M{}, pr, x0, p);
    CHECK(same_bits(one.saved, alone.saved));
    CHECK(one.stats.rhs_evaluations == alone.stats.rhs_evaluations);
    const auto four = run_shared<fx::vern7, 4>(M{}, pr, x0, p);
    REQUIRE(four.status == fx::solve_status::success);
    require_close(four.saved, alone.saved, rtol, T(1e-6));
  }
  SECTION("events at given times: a dose into a padded member's share, a move between members' shares") {
    // State 9 is held by member 0 of 3 (9 = 0 + 3 * 3), state 4 by member 1;
    // p[10] is the parameter c (shared memory). Against the closed form:
    // y_i(t) = y_i(0) e^{-c k_i t} with the jumps written out by hand.
    fx::timed_events<T> ev;
    ev.add(T(0.55), 9, T(2)).move(T(1), 4, 2, T(0.5)).add_parameter(T(1), 0, 10);
    pr.events = ev;
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    REQUIRE(alone.status == fx::solve_status::success);
    const auto one = run_shared<fx::tsit5, 1>(M{}, pr, x0, p);
    CHECK(same_bits(one.saved, alone.saved));
    CHECK(same_bits(one.final_state, alone.final_state));
    const auto decay = [&](int j, double from, double value, double t) {
      return value * std::exp(-1.5 * double(p[std::size_t(j)]) * (t - from));
    };
    for (const auto& r : {run_shared<fx::tsit5, 3>(M{}, pr, x0, p), run_shared<fx::tsit5, 7>(M{}, pr, x0, p)}) {
      REQUIRE(r.status == fx::solve_status::success);
      require_close(r.saved, alone.saved, rtol, T(1e-6));
      const double t = 2, tol = 10 * double(rtol);
      const double y9 = decay(9, 0.55, decay(9, 0, x0[9], 0.55) + 2, t);
      const double y4_1 = decay(4, 0, x0[4], 1), y2_1 = decay(2, 0, x0[2], 1), y0_1 = decay(0, 0, x0[0], 1);
      const double y4 = decay(4, 1, 0.5 * y4_1, t), y2 = decay(2, 1, y2_1 + 0.5 * y4_1, t);
      const double y0 = decay(0, 1, y0_1 + 1.5, t);
      CHECK(std::abs(double(r.final_state[9]) - y9) <= tol * (1 + y9));
      CHECK(std::abs(double(r.final_state[4]) - y4) <= tol * (1 + y4));
      CHECK(std::abs(double(r.final_state[2]) - y2) <= tol * (1 + y2));
      CHECK(std::abs(double(r.final_state[0]) - y0) <= tol * (1 + y0));
    }
  }
  SECTION("an input from data: c (p[10], in shared memory) driven piecewise constant") {
    // c = 1.5 until t = 0.8, then 0.5: y_i(t) = y_i(0) e^{-k_i C(t)}, C the
    // integral of c, written by hand.
    const std::vector<T> times = {T(0), T(0.8)}, values = {T(1.5), T(0.5)};
    fx::timed_events<T> ev;
    ev.piecewise_constant(10, times, values);
    pr.events = ev;
    std::vector<T> nonsense = p;
    nonsense[10] = T(99);  // the trajectory's own c, never read
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, nonsense);
    REQUIRE(alone.status == fx::solve_status::success);
    const auto one = run_shared<fx::tsit5, 1>(M{}, pr, x0, nonsense);
    CHECK(same_bits(one.saved, alone.saved));
    for (const auto& r : {run_shared<fx::tsit5, 3>(M{}, pr, x0, nonsense), run_shared<fx::tsit5, 7>(M{}, pr, x0, nonsense)}) {
      REQUIRE(r.status == fx::solve_status::success);
      require_close(r.saved, alone.saved, rtol, T(1e-6));
      for (std::size_t s = 0; s < ts.size(); ++s)
        for (int j = 0; j < 10; ++j) {
          const double t = double(ts[s]), integral = 1.5 * std::min(t, 0.8) + 0.5 * std::max(t - 0.8, 0.0);
          const double exact = double(x0[std::size_t(j)]) * std::exp(-double(p[std::size_t(j)]) * integral);
          INFO("save time " << s << ", state " << j);
          REQUIRE(std::abs(double(r.saved[s * 10 + std::size_t(j)]) - exact) <= 10 * double(rtol) * (1 + exact));
        }
    }
  }
  SECTION("without save times") {
    pr.save_times = {};
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    const auto one = run_shared<fx::tsit5, 1>(M{}, pr, x0, p);
    CHECK(same_bits(one.final_state, alone.final_state));
    const auto three = run_shared<fx::tsit5, 3>(M{}, pr, x0, p);
    REQUIRE(three.status == fx::solve_status::success);
    require_close(three.final_state, alone.final_state, rtol, T(1e-6));
  }
}

TEST_CASE("a warp-sized group integrates Model A as one thread does", "[solve][cooperative]") {
  using M = fx::compiled<model_a_grid::model, double>;
  std::vector<double> x0s, ps;
  model_a_grid::grid_inputs<double>(2, x0s, ps);  // 4 trajectories, SoA
  const std::size_t B = 4;
  const auto ts = model_a_grid::save_times();
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = model_a_grid::t_end, .save_times = ts, .rtol = 1e-6, .atol = 1e-4};
  for (std::size_t b : {std::size_t(0), std::size_t(3)}) {
    std::vector<double> x0(M::n_states), p(M::n_params);
    for (std::size_t j = 0; j < M::n_states; ++j) x0[j] = x0s[j * B + b];
    for (std::size_t j = 0; j < M::n_params; ++j) p[j] = ps[j * B + b];
    INFO("trajectory " << b);
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    REQUIRE(alone.status == fx::solve_status::success);
    REQUIRE(alone.stats.accepted > 20);
    const auto one = run_shared<fx::tsit5, 1>(M{}, pr, x0, p);
    CHECK(same_bits(one.saved, alone.saved));
    const auto warp = run_shared<fx::tsit5, 32>(M{}, pr, x0, p);
    REQUIRE(warp.status == fx::solve_status::success);
    require_close(warp.saved, alone.saved, 1e-6, 1e-4);
    require_close(warp.final_state, alone.final_state, 1e-6, 1e-4);
    CHECK(std::abs(warp.stats.accepted - alone.stats.accepted) <= 1);
    const auto five = run_shared<fx::tsit5, 5>(M{}, pr, x0, p);  // 128 = 25 x 5 + 3: padding
    require_close(five.saved, alone.saved, 1e-6, 1e-4);
  }
}

TEMPLATE_TEST_CASE("a group stops where one thread stops, with the same status", "[solve][cooperative]", float,
                   double) {
  using T = TestType;
  SECTION("the step budget") {
    using M = fx::compiled<decays, T>;
    std::vector<T> x0(10, T(1)), p(11, T(1));
    const fx::ode_problem<T> pr{.t0 = 0, .t1 = 100, .rtol = T(1e-5), .atol = T(1e-6), .max_steps = 7};
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    REQUIRE(alone.status == fx::solve_status::max_steps);
    const auto g = run_shared<fx::tsit5, 3>(M{}, pr, x0, p);
    CHECK(g.status == fx::solve_status::max_steps);
    CHECK(g.stats.accepted + g.stats.rejected == 7);
  }
  SECTION("a blow-up, the state held by one member of four") {
    using M = fx::compiled<blowup, T>;
    const std::vector<T> x0 = {T(1)}, p = {T(1)};
    const fx::ode_problem<T> pr{.t0 = 0, .t1 = 2, .rtol = T(1e-5), .atol = T(1e-6)};
    const auto alone = run_alone<fx::tsit5>(M{}, pr, x0, p);
    REQUIRE(alone.status != fx::solve_status::success);
    const auto g = run_shared<fx::tsit5, 4>(M{}, pr, x0, p);
    CHECK(g.status == alone.status);
    CHECK(g.stats.accepted == alone.stats.accepted);
    CHECK(same_bits(g.final_state, alone.final_state));  // one component: the same sum
  }
}
