// Trajectory log-densities and their gradients (fx::host::log_density)
// against independent oracles:
//   - y' = c - k y observed under a normal density: the log-likelihood and
//     its gradient written out from the closed-form solution and its
//     closed-form derivatives, with priors written out by hand;
//   - a two-patch SIR observed through a negative binomial (exact, masked,
//     right-, left- and interval-censored points) and a log-normal series:
//     a hand-written RK4 in plain C++ with hand-written densities (pmf sums
//     for the censored points), differentiated by complex step in the
//     parameters and initial states that move the observables, and by
//     central differences in the dispersion and the log-normal sigma.
// Also: the value-only path equals the gradient path's value; failed
// integrations give -inf; bad data raise fluxion::data_error naming the
// series and the time index, before any work.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_columns.hpp>

#include "log_density_fixtures.hpp"
#include "support/host_members.hpp"

#include <array>
#include <barrier>
#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <random>
#include <span>
#include <thread>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

using namespace log_density_fixtures;

TEST_CASE("y' = c - k y under a normal density: value and gradient match the closed forms") {
  using M = fx::compiled<relax, double>;
  constexpr std::size_t B = 8;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.3, 2.0);
  std::vector<double> x0(B), th(3 * B);
  for (auto& e : x0) e = u(rng);
  for (auto& e : th) e = u(rng);
  const std::vector<double> ts = {0.3, 1.0, 2.0, 3.5};
  const std::vector<fx::observation<double>> obs = {
      fx::observation<double>::exact(1.1), fx::observation<double>::exact(0.7), fx::observation<double>::exact(0.0),
      fx::observation<double>::exact(1.9)};
  const std::vector<unsigned char> mask = {1, 1, 0, 1};
  const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {2}});
  const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask}};
  const fx::priors pri(fx::prior_on{0, fx::normal_prior{1.0, 0.5}}, fx::prior_on{2, fx::half_normal_prior{1.0}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 3.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-12};
  const auto r = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(th)));
  const auto v = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(th)),
                                       false);
  REQUIRE(r.columns == 4);
  for (std::size_t b = 0; b < B; ++b) {
    REQUIRE(r.status[b] == fx::solve_status::success);
    const auto exact = relax_closed_form(th[b], th[B + b], th[2 * B + b], x0[b], ts, obs, mask);
    const double value = exact.value, dk = exact.grad[0], dc = exact.grad[1], ds = exact.grad[2], dy0 = exact.grad[3];
    CHECK_THAT(r.value[b], WithinRel(value, 1e-9));
    CHECK_THAT(v.value[b], WithinRel(value, 1e-9));
    CHECK_THAT(r.gradient(0, b), WithinAbs(dk, 1e-7 * (1 + std::abs(dk))));
    CHECK_THAT(r.gradient(1, b), WithinAbs(dc, 1e-7 * (1 + std::abs(dc))));
    CHECK_THAT(r.gradient(2, b), WithinAbs(ds, 1e-7 * (1 + std::abs(ds))));
    CHECK_THAT(r.gradient(3, b), WithinAbs(dy0, 1e-7 * (1 + std::abs(dy0))));
  }
}

