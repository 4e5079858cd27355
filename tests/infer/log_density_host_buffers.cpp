// fx::host::log_density into buffers the caller owns (fx::log_density_buffers):
// the same bits as the form that returns an fx::log_density_result, with the
// gradient (out.gradients not empty) and without, on one thread and several,
// failed trajectories included; the value and gradient also against the
// closed form of y' = c - k y. A buffer too small, an output overlapping an
// input or another output, and bad data raise an error before any work,
// every output left as it was (a sentinel survives).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>

#include "log_density_fixtures.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using namespace log_density_fixtures;

namespace {

template <class T>
bool same_bits(std::span<const T> a, std::span<const T> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

constexpr double sentinel = -12345.5;
constexpr auto status_sentinel = fx::solve_status(-7);

struct outputs {
  std::vector<double> value, gradients;
  std::vector<fx::solve_status> status;
  std::vector<fx::solve_statistics> stats;
  outputs(std::size_t count, std::size_t n_gradients, bool with_stats)
      : value(count, sentinel), gradients(n_gradients, sentinel), status(count, status_sentinel),
        stats(with_stats ? count : 0, fx::solve_statistics{-1, -1, -1, -1, -1}) {}
  fx::log_density_buffers<double> buffers() {
    return {std::span<double>(value), std::span<double>(gradients), std::span<fx::solve_status>(status),
            std::span<fx::solve_statistics>(stats)};
  }
  bool untouched() const {
    for (double v : value)
      if (v != sentinel) return false;
    for (double v : gradients)
      if (v != sentinel) return false;
    for (auto s : status)
      if (s != status_sentinel) return false;
    for (const auto& s : stats)
      if (s.accepted != -1) return false;
    return true;
  }
};

// y' = c - k y with a normal series on y and priors on k and sd (the
// closed form in log_density_fixtures.hpp).
struct relax_case {
  using M = fx::compiled<relax, double>;
  static constexpr std::size_t B = 11;
  std::vector<double> x0, th;
  std::vector<double> ts = {0.3, 1.0, 2.0, 3.5};
  std::vector<fx::observation<double>> obs = {fx::observation<double>::exact(1.1), fx::observation<double>::exact(0.7),
                                              fx::observation<double>::exact(0.0), fx::observation<double>::exact(1.9)};
  std::vector<unsigned char> mask = {1, 1, 0, 1};
  fx::likelihood<fx::series<fx::normal>> lik{fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {2}}};
  std::vector<fx::series_data<double>> data;
  fx::ode_problem<double> pr;
  relax_case() : x0(B), th(3 * B) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.3, 2.0);
    for (auto& e : x0) e = u(rng);
    for (auto& e : th) e = u(rng);
    data = {{.values = obs, .mask = mask}};
    pr = {.t0 = 0, .t1 = 3.5, .save_times = ts, .rtol = 1e-11, .atol = 1e-12};
  }
  fx::batch<const double> xs() const { return fx::soa(std::span<const double>(x0)); }
  fx::batch<const double> ps() const { return fx::soa(std::span<const double>(th)); }
  auto priors() const {
    return fx::priors(fx::prior_on{0, fx::normal_prior{1.0, 0.5}}, fx::prior_on{2, fx::half_normal_prior{1.0}});
  }
};

}  // namespace

TEST_CASE("log_density into caller buffers gives the result form's bits, with the gradient and without") {
  const relax_case c;
  using M = relax_case::M;
  constexpr std::size_t B = relax_case::B, columns = M::n_params + M::n_states;
  const auto pri = c.priors();
  fx::host::threads one;
  fx::host::threads three(3, 1);  // every trajectory range on its own thread
  for (bool gradient : {true, false})
    for (bool with_stats : {true, false})
      for (const auto exec : {one, three}) {
        CAPTURE(gradient, with_stats, exec.count);
        const auto want =
            fx::host::log_density(M{}, fx::tsit5{}, c.pr, c.lik, std::span(c.data), pri, B, c.xs(), c.ps(), gradient, exec);
        outputs out(B, gradient ? columns * B : 0, with_stats);
        fx::host::log_density(M{}, fx::tsit5{}, c.pr, c.lik, std::span(c.data), pri, B, c.xs(), c.ps(), out.buffers(),
                              exec);
        CHECK(same_bits<double>(out.value, want.value));
        CHECK(same_bits<double>(out.gradients, want.gradients));
        CHECK(out.status == want.status);
        if (with_stats)
          for (std::size_t b = 0; b < B; ++b) CHECK(std::memcmp(&out.stats[b], &want.stats[b], sizeof out.stats[b]) == 0);
        // And the closed form (as tests/infer/log_density.cpp checks the result form).
        for (std::size_t b = 0; b < B; ++b) {
          REQUIRE(out.status[b] == fx::solve_status::success);
          const auto exact = relax_closed_form(c.th[b], c.th[B + b], c.th[2 * B + b], c.x0[b], c.ts, c.obs, c.mask);
          CHECK_THAT(out.value[b], WithinRel(exact.value, 1e-9));
          if (gradient)
            for (std::size_t j = 0; j < columns; ++j)
              CHECK_THAT(out.gradients[j * B + b], WithinAbs(exact.grad[j], 1e-7 * (1 + std::abs(exact.grad[j]))));
        }
      }
}

