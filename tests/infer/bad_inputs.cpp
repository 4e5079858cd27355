// Bad inputs to the infer layer refused before any work (issue 38, item 0):
//   - priors whose hyperparameters are invalid (sd <= 0 or NaN, shape 0,
//     rate < 0, lower >= upper, ...): a problem_error naming the prior, its
//     parameter and the bad hyperparameter, not a NaN log-density reported
//     as a success;
//   - an observation whose censoring kind is none of none/left/right/interval:
//     a data_error naming the series and the time index;
//   - series values, masks and trials given as a null pointer with a length;
//   - broadcast batches too large for the result the call allocates: a
//     layout_error naming the block and the count, not std::bad_alloc or
//     std::length_error.
// Expectations are written out by hand; every refused call leaves the
// caller's outputs as they were (a sentinel survives).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/data_check.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>

#include "log_density_fixtures.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using namespace log_density_fixtures;

namespace {

using M = fx::compiled<relax, double>;  // y' = c - k y; parameters k, c, sd; observable y
constexpr std::size_t B = 3, columns = M::n_params + M::n_states;
constexpr double sentinel = -12345.5;
constexpr auto status_sentinel = fx::solve_status(-7);
const double* const null_values = nullptr;  // std::span(null_values, k): a null pointer with a length
constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

struct outputs {
  std::vector<double> value = std::vector<double>(B, sentinel), gradients = std::vector<double>(columns * B, sentinel);
  std::vector<fx::solve_status> status = std::vector<fx::solve_status>(B, status_sentinel);
  fx::log_density_buffers<double> buffers() {
    return {std::span<double>(value), std::span<double>(gradients), std::span<fx::solve_status>(status), {}};
  }
  bool untouched() const {
    for (double v : value)
      if (v != sentinel) return false;
    for (double v : gradients)
      if (v != sentinel) return false;
    for (auto s : status)
      if (s != status_sentinel) return false;
    return true;
  }
};

struct relax_inputs {
  std::vector<double> x0 = {1.0, 1.5, 0.5};
  std::vector<double> th = {0.8, 0.9, 1.1, 0.5, 0.6, 0.7, 0.3, 0.4, 0.5};  // [parameter][trajectory]
  std::vector<double> ts = {0.5, 1.0, 2.0, 3.0};
  fx::ode_problem<double> pr;
  relax_inputs() { pr = {.t0 = 0, .t1 = 3, .save_times = ts, .rtol = 1e-8, .atol = 1e-10}; }
  fx::batch<const double> xs() const { return fx::soa(std::span<const double>(x0)); }
  fx::batch<const double> ps() const { return fx::soa(std::span<const double>(th)); }
};

const fx::likelihood<fx::series<fx::normal>> normal_lik{
    fx::series<fx::normal>{.name = "level", .observable = 0, .parameters = {2}}};
const fx::likelihood<fx::series<fx::poisson>> poisson_lik{fx::series<fx::poisson>{.name = "cases", .observable = 0}};

const std::vector<fx::observation<double>> level_obs = {
    fx::observation<double>::exact(1.1), fx::observation<double>::exact(0.7), fx::observation<double>::exact(0.9),
    fx::observation<double>::exact(1.0)};

// The message of the problem_error f throws (fails when it throws none).
template <class F>
std::string problem_error_of(const F& f) {
  try {
    f();
  } catch (const fx::problem_error& e) {
    return e.what();
  } catch (const std::exception& other) {
    FAIL("expected fluxion::problem_error, got " << other.what());
  }
  FAIL("expected fluxion::problem_error, nothing was thrown");
  return {};
}

// The data_error f throws.
template <class F>
fx::data_error data_error_of(const F& f) {
  try {
    f();
  } catch (const fx::data_error& e) {
    return e;
  } catch (const std::exception& other) {
    FAIL("expected fluxion::data_error, got " << other.what());
  }
  FAIL("expected fluxion::data_error, nothing was thrown");
  return fx::data_error("", 0, "");
}

template <class F>
fx::layout_error layout_error_of(const F& f) {
  try {
    f();
  } catch (const fx::layout_error& e) {
    return e;
  } catch (const std::exception& other) {
    FAIL("expected fluxion::layout_error, got " << other.what());
  }
  FAIL("expected fluxion::layout_error, nothing was thrown");
  return fx::layout_error("", "", 0, 0);
}

// A log-density of the relax model with a valid prior 0 on k and `bad` as
// prior 1 on sd (parameter 2): refused before any work, the message naming
// prior 1, parameter 2 and `says`.
template <class Prior>
void check_refused(const Prior& bad, const std::string& says) {
  const relax_inputs in;
  const std::vector<fx::series_data<double>> data = {{.values = level_obs}};
  const fx::priors pri(fx::prior_on{0, fx::normal_prior{1.0, 0.5}}, fx::prior_on{2, bad});
  outputs out;
  const std::string what = problem_error_of([&] {
    fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), pri, B, in.xs(), in.ps(),
                          out.buffers());
  });
  INFO(what);
  CHECK_THAT(what, ContainsSubstring("prior 1 (on parameter 2)"));
  CHECK_THAT(what, ContainsSubstring(says));
  CHECK(out.untouched());
  // The result form, value only, and the discrete adjoint refuse it too.
  const std::string value_only = problem_error_of([&] {
    fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), pri, B, in.xs(), in.ps(), false);
  });
  CHECK_THAT(value_only, ContainsSubstring(says));
  const std::string adjoint = problem_error_of([&] {
    fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), pri, B, in.xs(), in.ps(),
                          fx::discrete_adjoint{});
  });
  CHECK_THAT(adjoint, ContainsSubstring(says));
}

}  // namespace