TEST_CASE("two-patch SIR, negative binomial with masks and censoring plus log-normal: gradient matches complex step") {
  using M = fx::compiled<sir2, double>;
  STATIC_REQUIRE(M::n_states == n_states);
  STATIC_REQUIRE(M::n_params == n_params);
  STATIC_REQUIRE(M::n_observables == 3);
  constexpr std::size_t B = 3;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x0(n_states * B), th(n_params * B);
  for (std::size_t b = 0; b < B; ++b) {
    const double xb[n_states] = {950 + 50 * u(rng), 480 + 40 * u(rng), 3 + 5 * u(rng), 1 + 2 * u(rng), 0, 5 * u(rng)};
    const double tb[n_params] = {0.35 + 0.1 * u(rng), 0.3 + 0.1 * u(rng), 1.0, 0.1 + 0.1 * u(rng),
                                 0.1 + 0.1 * u(rng),  1.0,                0.12 + 0.05 * u(rng), 3 + 5 * u(rng),
                                 0.2 + 0.2 * u(rng)};
    for (int i = 0; i < n_states; ++i) x0[std::size_t(i) * B + b] = xb[i];
    for (int j = 0; j < n_params; ++j) th[std::size_t(j) * B + b] = tb[j];
  }
  const sir2_data stored;
  const auto lik = sir2_likelihood;
  const std::vector<fx::series_data<double>> data = stored.series();
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}},
                       fx::prior_on{7, fx::gamma_prior{2.0, 0.2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-12, .atol = 1e-10};
  const auto r = fx::host::log_density(M{}, fx::vern7{}, pr, lik, std::span(data), pri, B,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(th)));
  REQUIRE(r.columns == n_params + n_states);

  std::size_t checked = 0;
  for (std::size_t b = 0; b < B; ++b) {
    REQUIRE(r.status[b] == fx::solve_status::success);
    double xb[n_states], tb[n_params];
    for (int i = 0; i < n_states; ++i) xb[i] = x0[std::size_t(i) * B + b];
    for (int j = 0; j < n_params; ++j) tb[j] = th[std::size_t(j) * B + b];
    const auto want = oracle_value_and_gradient(xb, tb);
    REQUIRE(std::isfinite(want.value));
    CHECK_THAT(r.value[b], WithinRel(want.value, 1e-9));
    for (int j = 0; j < n_params + n_states; ++j) {
      const double expected = want.grad[std::size_t(j)];
      CHECK_THAT(r.gradient(std::size_t(j), b), WithinAbs(expected, 2e-6 * (1 + std::abs(expected))));
      ++checked;
    }
  }
  CHECK(checked == B * (n_params + n_states));
}

// The GPU defers the densities to the end of each trajectory (records kept
// in a scratch slot shared, stride apart, with other threads' slots); the
// terms are then summed in the same order, so the result is the host's bit
// for bit. Run here on the host, with several trajectories reusing one slot.
TEST_CASE("deferred densities (the GPU's order) give the immediate value and gradient bit for bit") {
  using M = fx::compiled<sir2, double>;
  constexpr std::size_t B = 5, slots = 3;
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const sir2_data stored;
  const auto lik = sir2_likelihood;
  const std::vector<fx::series_data<double>> data = stored.series();
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-8, .atol = 1e-8};
  std::vector<fx::detail::series_view<double>> views;
  for (const auto& d : data) views.push_back({d.values.data(), d.mask.data(), nullptr, nullptr});
  using Record = fx::detail::log_density_sink<M, decltype(lik), true, true>;
  std::vector<double> scratch(slots * Record::record * save_times.size(), std::nan(""));
  constexpr int columns = n_params + n_states;
  for (bool gradient : {true, false}) {
    fx::detail::log_density_setup<double> setup;
    const auto aug = fx::detail::check_log_density<M>(pr, lik, std::span(data), pri, gradient, setup);
    const auto o = fx::check_problem(aug, gradient ? fx::sensitivity_system<M>::n_states : M::n_states, M::n_params);
    for (std::size_t b = 0; b < B; ++b) {
      const double xb[n_states] = {950 + 50 * u(rng), 480 + 40 * u(rng), 3 + 5 * u(rng), 1 + 2 * u(rng), 0, 5 * u(rng)};
      const double tb[n_params] = {0.35 + 0.1 * u(rng), 0.3 + 0.1 * u(rng), 1.0, 0.1 + 0.1 * u(rng),
                                   0.1 + 0.1 * u(rng),  1.0,                0.12 + 0.05 * u(rng), 3 + 5 * u(rng),
                                   0.2 + 0.2 * u(rng)};
      const fx::detail::deferred_terms<double> slot{scratch.data() + b % slots, std::ptrdiff_t(slots)};
      double v_now = 0, v_later = 1, g_now[columns] = {}, g_later[columns] = {};
      fx::solve_statistics s1{}, s2{};
      fx::solve_status a, c;
      const std::vector<double> before = scratch;
      if (gradient) {
        a = fx::detail::trajectory_log_density<fx::tsit5, true>(M{}, o, lik, views.data(), pri, xb, 1, tb, 1, &v_now,
                                                               g_now, 1, s1);
        c = fx::detail::trajectory_log_density<fx::tsit5, true, true>(M{}, o, lik, views.data(), pri, xb, 1, tb, 1,
                                                                     &v_later, g_later, 1, s2, slot);
      } else {
        a = fx::detail::trajectory_log_density<fx::tsit5, false>(M{}, o, lik, views.data(), pri, xb, 1, tb, 1, &v_now,
                                                                nullptr, 0, s1);
        c = fx::detail::trajectory_log_density<fx::tsit5, false, true>(M{}, o, lik, views.data(), pri, xb, 1, tb, 1,
                                                                      &v_later, nullptr, 0, s2, slot);
      }
      INFO("trajectory " << b << (gradient ? ", with gradient" : ", value only"));
      REQUIRE(a == fx::solve_status::success);
      REQUIRE(c == a);
      REQUIRE(std::isfinite(v_now));
      CHECK(v_later == v_now);
      for (int j = 0; j < columns; ++j) CHECK(g_later[j] == g_now[j]);
      CHECK(s2.accepted == s1.accepted);
      // Only this trajectory's slot was written: every other slot's entries are as they were.
      std::size_t foreign_changed = 0;
      for (std::size_t k = 0; k < scratch.size(); ++k)
        if (k % slots != b % slots && !(scratch[k] == before[k] || (std::isnan(scratch[k]) && std::isnan(before[k]))))
          ++foreign_changed;
      CHECK(foreign_changed == 0);
    }
  }
}

