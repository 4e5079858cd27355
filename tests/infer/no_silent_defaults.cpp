// No silent defaults in a log-density (issue 39 item 5):
//   - a series whose family needs parameters beyond its location and names
//     none is refused with a data_error naming the series, before any work,
//     instead of reading model parameter 0;
//   - where the log-density is -inf after a successful integration (a
//     parameter outside its prior's support, an observation outside the
//     family's), the gradient is exactly zero, by forward sensitivities and
//     by the discrete adjoint, as for a failed integration.
// The model is y' = c - k y (parameters k, c, sd), observed as y. The
// expected values are the rule itself (-inf, zeros), and a point inside the
// supports shows the same calls give a finite value and a non-zero gradient.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>

#include "log_density_fixtures.hpp"
#include "log_density_harness.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;

namespace {

using M = fx::compiled<log_density_fixtures::relax, double>;
constexpr std::size_t columns = M::n_params + M::n_states;
constexpr double sentinel = -12345.5;
constexpr double minus_inf = -std::numeric_limits<double>::infinity();

const std::vector<double> save_times = {0.5, 1.0, 2.0};

fx::ode_problem<double> problem() {
  return {.t0 = 0, .t1 = 2, .save_times = save_times, .rtol = 1e-8, .atol = 1e-10};
}

std::vector<fx::observation<double>> exact(std::initializer_list<double> values) {
  std::vector<fx::observation<double>> out;
  for (double v : values) out.push_back(fx::observation<double>::exact(v));
  return out;
}

using log_density_harness::data_error_of;

// One trajectory's value and gradient, by forward sensitivities or by the
// discrete adjoint.
struct one_result {
  double value;
  std::vector<double> gradient;
  fx::solve_status status;
};
template <class Lik, class Pri>
one_result evaluate(const Lik& lik, const std::vector<fx::observation<double>>& obs, const Pri& pri,
                    std::vector<double> x0, std::vector<double> theta, bool adjoint) {
  const std::vector<fx::series_data<double>> data = {{.values = obs}};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(theta));
  const auto r = adjoint ? fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), pri, 1, xs, ps,
                                                 fx::discrete_adjoint{})
                         : fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), pri, 1, xs, ps);
  one_result out{r.value[0], {}, r.status[0]};
  for (std::size_t j = 0; j < columns; ++j) out.gradient.push_back(r.gradient(j, 0));
  return out;
}

bool all_zero(const std::vector<double>& g) {
  for (double v : g)
    if (v != 0.0) return false;
  return true;
}

}  // namespace

TEST_CASE("a series whose family needs a parameter and names none is refused, naming it",
          "[infer][defaults]") {
  const std::vector<double> x0 = {1.0}, theta = {0.8, 0.5, 0.3};
  const auto obs = exact({1.0, 2.0, 3.0});
  const std::vector<fx::series_data<double>> data = {{.values = obs}};
  std::vector<double> value(1, sentinel), gradients(columns, sentinel);
  std::vector<fx::solve_status> status(1, fx::solve_status(-7));
  const fx::log_density_buffers<double> out{std::span<double>(value), std::span<double>(gradients),
                                            std::span<fx::solve_status>(status), {}};
  const auto run = [&](const auto& lik) {
    return data_error_of([&] {
      fx::host::log_density(M{}, fx::tsit5{}, problem(), lik, std::span(data), fx::priors<>{}, 1,
                            fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(theta)), out);
    });
  };
  SECTION("a negative binomial without its dispersion") {
    const std::string what =
        run(fx::likelihood(fx::series<fx::neg_binomial_2>{.name = "weekly cases", .observable = 0}));
    CHECK_THAT(what, ContainsSubstring("weekly cases"));
    CHECK_THAT(what, ContainsSubstring("neg_binomial_2 density's parameter 1 is not given"));
  }
  SECTION("a normal without its sd") {
    const std::string what = run(fx::likelihood(fx::series<fx::normal>{.name = "level", .observable = 0}));
    CHECK_THAT(what, ContainsSubstring("level"));
    CHECK_THAT(what, ContainsSubstring("normal density's parameter 1 is not given"));
  }
  CHECK(value[0] == sentinel);
  for (double g : gradients) CHECK(g == sentinel);
  CHECK(status[0] == fx::solve_status(-7));
  // Named, the same series runs (parameter 0 is a valid index: only a slot
  // left out is refused).
  const fx::likelihood named_lik(fx::series<fx::normal>{.name = "level", .observable = 0, .parameters = {0}});
  const auto named = evaluate(named_lik, obs, fx::priors<>{}, x0, theta, false);
  CHECK(named.status == fx::solve_status::success);
  CHECK(std::isfinite(named.value));
}

TEST_CASE("outside a prior's support the log-density is -inf and its gradient zero", "[infer][defaults]") {
  const fx::likelihood lik(fx::series<fx::normal>{.name = "level", .observable = 0, .parameters = {2}});
  const auto obs = exact({0.9, 0.8, 0.7});
  const fx::priors pri(fx::prior_on{0, fx::gamma_prior{2.0, 1.0}}, fx::prior_on{2, fx::half_normal_prior{1.0}});
  for (bool adjoint : {false, true}) {
    INFO((adjoint ? "discrete adjoint" : "forward sensitivities"));
    const auto inside = evaluate(lik, obs, pri, {1.0}, {0.8, 0.5, 0.3}, adjoint);
    REQUIRE(inside.status == fx::solve_status::success);
    CHECK(std::isfinite(inside.value));
    CHECK(!all_zero(inside.gradient));
    // k = -0.2 is outside the gamma prior's support (0, inf); the
    // integration itself succeeds (y grows).
    const auto outside = evaluate(lik, obs, pri, {1.0}, {-0.2, 0.5, 0.3}, adjoint);
    CHECK(outside.status == fx::solve_status::success);
    CHECK(outside.value == minus_inf);
    CHECK(all_zero(outside.gradient));
  }
}

TEST_CASE("an observation outside the family's support gives -inf and a zero gradient", "[infer][defaults]") {
  // y stays 0 (y0 = 0, c = 0): a Poisson mean of 0 cannot give a count of 3.
  const fx::likelihood lik(fx::series<fx::poisson>{.name = "cases", .observable = 0});
  const auto obs = exact({0.0, 3.0, 0.0});
  for (bool adjoint : {false, true}) {
    INFO((adjoint ? "discrete adjoint" : "forward sensitivities"));
    const auto zero_mean = evaluate(lik, obs, fx::priors<>{}, {0.0}, {0.8, 0.0, 0.3}, adjoint);
    CHECK(zero_mean.status == fx::solve_status::success);
    CHECK(zero_mean.value == minus_inf);
    CHECK(all_zero(zero_mean.gradient));
    const auto positive_mean = evaluate(lik, obs, fx::priors<>{}, {1.0}, {0.8, 1.0, 0.3}, adjoint);
    CHECK(std::isfinite(positive_mean.value));
    CHECK(!all_zero(positive_mean.gradient));
  }
}
