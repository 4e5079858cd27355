// Stiff problems through the Rosenbrock methods (fx::rosenbrock23,
// fx::rodas5p) with the model's exact Jacobian and time derivative, on the
// host. Oracles: the Prothero-Robinson problem's closed form (stiff and
// non-autonomous, so the time derivative matters), the convergence orders
// measured with fixed steps (2 and 5; without the time derivative both
// would fall to 1), Robertson's conserved total and its published values at
// t = 40 and t = 1e11 (the IVP test set of Mazzia and Magherini), and Van der
// Pol with eps = 1e-6 (mu = 1000) at t = 2 against the same test set.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include "support/stiff_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using stiff_models::prothero_robinson;
using stiff_models::robertson;
using stiff_models::van_der_pol;

template <class M, class Method, class T = typename M::scalar>
fx::ensemble_result<T> solve(Method method, const fx::ode_problem<T>& pr, const std::vector<T>& x0,
                             const std::vector<T>& p) {
  return fx::host::integrate(M{}, method, pr, 1, fx::soa(std::span<const T>(x0)), fx::soa(std::span<const T>(p)));
}

template <class Method>
double fixed_step_order(Method method) {
  using M = fx::compiled<prothero_robinson, double>;
  const std::vector<double> x0 = {1.5}, p = {-1.0};
  const double steps[] = {0.2, 0.1, 0.05};
  double err[3];
  for (int s = 0; s < 3; ++s) {
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .initial_step = steps[s], .adaptive = false};
    const auto res = solve<M>(method, pr, x0, p);
    REQUIRE(res.status[0] == fx::solve_status::success);
    err[s] = std::abs(res.final_value(0, 0) - (std::sin(2.0) + 1.5 * std::exp(-2.0)));
    UNSCOPED_INFO("h " << steps[s] << ": error " << err[s]);
  }
  return std::log2(err[0] / err[2]) / 2;
}

}  // namespace

TEST_CASE("Prothero-Robinson, stiff and non-autonomous, follows its closed form") {
  using M = fx::compiled<prothero_robinson, double>;
  STATIC_REQUIRE(!M::autonomous);
  const std::vector<double> x0 = {0.5}, p = {-1e6};
  std::vector<double> ts = {1e-6, 1e-3, 0.5, 1.0, 3.0};
  // Rodas5P takes steps of about 0.3 here; between steps its interpolant
  // loses accuracy on so stiff a problem (about 1e-4 at rtol 1e-7), so the
  // save times are stepped onto. The step ends are accurate to tolerance.
  fx::ode_problem<double> pr{
      .t0 = 0, .t1 = 3, .save_times = ts, .rtol = 1e-7, .atol = 1e-9, .step_to_save_times = true};
  auto check = [&](const auto& res, double tol) {
    REQUIRE(res.status[0] == fx::solve_status::success);
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double want = std::sin(ts[s]) + 0.5 * std::exp(-1e6 * ts[s]);
      CHECK_THAT(res.saved(s, 0, 0), WithinAbs(want, tol));
    }
    // One Jacobian at the start and one after every accepted step but the last.
    CHECK(res.stats[0].jacobian_evaluations == res.stats[0].accepted);
    CHECK(res.stats[0].factorizations == res.stats[0].accepted + res.stats[0].rejected);
  };
  const auto r23 = solve<M>(fx::rosenbrock23{}, pr, x0, p);
  check(r23, 1e-5);
  const auto r5 = solve<M>(fx::rodas5p{}, pr, x0, p);
  check(r5, 1e-7);
  // An explicit method needs on the order of |lambda| t steps here.
  CHECK(r5.stats[0].accepted < 100);
  CHECK(r23.stats[0].accepted < 20000);
}

TEST_CASE("Rosenbrock23 converges with order 2 and Rodas5P with order 5, time derivative included") {
  const double o23 = fixed_step_order(fx::rosenbrock23{});
  const double o5 = fixed_step_order(fx::rodas5p{});
  UNSCOPED_INFO("observed orders: rosenbrock23 " << o23 << ", rodas5p " << o5);
  CHECK(o23 > 1.8);
  CHECK(o23 < 2.5);
  CHECK(o5 > 4.5);
  CHECK(o5 < 6.0);
}

TEST_CASE("dense output of the Rosenbrock methods between steps") {
  using M = fx::compiled<prothero_robinson, double>;
  const std::vector<double> x0 = {1.5}, p = {-1.0};  // y = sin t + 1.5 e^-t
  std::vector<double> ts;
  for (int s = 1; s < 40; ++s) ts.push_back(0.05 * s + 0.013);
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = 1e-8, .atol = 1e-10};
  const auto r5 = solve<M>(fx::rodas5p{}, pr, x0, p);
  const auto r23 = solve<M>(fx::rosenbrock23{}, pr, x0, p);
  REQUIRE(r5.all_succeeded());
  REQUIRE(r23.all_succeeded());
  CHECK(r5.stats[0].accepted < std::int32_t(ts.size()));  // save times do not cut the steps
  for (std::size_t s = 0; s < ts.size(); ++s) {
    const double want = std::sin(ts[s]) + 1.5 * std::exp(-ts[s]);
    CHECK_THAT(r5.saved(s, 0, 0), WithinAbs(want, 1e-6));
    CHECK_THAT(r23.saved(s, 0, 0), WithinAbs(want, 1e-5));
  }
}

