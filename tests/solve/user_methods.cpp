// Methods of the user's own through the protocols of solve/concepts.hpp:
//   - Bogacki-Shampine 3(2) (P. Bogacki and L. F. Shampine, "A 3(2) pair of
//     Runge-Kutta formulas", Appl. Math. Lett. 2 (1989) 321-325), first same
//     as last, with the cubic Hermite interpolant on y0, y1, f0 = k1 and
//     f1 = k4 as its continuous extension: an fx::explicit_tableau the
//     library does not ship. Oracle: the Prothero-Robinson closed form; its
//     measured fixed-step order (3) at the end of the span and at save times
//     between steps (the interpolant), and the adaptive run's error against
//     its tolerance.
//   - a copy of Rodas5P's tableau under another type: an
//     fx::rosenbrock_tableau integrates with the library's Rodas step
//     (stepper_of is specialized for every such tableau), bit for bit as
//     fx::rodas5p.
// And what each concept accepts and refuses, at compile time.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "support/stiff_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;

namespace {

struct bogacki_shampine {
  static constexpr int stages = 4;
  static constexpr int order = 3;
  static constexpr int error_order = 2;
  static constexpr bool first_same_as_last = true;
  static constexpr double c[stages] = {0.0, 0.5, 0.75, 1.0};
  static constexpr double a[stages][stages] = {{}, {0.5}, {0.0, 0.75}, {2.0 / 9, 1.0 / 3, 4.0 / 9}};
  static constexpr double b[stages] = {2.0 / 9, 1.0 / 3, 4.0 / 9, 0.0};
  // b minus the second-order weights {7/24, 1/4, 1/3, 1/8}.
  static constexpr double e[stages] = {2.0 / 9 - 7.0 / 24, 1.0 / 3 - 0.25, 4.0 / 9 - 1.0 / 3, -0.125};
  // y(theta) = y0 + h sum_i w_i(theta) k_i, the cubic Hermite interpolant:
  // w_i = theta^2 (3 - 2 theta) b_i, plus theta (theta - 1)^2 for k1 and
  // theta^2 (theta - 1) for k4.
  template <class T>
  static constexpr void dense_weights(T th, T* w) {
    const T s = th * th * (T(3) - T(2) * th);
    w[0] = s * T(b[0]) + th * (th - T(1)) * (th - T(1));
    w[1] = s * T(b[1]);
    w[2] = s * T(b[2]);
    w[3] = th * th * (th - T(1));
  }
};

struct rodas5p_copy : fx::rodas5p {};  // the same tableau, another type

static_assert(fx::explicit_tableau<bogacki_shampine> && fx::ode_method<bogacki_shampine>);
static_assert(!fx::stiff_method<bogacki_shampine>);
static_assert(fx::explicit_tableau<fx::tsit5> && fx::explicit_tableau<fx::vern7>);
static_assert(fx::rosenbrock_tableau<rodas5p_copy> && fx::stiff_method<rodas5p_copy>);
static_assert(!fx::explicit_tableau<rodas5p_copy> && !fx::rosenbrock_tableau<fx::tsit5>);
static_assert(fx::stiff_method<fx::rosenbrock23> && !fx::rosenbrock_tableau<fx::rosenbrock23>);
static_assert(!fx::ode_method<double> && !fx::ode_method<fx::solve_statistics>);

using PR = fx::compiled<stiff_models::prothero_robinson, double>;
static_assert(fx::compiled_model<PR> && fx::ode_system<PR> && fx::ode_system<fx::sensitivity_system<PR>>);
static_assert(!fx::compiled_model<fx::sensitivity_system<PR>> && !fx::ode_system<int>);
static_assert(fx::adaptive_step<fx::explicit_rk_step<bogacki_shampine, PR>, PR>);
static_assert(fx::adaptive_step<fx::rodas_step<rodas5p_copy, PR>, PR>);

fx::ensemble_result<double> solve(auto method, const fx::ode_problem<double>& pr, double x0, double lambda) {
  const std::vector<double> x{x0}, p{lambda};
  return fx::host::integrate(PR{}, method, pr, 1, fx::soa(std::span<const double>(x)),
                             fx::soa(std::span<const double>(p)));
}

double closed_form(double t, double x0, double lambda) { return std::sin(t) + x0 * std::exp(lambda * t); }

}  // namespace