using support::host_members;

TEST_CASE("a member per sensitivity column (the GPU's lanes) gives one thread's value and gradient") {
  using M = fx::compiled<sir2, double>;
  constexpr int columns = n_params + n_states, G = 1 + columns;
  constexpr std::size_t B = 4;
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const sir2_data stored;
  const auto lik = sir2_likelihood;
  const std::vector<fx::series_data<double>> data = stored.series();
  // A prior on a density's own parameter (phi, 7) and one on gamma (6).
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}},
                       fx::prior_on{7, fx::gamma_prior{2.0, 0.2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-8, .atol = 1e-8};
  std::vector<fx::detail::series_view<double>> views;
  for (const auto& d : data) views.push_back({d.values.data(), d.mask.data(), nullptr, nullptr});
  fx::detail::log_density_setup<double> setup;
  const auto aug = fx::detail::check_log_density<M>(pr, lik, std::span(data), pri, true, setup);
  const auto o = fx::check_problem(aug, fx::sensitivity_system<M>::n_states, M::n_params);
  using Sink = fx::detail::member_log_density_sink<M, decltype(lik), host_members<double>>;
  for (std::size_t b = 0; b < B; ++b) {
    const double xb[n_states] = {950 + 50 * u(rng), 480 + 40 * u(rng), 3 + 5 * u(rng), 1 + 2 * u(rng), 0, 5 * u(rng)};
    const double tb[n_params] = {0.35 + 0.1 * u(rng), 0.3 + 0.1 * u(rng), 1.0, 0.1 + 0.1 * u(rng),
                                 0.1 + 0.1 * u(rng),  1.0,                0.12 + 0.05 * u(rng), 3 + 5 * u(rng),
                                 0.2 + 0.2 * u(rng)};
    double v_one = 0, g_one[columns] = {};
    fx::solve_statistics s_one{};
    REQUIRE(fx::detail::trajectory_log_density<fx::tsit5, true>(M{}, o, lik, views.data(), pri, xb, 1, tb, 1, &v_one,
                                                               g_one, 1, s_one) == fx::solve_status::success);
    // G members in consecutive slots; NaN where nothing was written.
    std::vector<double> scratch(G * Sink::slot_values(save_times.size()), std::nan("")), slots(G);
    double v_members = std::nan(""), g_members[columns];
    for (double& g : g_members) g = std::nan("");
    std::vector<fx::solve_status> status(G);
    std::vector<fx::solve_statistics> stats(G);
    std::barrier<> meet(G);
    std::vector<std::thread> members;
    for (unsigned r = 0; r < unsigned(G); ++r)
      members.emplace_back([&, r] {
        const host_members<double> g{r, unsigned(G), &meet, slots.data()};
        status[r] = fx::detail::trajectory_log_density_members<fx::tsit5>(
            M{}, g, o, lik, views.data(), pri, xb, 1, tb, 1, &v_members, g_members, 1, stats[r],
            fx::detail::deferred_terms<double>{scratch.data() + r, std::ptrdiff_t(G)});
      });
    for (auto& t : members) t.join();
    INFO("trajectory " << b);
    for (int r = 0; r < G; ++r) {
      REQUIRE(status[std::size_t(r)] == fx::solve_status::success);
      REQUIRE(stats[std::size_t(r)].accepted == stats[0].accepted);
    }
    // The same steps up to the rounding of the error norm's sum.
    CHECK(std::abs(stats[0].accepted - s_one.accepted) <= 1);
    CHECK_THAT(v_members, WithinRel(v_one, 1e-9));
    for (int j = 0; j < columns; ++j) {
      INFO("column " << j);
      CHECK_THAT(g_members[j], WithinAbs(g_one[j], 1e-8 * (1 + std::abs(g_one[j]))));
    }
  }
}

