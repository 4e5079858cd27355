// Bad inputs to the solve layer refused with an error that says what is
// wrong, in numbers that agree with its text (issue 38, item 0):
//   - broadcast batches too large for the result the call allocates
//     (fx::host::integrate, fx::host::integrate_sensitivities): a
//     layout_error naming the block and the count, not a wrapped size that
//     writes outside its vector, nor std::bad_alloc or std::length_error;
//   - save_times and atol_per_state given as a null pointer with a length;
//   - a NaN save time, negative strides, strides past the address space, an
//     empty or null input buffer: the message and its expected/actual agree.
// Expectations are written out by hand: the limit is PTRDIFF_MAX bytes, so
// the most trajectories of k doubles a result holds is PTRDIFF_MAX / 8 / k.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/solve/sensitivity.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "support/closed_form_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;

namespace {

// y' = c - k y: one state, two parameters.
using closed_form_models::relax;
using R = fx::compiled<relax, double>;

// Three states, one parameter: the sensitivity system has 3 (1 + 4) = 15
// states, and 15 (SIZE_MAX / 15 + 1) wraps around to 14.
constexpr fx::state<"a"> a;
constexpr fx::state<"b"> b;
constexpr fx::state<"e"> e;
constexpr fx::param<"r"> r;
constexpr auto chain = fx::model(fx::states(a, b, e), fx::params(r), fx::d(a) = -r * a, fx::d(b) = r * a - r * b,
                                 fx::d(e) = r * b);
using C3 = fx::compiled<chain, double>;

constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
constexpr std::size_t ptrdiff_max = std::size_t(std::numeric_limits<std::ptrdiff_t>::max());
const double* const null_values = nullptr;  // std::span(null_values, k): a null pointer with a length

template <class F>
fx::layout_error layout_error_of(const F& f) {
  try {
    f();
  } catch (const fx::layout_error& err) {
    return err;
  } catch (const std::exception& other) {
    FAIL("expected fluxion::layout_error, got " << other.what());
  }
  FAIL("expected fluxion::layout_error, nothing was thrown");
  return fx::layout_error("", "", 0, 0);
}

template <class F>
std::string problem_error_of(const F& f) {
  try {
    f();
  } catch (const fx::problem_error& err) {
    return err.what();
  } catch (const std::exception& other) {
    FAIL("expected fluxion::problem_error, got " << other.what());
  }
  FAIL("expected fluxion::problem_error, nothing was thrown");
  return {};
}

}  // namespace

TEST_CASE("integrate_sensitivities refuses a broadcast batch whose staging size wraps around", "[solve][bad_inputs]") {
  using S = fx::sensitivity_system<C3>;
  static_assert(S::n_states == 15);
  const std::vector<double> x0 = {1.0, 0.0, 0.0}, p = {0.5};
  const std::size_t B = size_max / S::n_states + 1;
  REQUIRE(S::n_states * B == 14);  // the product the staging vector was sized with
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1};
  const auto err = layout_error_of([&] {
    fx::host::integrate_sensitivities(C3{}, fx::tsit5{}, pr, B, fx::broadcast(x0), fx::broadcast(p));
  });
  INFO(err.what());
  CHECK(err.block() == "final state");
  CHECK(err.actual() == B);
  CHECK(err.expected() == ptrdiff_max / 8 / 15);
  CHECK_THAT(std::string(err.what()), ContainsSubstring(std::to_string(B) + " instance(s) of 15 element(s)"));

  SECTION("with save times, the saved states are named first") {
    const std::vector<double> ts = {0.25, 0.5};
    const fx::ode_problem<double> with_saves{.t0 = 0, .t1 = 1, .save_times = ts};
    const auto saved = layout_error_of([&] {
      fx::host::integrate_sensitivities(C3{}, fx::tsit5{}, with_saves, B, fx::broadcast(x0), fx::broadcast(p));
    });
    CHECK(saved.block() == "saved states");
    CHECK(saved.expected() == ptrdiff_max / 8 / 30);
    CHECK(saved.actual() == B);
  }
  SECTION("one state: the augmented product wraps to 0") {
    using S1 = fx::sensitivity_system<R>;
    const std::vector<double> x1 = {1.0}, p1 = {0.5, 0.2};
    const std::size_t B1 = size_max / S1::n_states + 1;
    REQUIRE(S1::n_states * B1 == 0);
    const auto one = layout_error_of([&] {
      fx::host::integrate_sensitivities(R{}, fx::tsit5{}, pr, B1, fx::broadcast(x1), fx::broadcast(p1));
    });
    CHECK(one.block() == "final state");
    CHECK(one.actual() == B1);
  }
}

