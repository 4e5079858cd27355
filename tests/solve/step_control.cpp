// The step control of one trajectory (solve/step_control.hpp), the one the
// adaptive driver and every host lane keep, decision by decision with
// made-up errors: the step budget, the smallest step (step_too_small, or
// non_finite after a non-finite trial), a step cut to end on its target,
// acceptance with step_factor's growth, rejection, no growth right after a
// rejection, a non-finite trial retried at a fifth of the step (a fixed-step
// integration stops instead), and a step cut short to land on a save time
// leaving the next one as it was. The integrations that use it are checked
// in explicit.cpp, stiff.cpp and lanes.cpp.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/solve/step_control.hpp>

#include <limits>

namespace fx = fluxion;

namespace {

struct pair54 {  // a step's constants, as fx::explicit_rk_step<fx::tsit5, M> has them
  static constexpr int error_order = 4;
  static constexpr double max_growth = 10.0;
};
constexpr int N = 3;  // components of the error norm
constexpr double eps = std::numeric_limits<double>::epsilon();

// One trajectory's step control with its options, statistics and status;
// t_new: where the last accepted step ended (judge's accept records it and
// says go_on).
struct trajectory {
  fx::ode_options<double> o;
  fx::detail::step_control<double> c{};
  fx::solve_statistics st{};
  fx::solve_status why = fx::solve_status::success;
  double t_new = -1;

  trajectory(const fx::ode_options<double>& options, double h) : o(options) { c.h = h; }
  bool ready(double t, double target) { return c.ready(o, st, t, target, why); }
  bool judge(double t, double err, bool go_on = true) {
    return c.judge<pair54, N>(o, t, err, st, why, [&](double end) {
      t_new = end;
      return go_on;
    });
  }
};

}  // namespace

TEST_CASE("before an attempt: the step budget, the smallest step, a step cut to its target") {
  trajectory tr({.t0 = 0, .t1 = 1, .max_steps = 3}, 0.25);
  REQUIRE(tr.ready(0.0, 1.0));
  CHECK_FALSE(tr.c.last);
  CHECK(tr.c.h == 0.25);

  // Beyond the target: cut to end on it, the step before the cut kept.
  tr.c.h = 0.3;
  REQUIRE(tr.ready(0.8, 1.0));
  CHECK(tr.c.last);
  CHECK(tr.c.h == 1.0 - 0.8);
  CHECK(tr.c.proposed == 0.3);
  CHECK(tr.c.target == 1.0);
  // Short of it by less than a rounding error of the span: cut too.
  tr.c.h = 0.5 - 4 * eps;
  REQUIRE(tr.ready(0.5, 1.0));
  CHECK(tr.c.last);
  CHECK(tr.c.h == 0.5);

  // The budget counts accepted and rejected steps.
  tr.st.accepted = 2;
  tr.st.rejected = 1;
  tr.c.h = 0.1;
  CHECK_FALSE(tr.ready(0.0, 1.0));
  CHECK(tr.why == fx::solve_status::max_steps);

  // 16 eps |t| or less: too small, or not finite after a non-finite trial.
  tr.st = {};
  tr.c.h = 16 * eps * 2.0;
  CHECK_FALSE(tr.ready(2.0, 3.0));
  CHECK(tr.why == fx::solve_status::step_too_small);
  tr.c.non_finite_last = true;
  CHECK_FALSE(tr.ready(2.0, 3.0));
  CHECK(tr.why == fx::solve_status::non_finite);
}

TEST_CASE("after an attempt: accepted, rejected, not finite") {
  trajectory tr({.t0 = 0, .t1 = 10}, 0.5);
  REQUIRE(tr.ready(1.0, 10.0));

  // err = 0: accepted, the next step grown by the method's limit.
  CHECK(tr.judge(1.0, 0.0));
  CHECK(tr.t_new == 1.5);
  CHECK(tr.st.accepted == 1);
  CHECK(tr.c.h == 0.5 * 10.0);

  // err = 2 (N err^2 = 4 N): rejected, the step shrunk by step_factor.
  REQUIRE(tr.ready(1.5, 10.0));
  tr.t_new = -1;
  CHECK(tr.judge(1.5, 4.0 * N));
  CHECK(tr.t_new == -1);
  CHECK(tr.st.rejected == 1);
  const double shrink = fx::detail::step_factor<pair54, N>(4.0 * N);
  CHECK(shrink < 1);
  CHECK(tr.c.h == 5.0 * shrink);

  // Accepted right after a rejection: no growth, however small the error.
  REQUIRE(tr.ready(1.5, 10.0));
  const double h = tr.c.h;
  CHECK(tr.judge(1.5, 1e-6));
  CHECK(tr.t_new == 1.5 + h);
  CHECK(tr.c.h == h);
  // and growth again after that.
  REQUIRE(tr.ready(tr.t_new, 10.0));
  CHECK(tr.judge(tr.t_new, 1e-6));
  CHECK(tr.c.h == h * fx::detail::step_factor<pair54, N>(1e-6));

  // Not finite: rejected at a fifth of the step.
  REQUIRE(tr.ready(tr.t_new, 10.0));
  const double before = tr.c.h;
  CHECK(tr.judge(tr.t_new, std::numeric_limits<double>::quiet_NaN()));
  CHECK(tr.c.h == before * 0.2);
  CHECK(tr.st.rejected == 2);
  CHECK(tr.c.non_finite_last);
  CHECK(tr.c.rejected_last);

  // accept saying the trajectory ends (the host lanes at t1): judge stops.
  REQUIRE(tr.ready(tr.t_new, 10.0));
  CHECK_FALSE(tr.judge(tr.t_new, 0.0, false));
  CHECK(tr.why == fx::solve_status::success);
}

TEST_CASE("a fixed-step integration accepts every finite trial and stops at a non-finite one") {
  trajectory tr({.t0 = 0, .t1 = 1, .initial_step = 0.125, .adaptive = false}, 0.125);
  REQUIRE(tr.ready(0.0, 1.0));
  CHECK(tr.judge(0.0, 1e6));
  CHECK(tr.t_new == 0.125);
  CHECK(tr.c.h == 0.125);
  REQUIRE(tr.ready(0.125, 1.0));
  CHECK_FALSE(tr.judge(0.125, std::numeric_limits<double>::infinity()));
  CHECK(tr.why == fx::solve_status::non_finite);
  CHECK(tr.st.accepted == 1);
  CHECK(tr.st.rejected == 0);
}

TEST_CASE("a step cut short to land on a save time does not shrink the next one") {
  trajectory tr({.t0 = 0, .t1 = 10}, 1.0);
  REQUIRE(tr.ready(0.0, 0.25));  // the target a save time at 0.25
  REQUIRE(tr.c.last);
  const double err = 0.5 * N;  // factor 0.9 * 0.5^(-1/10) < 1: the cut step would shrink
  const double factor = fx::detail::step_factor<pair54, N>(err);
  REQUIRE(factor * 0.25 < 1.0);
  CHECK(tr.judge(0.0, err));
  CHECK(tr.t_new == 0.25);
  CHECK(tr.c.h == 1.0);  // the step proposed before the cut
  // Cut to end on t1 instead: the factor applies.
  REQUIRE(tr.ready(9.5, 10.0));
  REQUIRE(tr.c.last);
  CHECK(tr.judge(9.5, err));
  CHECK(tr.t_new == 10.0);
  CHECK(tr.c.h == 0.5 * factor);
}