TEST_CASE("a member per column: a missing value whose observable's derivative is infinite adds nothing") {
  using M = fx::compiled<relax_sqrt, double>;
  constexpr int columns = 4, G = 1 + columns;
  const std::vector<double> ts = {0.0, 1.0, 2.5};
  const std::vector<fx::observation<double>> values = {fx::observation<double>::exact(std::nan("")),
                                                       fx::observation<double>::exact(0.8),
                                                       fx::observation<double>::exact(1.1)};
  const std::vector<unsigned char> mask = {0, 1, 1};
  const std::vector<fx::series_data<double>> data = {{.values = values, .mask = mask}};
  const fx::likelihood lik(fx::series<fx::normal>{.name = "root", .observable = 0, .parameters = {2}});
  const fx::priors<> pri;
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2.5, .save_times = ts, .rtol = 1e-9, .atol = 1e-9};
  const std::vector<fx::detail::series_view<double>> views = {{values.data(), mask.data(), nullptr, nullptr}};
  fx::detail::log_density_setup<double> setup;
  const auto aug = fx::detail::check_log_density<M>(pr, lik, std::span(data), pri, true, setup);
  const auto o = fx::check_problem(aug, fx::sensitivity_system<M>::n_states, M::n_params);
  const double x0[1] = {0.0}, th[3] = {0.7, 1.3, 0.2};
  double v_one = 0, g_one[columns] = {};
  fx::solve_statistics s_one{};
  REQUIRE(fx::detail::trajectory_log_density<fx::tsit5, true>(M{}, o, lik, views.data(), pri, x0, 1, th, 1, &v_one,
                                                             g_one, 1, s_one) == fx::solve_status::success);
  using Sink = fx::detail::member_log_density_sink<M, decltype(lik), host_members<double>>;
  std::vector<double> scratch(G * Sink::slot_values(ts.size()), std::nan("")), slots(G);
  double v = std::nan(""), g[columns];
  std::vector<fx::solve_statistics> stats(G);
  std::barrier<> meet(G);
  std::vector<std::thread> members;
  for (unsigned r = 0; r < unsigned(G); ++r)
    members.emplace_back([&, r] {
      const host_members<double> grp{r, unsigned(G), &meet, slots.data()};
      fx::detail::trajectory_log_density_members<fx::tsit5>(
          M{}, grp, o, lik, views.data(), pri, x0, 1, th, 1, &v, g, 1, stats[r],
          fx::detail::deferred_terms<double>{scratch.data() + r, std::ptrdiff_t(G)});
    });
  for (auto& t : members) t.join();
  CHECK_THAT(v, WithinRel(v_one, 1e-9));
  for (int j = 0; j < columns; ++j) {
    INFO("column " << j);
    REQUIRE(std::isfinite(g_one[j]));
    REQUIRE(std::isfinite(g[j]));
    CHECK_THAT(g[j], WithinAbs(g_one[j], 1e-8 * (1 + std::abs(g_one[j]))));
  }
}