TEST_CASE("priors with invalid hyperparameters are refused before any work", "[infer][bad_inputs][priors]") {
  SECTION("normal") {
    check_refused(fx::normal_prior{0.0, 0.0}, "normal prior's sd must be positive and finite, got 0");
    check_refused(fx::normal_prior{0.0, -1.0}, "normal prior's sd must be positive and finite, got -1");
    check_refused(fx::normal_prior{0.0, nan_value}, "normal prior's sd must be positive and finite, got nan");
    check_refused(fx::normal_prior{0.0, inf_value}, "normal prior's sd must be positive and finite, got inf");
    check_refused(fx::normal_prior{nan_value, 1.0}, "normal prior's mean must be finite, got nan");
  }
  SECTION("lognormal and half-normal") {
    check_refused(fx::lognormal_prior{0.0, nan_value}, "lognormal prior's sigma must be positive and finite, got nan");
    check_refused(fx::lognormal_prior{-inf_value, 1.0}, "lognormal prior's mu must be finite, got -inf");
    check_refused(fx::half_normal_prior{-2.0}, "half-normal prior's sd must be positive and finite, got -2");
  }
  SECTION("gamma and beta") {
    check_refused(fx::gamma_prior{0.0, 1.0}, "gamma prior's shape must be positive and finite, got 0");
    check_refused(fx::gamma_prior{2.0, -1.0}, "gamma prior's rate must be positive and finite, got -1");
    check_refused(fx::gamma_prior{2.0, 0.0}, "gamma prior's rate must be positive and finite, got 0");
    check_refused(fx::beta_prior{2.0, 0.0}, "beta prior's b must be positive and finite, got 0");
    check_refused(fx::beta_prior{nan_value, 2.0}, "beta prior's a must be positive and finite, got nan");
  }
  SECTION("uniform and truncated normal") {
    check_refused(fx::uniform_prior{2.0, 1.0}, "uniform prior's lower bound must be below its upper bound, got [2, 1]");
    check_refused(fx::uniform_prior{1.0, 1.0}, "uniform prior's lower bound must be below its upper bound, got [1, 1]");
    check_refused(fx::uniform_prior{0.0, inf_value}, "uniform prior's bounds must be finite, got [0, inf]");
    check_refused(fx::truncated_normal_prior{0.0, 1.0, 3.0, 1.0},
                  "truncated normal prior's lower bound must be below its upper bound, got [3, 1]");
    check_refused(fx::truncated_normal_prior{0.0, 1.0, nan_value, 1.0},
                  "truncated normal prior's lower bound must be below its upper bound, got [nan, 1]");
    check_refused(fx::truncated_normal_prior{0.0, 0.0, 0.0, 1.0},
                  "truncated normal prior's sd must be positive and finite, got 0");
  }
}