TEST_CASE("a user's explicit tableau (Bogacki-Shampine 3(2)) converges at its order, between steps too") {
  const double x0 = 1.5, lambda = -1.0;
  // Save times inside steps of every size below (none is a multiple of 0.05).
  const std::vector<double> ts = {0.33, 1.17, 1.91};
  const double steps[] = {0.1, 0.05, 0.025};
  double end_err[3], save_err[3];
  for (int s = 0; s < 3; ++s) {
    const fx::ode_problem<double> pr{
        .t0 = 0, .t1 = 2, .save_times = ts, .initial_step = steps[s], .adaptive = false};
    const auto r = solve(bogacki_shampine{}, pr, x0, lambda);
    REQUIRE(r.status[0] == fx::solve_status::success);
    end_err[s] = std::abs(r.final_value(0, 0) - closed_form(2.0, x0, lambda));
    save_err[s] = 0;
    for (std::size_t k = 0; k < ts.size(); ++k)
      save_err[s] = std::max(save_err[s], std::abs(r.saved(k, 0, 0) - closed_form(ts[k], x0, lambda)));
    UNSCOPED_INFO("h " << steps[s] << ": end error " << end_err[s] << ", save-time error " << save_err[s]);
  }
  const double end_order = std::log2(end_err[0] / end_err[2]) / 2;
  const double save_order = std::log2(save_err[0] / save_err[2]) / 2;
  CHECK(end_order > 2.8);
  CHECK(end_order < 3.3);
  CHECK(save_order > 2.8);
  CHECK(save_order < 4.3);  // the interpolant's own error is O(h^4)
}

TEST_CASE("a user's explicit tableau follows its tolerance adaptively") {
  // Global error of the propagated third-order solution under a second-order
  // estimate: steps go as tol^(1/3), the error as h^3, so as tol itself.
  const double x0 = 0.5, lambda = -3.0;
  const std::vector<double> ts = {0.1, 0.7, 2.5, 4.0};
  const auto max_error = [&](double rtol, std::size_t& steps) {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .save_times = ts, .rtol = rtol, .atol = rtol / 100};
    const auto r = solve(bogacki_shampine{}, pr, x0, lambda);
    REQUIRE(r.status[0] == fx::solve_status::success);
    steps = std::size_t(r.stats[0].accepted);
    double e = 0;
    for (std::size_t k = 0; k < ts.size(); ++k)
      e = std::max(e, std::abs(r.saved(k, 0, 0) - closed_form(ts[k], x0, lambda)));
    UNSCOPED_INFO("rtol " << rtol << ": " << steps << " steps, largest error " << e);
    return e;
  };
  std::size_t coarse_steps = 0, fine_steps = 0;
  const double coarse = max_error(1e-6, coarse_steps), fine = max_error(1e-8, fine_steps);
  CHECK(coarse < 100 * 1e-6);
  CHECK(fine < 100 * 1e-8);
  CHECK(fine < coarse / 20);
  // 100 times the accuracy for about 100^(1/3) = 4.6 times the steps.
  CHECK(fine_steps > 3 * coarse_steps);
  CHECK(fine_steps < 7 * coarse_steps);
}

TEST_CASE("a user's Rodas-form tableau runs the library's Rodas step, bit for bit as fx::rodas5p") {
  const double x0 = 0.5, lambda = -1e5;
  const std::vector<double> ts = {1e-4, 0.5, 2.0};
  const fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 2, .save_times = ts, .rtol = 1e-7, .atol = 1e-9, .step_to_save_times = true};
  const auto mine = solve(rodas5p_copy{}, pr, x0, lambda);
  const auto lib = solve(fx::rodas5p{}, pr, x0, lambda);
  REQUIRE(mine.status[0] == fx::solve_status::success);
  CHECK(mine.stats[0].accepted == lib.stats[0].accepted);
  CHECK(mine.final_value(0, 0) == lib.final_value(0, 0));
  for (std::size_t k = 0; k < ts.size(); ++k) {
    CHECK(mine.saved(k, 0, 0) == lib.saved(k, 0, 0));
    CHECK_THAT(mine.saved(k, 0, 0), WithinAbs(closed_form(ts[k], x0, lambda), 1e-6));
  }
}