TEST_CASE("Robertson: conserved total and the test set's values") {
  using M = fx::compiled<robertson, double>;
  STATIC_REQUIRE(M::autonomous);
  const std::vector<double> x0 = {1, 0, 0}, p = {0.04, 3e7, 1e4};
  const std::vector<double> ts = {40.0, 1e5};
  std::vector<double> atol = {1e-10, 1e-14, 1e-10};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e11, .save_times = ts, .rtol = 1e-8, .atol_per_state = atol};
  for (int method = 0; method < 2; ++method) {
    const auto res = method == 0 ? solve<M>(fx::rodas5p{}, pr, x0, p) : solve<M>(fx::rosenbrock23{}, pr, x0, p);
    INFO((method == 0 ? "rodas5p" : "rosenbrock23") << ", accepted steps " << res.stats[0].accepted);
    REQUIRE(res.status[0] == fx::solve_status::success);
    const double tol = method == 0 ? 1e-6 : 1e-4;
    // t = 40 (Hairer & Wanner II, IV.1; the test set's ROBER at 40)
    CHECK_THAT(res.saved(0, 0, 0), WithinRel(0.7158270687193685, tol));
    CHECK_THAT(res.saved(0, 1, 0), WithinRel(0.9185534764557412e-5, tol));
    CHECK_THAT(res.saved(0, 2, 0), WithinRel(0.2841637457458670, tol));
    // t = 1e11 (the test set's reference solution); y1 and y2 are far below
    // their absolute tolerances there, so they are compared absolutely.
    CHECK_THAT(res.final_value(0, 0), WithinAbs(0.2083340149701255e-7, method == 0 ? 1e-11 : 1e-9));
    CHECK_THAT(res.final_value(1, 0), WithinAbs(0.8333360770334713e-13, 1e-14));
    CHECK_THAT(res.final_value(2, 0), WithinRel(0.9999999791665050, tol));
    for (std::size_t s = 0; s < ts.size(); ++s)
      CHECK_THAT(res.saved(s, 0, 0) + res.saved(s, 1, 0) + res.saved(s, 2, 0), WithinAbs(1.0, 1e-12));
  }
}

TEST_CASE("Robertson in float") {
  using M = fx::compiled<robertson, float>;
  const std::vector<float> x0 = {1, 0, 0}, p = {0.04f, 3e7f, 1e4f};
  const std::vector<float> ts = {40.0f};
  fx::ode_problem<float> pr{.t0 = 0, .t1 = 1e5f, .save_times = ts, .rtol = 1e-4f, .atol = 1e-7f};
  for (int method = 0; method < 2; ++method) {
    const auto res = method == 0 ? solve<M>(fx::rodas5p{}, pr, x0, p) : solve<M>(fx::rosenbrock23{}, pr, x0, p);
    REQUIRE(res.status[0] == fx::solve_status::success);
    CHECK_THAT(double(res.saved(0, 0, 0)), WithinRel(0.7158270687193685, 2e-3));
    CHECK_THAT(double(res.saved(0, 2, 0)), WithinRel(0.2841637457458670, 5e-3));
  }
}

TEST_CASE("Van der Pol with eps = 1e-6 (mu = 1000) at t = 2") {
  using M = fx::compiled<van_der_pol, double>;
  const std::vector<double> x0 = {2, 0}, p = {1e-6};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .rtol = 1e-9, .atol = 1e-9};
  const auto r5 = solve<M>(fx::rodas5p{}, pr, x0, p);
  REQUIRE(r5.status[0] == fx::solve_status::success);
  INFO("rodas5p accepted " << r5.stats[0].accepted << ", rejected " << r5.stats[0].rejected);
  CHECK_THAT(r5.final_value(0, 0), WithinRel(0.1706167732170483e1, 1e-6));
  CHECK_THAT(r5.final_value(1, 0), WithinRel(-0.8928097010248125, 1e-5));
  fx::ode_problem<double> loose{.t0 = 0, .t1 = 2, .rtol = 1e-6, .atol = 1e-6};
  const auto r23 = solve<M>(fx::rosenbrock23{}, loose, x0, p);
  REQUIRE(r23.status[0] == fx::solve_status::success);
  CHECK_THAT(r23.final_value(0, 0), WithinRel(0.1706167732170483e1, 1e-3));
}