TEST_CASE("valid hyperparameters at the edges of the checks are accepted", "[infer][bad_inputs][priors]") {
  const relax_inputs in;
  const std::vector<fx::series_data<double>> data = {{.values = level_obs}};
  // A truncated normal with one infinite bound, a tiny sd, a uniform on [0, 5].
  const fx::priors pri(fx::prior_on{0, fx::uniform_prior{0.0, 5.0}},
                       fx::prior_on{2, fx::truncated_normal_prior{0.5, 1e-3, 0.0, inf_value}});
  const auto r =
      fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), pri, B, in.xs(), in.ps(), false);
  for (std::size_t b = 0; b < B; ++b) {
    CHECK(r.status[b] == fx::solve_status::success);
    CHECK(std::isfinite(r.value[b]));
  }
}

TEST_CASE("an observation of an unknown censoring kind is refused as a data_error", "[infer][bad_inputs][censoring]") {
  const relax_inputs in;
  std::vector<fx::observation<double>> counts = {
      fx::observation<double>::exact(1), fx::observation<double>{fx::censoring(9), -5.0, 0.0},
      fx::observation<double>::exact(2), fx::observation<double>::exact(0)};
  std::vector<fx::series_data<double>> data = {{.values = counts}};
  outputs out;
  const auto e = data_error_of([&] {
    fx::host::log_density(M{}, fx::tsit5{}, in.pr, poisson_lik, std::span<const fx::series_data<double>>(data),
                          fx::priors<>{}, B, in.xs(), in.ps(), out.buffers());
  });
  INFO(e.what());
  CHECK(e.series() == "cases");
  CHECK(e.index() == 1);
  CHECK_THAT(std::string(e.what()), ContainsSubstring("censoring kind 9 is not one of none (0), left (1), right (2)"));
  CHECK(out.untouched());

  SECTION("just past interval") {
    counts[1] = fx::observation<double>{fx::censoring(4), 3.0, 0.0};
    const auto four = data_error_of([&] {
      fx::host::log_density(M{}, fx::tsit5{}, in.pr, poisson_lik, std::span<const fx::series_data<double>>(data),
                            fx::priors<>{}, B, in.xs(), in.ps(), false);
    });
    CHECK(four.index() == 1);
    CHECK_THAT(std::string(four.what()), ContainsSubstring("censoring kind 4"));
  }
  SECTION("a missing value is not read, whatever its kind") {
    const std::vector<unsigned char> mask = {1, 0, 1, 1};
    data[0].mask = mask;
    const auto r = fx::host::log_density(M{}, fx::tsit5{}, in.pr, poisson_lik,
                                         std::span<const fx::series_data<double>>(data), fx::priors<>{}, B, in.xs(),
                                         in.ps(), false);
    for (std::size_t b = 0; b < B; ++b) CHECK(std::isfinite(r.value[b]));
  }
}

TEST_CASE("series values or masks or trials given as a null pointer with a length are refused",
          "[infer][bad_inputs][null]") {
  const relax_inputs in;
  outputs out;
  const auto refuse = [&](const auto& lik, const std::vector<fx::series_data<double>>& data) {
    return data_error_of([&] {
      fx::host::log_density(M{}, fx::tsit5{}, in.pr, lik, std::span(data), fx::priors<>{}, B, in.xs(), in.ps(),
                            out.buffers());
    });
  };
  const std::span<const fx::observation<double>> null_obs(static_cast<const fx::observation<double>*>(nullptr), 4);
  SECTION("values") {
    const auto e = refuse(normal_lik, {{.values = null_obs}});
    CHECK(e.series() == "level");
    CHECK(e.index() == fx::data_error::no_index);
    CHECK_THAT(std::string(e.what()), ContainsSubstring("the values are a null pointer with a length of 4"));
  }
  SECTION("mask") {
    const unsigned char* null_mask = nullptr;
    const auto e = refuse(normal_lik, {{.values = level_obs, .mask = std::span(null_mask, 4)}});
    CHECK_THAT(std::string(e.what()), ContainsSubstring("the mask entries are a null pointer with a length of 4"));
  }
  SECTION("trials") {
    const fx::likelihood<fx::series<fx::binomial>> lik{fx::series<fx::binomial>{.name = "positives", .observable = 0}};
    const std::vector<fx::observation<double>> positives = {
        fx::observation<double>::exact(1), fx::observation<double>::exact(0), fx::observation<double>::exact(1),
        fx::observation<double>::exact(0)};
    const auto e = refuse(lik, {{.values = positives, .trials = std::span(null_values, 4)}});
    CHECK(e.series() == "positives");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("the trials are a null pointer with a length of 4"));
  }
  CHECK(out.untouched());
}