TEST_CASE("log_density: failed integrations give -inf and a zero gradient; the value path matches") {
  using M = fx::compiled<relax, double>;
  const std::vector<double> x0 = {1.0, 1.0}, th = {0.5, 0.5, 0.1, 0.1, 0.2, 0.2};
  const std::vector<double> ts = {1.0, 50.0};
  const std::vector<fx::observation<double>> obs = {fx::observation<double>::exact(0.2),
                                                    fx::observation<double>::right(0.1)};
  const fx::likelihood lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {2}});
  const std::vector<fx::series_data<double>> data = {{.values = obs}};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 50, .save_times = ts, .max_steps = 5};
  const auto r = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, 2,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(th)));
  for (std::size_t b = 0; b < 2; ++b) {
    CHECK(r.status[b] == fx::solve_status::max_steps);
    CHECK(r.value[b] == -std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < r.columns; ++j) CHECK(r.gradient(j, b) == 0.0);
  }
}

TEST_CASE("log_density refuses bad data, naming the series and the time index, before any work") {
  using M = fx::compiled<relax, double>;
  const std::vector<double> x0 = {1.0}, th = {0.5, 0.1, 0.2};
  const std::vector<double> ts = {1.0, 2.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  const auto run = [&](const auto& lik, const std::vector<fx::series_data<double>>& data) {
    return fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, 1, xs, ps);
  };
  const fx::likelihood pois(fx::series<fx::poisson>{.name = "cases", .observable = 0});
  const std::vector<fx::observation<double>> negative = {fx::observation<double>::exact(3),
                                                         fx::observation<double>::exact(-1)};
  CHECK_THROWS_WITH(run(pois, {{.values = negative}}),
                    ContainsSubstring("'cases'") && ContainsSubstring("time index 1") &&
                        ContainsSubstring(">= 0"));
  const std::vector<fx::observation<double>> with_nan = {fx::observation<double>::exact(std::nan("")),
                                                         fx::observation<double>::exact(2)};
  CHECK_THROWS_WITH(run(pois, {{.values = with_nan}}), ContainsSubstring("time index 0") && ContainsSubstring("NaN"));
  const std::vector<unsigned char> mask = {0, 1};
  CHECK_NOTHROW(run(pois, {{.values = with_nan, .mask = mask}}));
  const std::vector<fx::observation<double>> one = {fx::observation<double>::exact(3)};
  CHECK_THROWS_WITH(run(pois, {{.values = one}}), ContainsSubstring("save times"));
  CHECK_THROWS_AS(run(pois, {}), fx::data_error);
  const fx::likelihood wrong_obs(fx::series<fx::poisson>{.name = "cases", .observable = 3});
  CHECK_THROWS_WITH(run(wrong_obs, {{.values = negative}}), ContainsSubstring("observable index 3"));
  const fx::likelihood wrong_param(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {9}});
  const std::vector<fx::observation<double>> fine = {fx::observation<double>::exact(1),
                                                     fx::observation<double>::exact(2)};
  CHECK_THROWS_WITH(run(wrong_param, {{.values = fine}}), ContainsSubstring("parameter index 9"));
  const fx::likelihood binom(fx::series<fx::binomial>{.name = "positives", .observable = 0});
  const std::vector<double> trials = {10, 1};
  CHECK_THROWS_WITH(run(binom, {{.values = fine, .trials = trials}}),
                    ContainsSubstring("'positives'") && ContainsSubstring("time index 1") &&
                        ContainsSubstring("exceeds"));
  CHECK_THROWS_WITH(run(binom, {{.values = fine}}), ContainsSubstring("trials"));
  const std::vector<fx::observation<double>> bad_interval = {fx::observation<double>::interval(5, 2),
                                                             fx::observation<double>::exact(2)};
  CHECK_THROWS_WITH(run(pois, {{.values = bad_interval}}), ContainsSubstring("a < b"));
  const fx::priors bad_prior(fx::prior_on{5, fx::normal_prior{0.0, 1.0}});
  const std::vector<fx::series_data<double>> ok = {{.values = fine}};
  CHECK_THROWS_AS(fx::host::log_density(M{}, fx::tsit5{}, pr, pois, std::span(ok), bad_prior, 1, xs, ps),
                  fx::problem_error);
}