TEST_CASE("log_density into caller buffers: the two-patch SIR's gradient and failed trajectories, bit for bit") {
  using M = fx::compiled<sir2, double>;
  constexpr std::size_t B = 3, columns = n_params + n_states;
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
  const std::vector<fx::series_data<double>> data = stored.series();
  const fx::priors pri(fx::prior_on{6, fx::lognormal_prior{std::log(0.15), 0.5}},
                       fx::prior_on{7, fx::gamma_prior{2.0, 0.2}});
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  for (long long max_steps : {100000LL, 8LL}) {  // 8: every trajectory stops early (-inf, zero gradient)
    CAPTURE(max_steps);
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 27, .save_times = save_times, .rtol = 1e-10, .atol = 1e-8, .max_steps = max_steps};
    const auto want = fx::host::log_density(M{}, fx::vern7{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps);
    outputs out(B, columns * B, true);
    fx::host::log_density(M{}, fx::vern7{}, pr, sir2_likelihood, std::span(data), pri, B, xs, ps, out.buffers());
    CHECK(same_bits<double>(out.value, want.value));
    CHECK(same_bits<double>(out.gradients, want.gradients));
    CHECK(out.status == want.status);
    for (std::size_t b = 0; b < B; ++b) {
      CHECK(out.stats[b].accepted == want.stats[b].accepted);
      CHECK(out.stats[b].rhs_evaluations == want.stats[b].rhs_evaluations);
      CHECK((out.status[b] == fx::solve_status::success) == (max_steps > 8));
      if (max_steps == 8) CHECK(out.value[b] == -std::numeric_limits<double>::infinity());
    }
  }
}

TEST_CASE("log_density into caller buffers refuses small and overlapping outputs and bad data before any work") {
  const relax_case c;
  using M = relax_case::M;
  constexpr std::size_t B = relax_case::B, columns = M::n_params + M::n_states;
  const auto pri = c.priors();
  struct refusal {
    std::string block, what;
  };
  const auto refuse = [&](fx::batch<const double> x, fx::batch<const double> p, fx::log_density_buffers<double> out) {
    try {
      fx::host::log_density(M{}, fx::tsit5{}, c.pr, c.lik, std::span(c.data), pri, B, x, p, out);
    } catch (const fx::layout_error& e) {
      return refusal{e.block(), e.what()};
    }
    return refusal{};
  };
  const auto xs = c.xs(), ps = c.ps();
  SECTION("too small") {
    outputs out(B, columns * B, true);
    const auto b = out.buffers();
    CHECK(refuse(xs, ps, {b.value.first(B - 1), b.gradients, b.status, b.stats}).block == "log-density");
    CHECK(refuse(xs, ps, {b.value, b.gradients.first(columns * B - 1), b.status, b.stats}).block == "gradient");
    CHECK(refuse(xs, ps, {b.value, b.gradients, b.status.first(B - 1), b.stats}).block == "status");
    CHECK(refuse(xs, ps, {b.value, b.gradients, b.status, b.stats.first(B - 1)}).block == "statistics");
    CHECK(refuse(xs, ps, {b.value, {}, b.status.first(B - 1), b.stats}).block == "status");  // value only
    CHECK(out.untouched());
  }
  SECTION("outputs overlapping each other") {
    // The value and the gradient in one buffer, the gradient starting on the last value.
    outputs out(B + columns * B, 0, true);
    const std::span<double> all(out.value);
    const auto r = refuse(xs, ps, {all.first(B), all.subspan(B - 1, columns * B), out.buffers().status,
                                   out.buffers().stats});
    CHECK(r.block == "gradient");
    CHECK(r.what.find("overlaps the input buffer of block 'log-density'") != std::string::npos);
    CHECK(out.untouched());
  }
  SECTION("an output over an input") {
    outputs out(B, columns * B, true);
    const auto b = out.buffers();
    // The gradient written over the parameters (their first values).
    std::vector<double> joint(columns * B, 0.5);
    for (std::size_t k = 0; k < c.th.size(); ++k) joint[k] = c.th[k];
    const std::vector<double> before = joint;
    const auto r = refuse(xs, fx::soa(std::span<const double>(joint).first(3 * B)),
                          {b.value, std::span<double>(joint), b.status, b.stats});
    CHECK(r.block == "gradient");
    CHECK(r.what.find("overlaps the input buffer of block 'parameter'") != std::string::npos);
    CHECK(joint == before);
    CHECK(out.untouched());
  }
  SECTION("bad data") {
    outputs out(B, columns * B, true);
    const std::vector<fx::observation<double>> short_obs = {fx::observation<double>::exact(1.0)};
    const std::vector<fx::series_data<double>> bad = {{.values = short_obs}};
    CHECK_THROWS_AS(fx::host::log_density(M{}, fx::tsit5{}, c.pr, c.lik, std::span(bad), pri, B, xs, ps, out.buffers()),
                    fx::data_error);
    CHECK(out.untouched());
  }
  SECTION("no trajectories writes nothing") {
    outputs out(2, 2, true);
    fx::host::log_density(M{}, fx::tsit5{}, c.pr, c.lik, std::span(c.data), pri, 0, xs, ps, out.buffers());
    CHECK(out.untouched());
  }
}