TEST_CASE("the series checks of data_check.hpp refuse a null pointer with a length", "[infer][bad_inputs][null]") {
  const std::vector<double> tested = {10, 10, 10};
  const auto values = data_error_of(
      [&] { fx::check_observations("cases", std::span(null_values, 3), fx::data_kind::count); });
  CHECK(values.series() == "cases");
  CHECK_THAT(std::string(values.what()), ContainsSubstring("the values are a null pointer with a length of 3"));
  const auto successes = data_error_of([&] {
    fx::check_binomial_observations("positives", std::span(null_values, 3), std::span(tested.data(), 3));
  });
  CHECK_THAT(std::string(successes.what()), ContainsSubstring("the successes are a null pointer"));
  const auto trials = data_error_of([&] {
    fx::check_binomial_observations("positives", std::span(tested.data(), 3), std::span(null_values, 3));
  });
  CHECK_THAT(std::string(trials.what()), ContainsSubstring("the trials are a null pointer"));
}

TEST_CASE("log_density refuses broadcast batches too large for its result with a layout_error naming the block",
          "[infer][bad_inputs][huge]") {
  const relax_inputs in;
  const std::vector<fx::series_data<double>> data = {{.values = level_obs}};
  const std::vector<double> x1 = {1.0}, p1 = {0.8, 0.5, 0.3};
  constexpr std::size_t ptrdiff_max = std::size_t(std::numeric_limits<std::ptrdiff_t>::max());
  const auto run = [&](std::size_t count, bool gradient) {
    return layout_error_of([&] {
      fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), fx::priors<>{}, count,
                            fx::broadcast(x1), fx::broadcast(p1), gradient);
    });
  };
  SECTION("values: SIZE_MAX / 4 + 1 (the gradient's 4 columns wrap around to 0)") {
    const std::size_t count = std::numeric_limits<std::size_t>::max() / columns + 1;
    const auto e = run(count, true);
    INFO(e.what());
    CHECK(e.block() == "log-density");
    CHECK(e.expected() == ptrdiff_max / 8);
    CHECK(e.actual() == count);
    CHECK_THAT(std::string(e.what()), ContainsSubstring(std::to_string(count)));
  }
  SECTION("the gradient alone past PTRDIFF_MAX bytes") {
    const std::size_t count = ptrdiff_max / 8 / columns + 1;
    const auto e = run(count, true);
    INFO(e.what());
    CHECK(e.block() == "gradient");
    CHECK(e.expected() == count - 1);
    CHECK(e.actual() == count);
    CHECK_THAT(std::string(e.what()), ContainsSubstring(std::to_string(count) + " instance(s) of 4 element(s)"));
  }
  SECTION("value only: the statistics past PTRDIFF_MAX bytes while the values fit") {
    const std::size_t most = ptrdiff_max / sizeof(fx::solve_statistics);
    const auto e = run(most + 1, false);
    INFO(e.what());
    CHECK(e.block() == "statistics");
    CHECK(e.expected() == most);
    CHECK(e.actual() == most + 1);
  }
  SECTION("the discrete adjoint") {
    const std::size_t count = ptrdiff_max / 8 / columns + 1;
    const auto e = layout_error_of([&] {
      fx::host::log_density(M{}, fx::tsit5{}, in.pr, normal_lik, std::span(data), fx::priors<>{}, count,
                            fx::broadcast(x1), fx::broadcast(p1), fx::discrete_adjoint{});
    });
    CHECK(e.block() == "gradient");
    CHECK(e.actual() == count);
  }
}