TEST_CASE(
    "integrate refuses broadcast batches too large for its result with a layout_error naming the block and the count",
    "[solve][bad_inputs]") {
  const std::vector<double> x0 = {1.0}, p = {0.5, 0.2};
  const std::vector<double> ts = {0.25, 0.5, 0.75};
  const auto run = [&](const fx::ode_problem<double>& pr, std::size_t B) {
    return layout_error_of(
        [&] { fx::host::integrate(R{}, fx::tsit5{}, pr, B, fx::broadcast(x0), fx::broadcast(p)); });
  };
  SECTION("3 save times x 1 state x (SIZE_MAX / 3 + 1) wraps around to 2") {
    const std::size_t B = size_max / 3 + 1;
    const auto err = run({.t0 = 0, .t1 = 1, .save_times = ts}, B);
    INFO(err.what());
    CHECK(err.block() == "saved states");
    CHECK(err.expected() == ptrdiff_max / 8 / 3);
    CHECK(err.actual() == B);
    CHECK_THAT(std::string(err.what()), ContainsSubstring(std::to_string(B) + " instance(s) of 3 x 1 element(s)"));
  }
  SECTION("final states past PTRDIFF_MAX bytes (no product wraps)") {
    const std::size_t B = std::size_t(1) << 61;
    const auto err = run({.t0 = 0, .t1 = 1}, B);
    INFO(err.what());
    CHECK(err.block() == "final state");
    CHECK(err.expected() == ptrdiff_max / 8);
    CHECK(err.actual() == B);
    CHECK_THAT(std::string(err.what()), ContainsSubstring(std::to_string(B)));
  }
  SECTION("statistics past PTRDIFF_MAX bytes while the states fit") {
    const std::size_t most = ptrdiff_max / sizeof(fx::solve_statistics);
    const auto err = run({.t0 = 0, .t1 = 1}, most + 1);
    INFO(err.what());
    CHECK(err.block() == "statistics");
    CHECK(err.expected() == most);
    CHECK(err.actual() == most + 1);
  }
}

TEST_CASE("save_times and atol_per_state given as a null pointer with a length are refused", "[solve][bad_inputs]") {
  const std::vector<double> x0 = {1.0, 2.0}, p = {0.5, 0.2, 0.5, 0.2};
  SECTION("save_times") {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = std::span<const double>(null_values, 3)};
    const std::string what =
        problem_error_of([&] { fx::host::integrate(R{}, fx::tsit5{}, pr, 2, fx::soa(x0), fx::aos(p)); });
    CHECK_THAT(what, ContainsSubstring("save_times is a null pointer with a length of 3"));
  }
  SECTION("atol_per_state") {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .atol_per_state = std::span<const double>(null_values, 1)};
    const std::string what =
        problem_error_of([&] { fx::host::integrate(R{}, fx::tsit5{}, pr, 2, fx::soa(x0), fx::aos(p)); });
    CHECK_THAT(what, ContainsSubstring("atol_per_state is a null pointer with a length of 1"));
    const std::string sens = problem_error_of(
        [&] { fx::host::integrate_sensitivities(R{}, fx::tsit5{}, pr, 2, fx::soa(x0), fx::aos(p)); });
    CHECK_THAT(sens, ContainsSubstring("atol_per_state"));
  }
}

TEST_CASE("refusals say what is wrong in numbers that agree with their text", "[solve][bad_inputs]") {
  const std::vector<double> x0 = {1.0, 2.0, 3.0}, p = {0.5, 0.2, 0.5, 0.2, 0.5, 0.2};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1};
  const auto refuse_x0 = [&](fx::batch<const double> x) {
    return layout_error_of([&] { fx::host::integrate(R{}, fx::tsit5{}, pr, 3, x, fx::aos(p)); });
  };
  SECTION("a NaN save time is not a number, not outside the span") {
    const std::vector<double> ts = {0.25, std::nan(""), 0.75};
    const fx::ode_problem<double> bad{.t0 = 0, .t1 = 1, .save_times = ts};
    const std::string what =
        problem_error_of([&] { fx::host::integrate(R{}, fx::tsit5{}, bad, 3, fx::soa(x0), fx::aos(p)); });
    CHECK_THAT(what, ContainsSubstring("save time 1 is not a number"));
    CHECK_THAT(what, !ContainsSubstring("outside the span"));
  }
  SECTION("a negative element stride") {
    const auto err = refuse_x0(fx::strided(std::span<const double>(x0), -1, 1));
    INFO(err.what());
    CHECK(err.block() == "initial state");
    CHECK_THAT(std::string(err.what()),
               ContainsSubstring("element stride must be at least 1, got -1 (expected 1, actual -1)"));
  }
  SECTION("a negative instance stride") {
    const auto err = refuse_x0(fx::strided(std::span<const double>(x0), 1, -3));
    INFO(err.what());
    CHECK_THAT(std::string(err.what()),
               ContainsSubstring("instance stride must not be negative, got -3 (expected 0, actual -3)"));
  }
  SECTION("strides spanning more than PTRDIFF_MAX bytes") {
    // 3 instances PTRDIFF_MAX values apart span 2 PTRDIFF_MAX + 1 = SIZE_MAX values.
    const auto err = refuse_x0(fx::strided(std::span<const double>(x0), 1, std::numeric_limits<std::ptrdiff_t>::max()));
    INFO(err.what());
    CHECK(err.expected() == ptrdiff_max / 8);  // the most doubles PTRDIFF_MAX bytes hold
    CHECK(err.actual() == size_max);           // the values the strides span
    CHECK_THAT(std::string(err.what()),
               ContainsSubstring(std::to_string(size_max) + " elements span more than PTRDIFF_MAX bytes"));
  }
  SECTION("an empty buffer is too small, not null") {
    const auto err = refuse_x0(fx::soa(std::span<const double>()));
    INFO(err.what());
    CHECK_THAT(std::string(err.what()), ContainsSubstring("buffer too small"));
    CHECK_THAT(std::string(err.what()), !ContainsSubstring("null"));
    CHECK(err.expected() == 3);
    CHECK(err.actual() == 0);
  }
  SECTION("a null pointer with a length is a null buffer") {
    const auto err = refuse_x0(fx::soa(std::span<const double>(null_values, 3)));
    INFO(err.what());
    CHECK_THAT(std::string(err.what()), ContainsSubstring("null buffer"));
    CHECK_THAT(std::string(err.what()), ContainsSubstring("length is 3"));
    CHECK(err.expected() == 3);
    CHECK(err.actual() == 0);
  }
}
