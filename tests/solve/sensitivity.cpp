// Forward sensitivities (fx::sensitivity_system, fx::host::integrate_sensitivities)
// against independent oracles: the closed-form derivatives of y' = c - k y
// with respect to k, c and y0; and, for a two-patch SIR with a contact
// matrix and aliases, complex-step derivatives of a hand-written fixed-step
// RK4 in plain C++ (no fluxion code). Also: the augmented system's states
// are the plain integration's states; float; Vern7; per-state tolerances;
// bad buffers refused.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/solve/sensitivity.hpp>

#include "support/closed_form_models.hpp"
#include "support/two_patch_sir.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// y' = c - k y:  y = c/k + (y0 - c/k) e^{-kt}
using closed_form_models::relax;

struct relax_exact {
  double k, c, y0;
  double value(double t) const { return c / k + (y0 - c / k) * std::exp(-k * t); }
  double d_k(double t) const {
    const double e = std::exp(-k * t);
    return -c / (k * k) + c / (k * k) * e - t * (y0 - c / k) * e;
  }
  double d_c(double t) const { return (1 - std::exp(-k * t)) / k; }
  double d_y0(double t) const { return std::exp(-k * t); }
};

// Two patches, SIR with a contact matrix.
constexpr int P = 2;
using patch = fx::index<"patch", P>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::state<"S", patch> S;
constexpr fx::state<"I", patch> I;
constexpr fx::state<"R", patch> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"gamma"> gam;
constexpr auto N = fx::alias<"N">(S(p) + I(p) + R(p));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * I(q)) / N(p));
constexpr auto sir2 = fx::model(fx::states(S, I, R), fx::params(beta, C, gam),  //
                                fx::d(S(p)) = -lam(p) * S(p),                   //
                                fx::d(I(p)) = lam(p) * S(p) - gam * I(p),       //
                                fx::d(R(p)) = gam * I(p));

}  // namespace

TEST_CASE("sensitivities of y' = c - k y match their closed forms in k, c and y0") {
  using M = fx::compiled<relax, double>;
  using Sys = fx::sensitivity_system<M>;
  STATIC_REQUIRE(Sys::columns == 3);
  STATIC_REQUIRE(Sys::n_states == 4);
  // Compiled models integrate in SIMD lanes; the augmented system one at a time.
  STATIC_REQUIRE(fx::lane_evaluable<M>);
  STATIC_REQUIRE(!fx::lane_evaluable<Sys>);
  constexpr std::size_t B = 16;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.2, 3.0);
  std::vector<double> x0(B), th(2 * B);
  for (auto& e : x0) e = u(rng);
  for (auto& e : th) e = u(rng);
  const std::vector<double> ts = {0.0, 0.25, 1.0, 1.7, 4.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .save_times = ts, .rtol = 1e-11, .atol = 1e-13};
  const auto r = fx::host::integrate_sensitivities(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const double>(x0)),
                                                   fx::soa(std::span<const double>(th)));
  REQUIRE(r.all_succeeded());
  for (std::size_t b = 0; b < B; ++b) {
    const relax_exact e{th[b], th[B + b], x0[b]};
    for (std::size_t s = 0; s < ts.size(); ++s) {
      CHECK_THAT(r.state(s, 0, b), WithinAbs(e.value(ts[s]), 1e-9));
      CHECK_THAT(r.sensitivity(s, 0, 0, b), WithinAbs(e.d_k(ts[s]), 1e-9));
      CHECK_THAT(r.sensitivity(s, 0, 1, b), WithinAbs(e.d_c(ts[s]), 1e-9));
      CHECK_THAT(r.sensitivity(s, 0, 2, b), WithinAbs(e.d_y0(ts[s]), 1e-9));
    }
  }
}

TEST_CASE("sensitivities of a two-patch SIR match complex-step derivatives of a hand-written RK4") {
  using M = fx::compiled<sir2, double>;
  using Sys = fx::sensitivity_system<M>;
  STATIC_REQUIRE(M::n_states == 6);
  STATIC_REQUIRE(M::n_params == 7);
  STATIC_REQUIRE(Sys::columns == 13);
  constexpr std::size_t B = 4;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x0(6 * B), th(7 * B);
  for (std::size_t b = 0; b < B; ++b) {
    const double s0 = 900 + 200 * u(rng), s1 = 400 + 100 * u(rng);
    const double xb[6] = {s0, s1, 1 + 10 * u(rng), 5 * u(rng), 0, 20 * u(rng)};
    const double tb[7] = {0.3 + 0.4 * u(rng), 0.2 + 0.4 * u(rng), 1.0, 0.1 + 0.2 * u(rng), 0.05 + 0.2 * u(rng),
                          1.0,                0.1 + 0.1 * u(rng)};
    for (int i = 0; i < 6; ++i) x0[std::size_t(i) * B + b] = xb[i];
    for (int j = 0; j < 7; ++j) th[std::size_t(j) * B + b] = tb[j];
  }
  const std::vector<double> ts = {0.5, 3.0, 10.0, 17.5, 30.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 30, .save_times = ts, .rtol = 1e-11, .atol = 1e-10};
  const auto r = fx::host::integrate_sensitivities(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const double>(x0)),
                                                   fx::soa(std::span<const double>(th)));
  REQUIRE(r.all_succeeded());

  using Z = std::complex<double>;
  const double hcs = 1e-30;  // complex step
  std::size_t checked = 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::array<Z, 6> xb;
    Z tb[7];
    for (int i = 0; i < 6; ++i) xb[i] = x0[std::size_t(i) * B + b];
    for (int j = 0; j < 7; ++j) tb[j] = th[std::size_t(j) * B + b];
    // Column j: the parameters 0..6, then the initial states 0..5.
    for (int j = 0; j < 13; ++j) {
      std::array<Z, 6> xs = xb;
      Z ths[7];
      for (int l = 0; l < 7; ++l) ths[l] = tb[l];
      if (j < 7) ths[j] += Z(0, hcs);
      else xs[j - 7] += Z(0, hcs);
      const auto traj = two_patch_sir::rk4<Z>(xs, ths, ts, 200);
      for (std::size_t s = 0; s < ts.size(); ++s)
        for (int i = 0; i < 6; ++i) {
          const double expected = traj[s][i].imag() / hcs;
          const double scale = 1e-7 * (1 + std::abs(expected));
          CHECK_THAT(r.sensitivity(s, std::size_t(i), std::size_t(j), b), WithinAbs(expected, scale));
          if (j == 0) CHECK_THAT(r.state(s, std::size_t(i), b), WithinRel(traj[s][i].real(), 1e-8));
          ++checked;
        }
    }
  }
  CHECK(checked == B * 13 * ts.size() * 6);
}

TEST_CASE("the augmented system's states are those of the plain integration; float, Vern7, per-state tolerances") {
  using M = fx::compiled<sir2, double>;
  constexpr std::size_t B = 3;
  std::vector<double> x0(6 * B), th(7 * B);
  for (std::size_t b = 0; b < B; ++b) {
    const double xb[6] = {990, 500, 10, 0, 0, 0};
    const double tb[7] = {0.5 + 0.1 * double(b), 0.4, 1.0, 0.1, 0.1, 1.0, 0.2};
    for (int i = 0; i < 6; ++i) x0[std::size_t(i) * B + b] = xb[i];
    for (int j = 0; j < 7; ++j) th[std::size_t(j) * B + b] = tb[j];
  }
  const std::vector<double> ts = {1.0, 5.0, 20.0};
  const std::vector<double> atol = {1e-8, 1e-8, 1e-9, 1e-9, 1e-8, 1e-8};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 20, .save_times = ts, .rtol = 1e-9, .atol_per_state = atol};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(th));
  const auto plain = fx::host::integrate(M{}, fx::vern7{}, pr, B, xs, ps);
  const auto sens = fx::host::integrate_sensitivities(M{}, fx::vern7{}, pr, B, xs, ps);
  REQUIRE(plain.all_succeeded());
  REQUIRE(sens.all_succeeded());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t s = 0; s < ts.size(); ++s)
      for (std::size_t i = 0; i < 6; ++i) CHECK_THAT(sens.state(s, i, b), WithinRel(plain.saved(s, i, b), 1e-7));
  // The error test sees the sensitivities too: at least as many steps.
  for (std::size_t b = 0; b < B; ++b) CHECK(sens.stats[b].accepted >= plain.stats[b].accepted);

  using F = fx::compiled<relax, float>;
  const std::vector<float> xf = {1.5f}, pf = {0.7f, 0.2f};
  const std::vector<float> tf = {2.0f};
  const fx::ode_problem<float> prf{.t0 = 0, .t1 = 2, .save_times = tf, .rtol = 1e-5f, .atol = 1e-6f};
  const auto rf = fx::host::integrate_sensitivities(F{}, fx::tsit5{}, prf, 1, fx::soa(std::span<const float>(xf)),
                                                    fx::soa(std::span<const float>(pf)));
  REQUIRE(rf.all_succeeded());
  const relax_exact e{0.7, 0.2, 1.5};
  CHECK_THAT(rf.sensitivity(0, 0, 0, 0), WithinAbs(e.d_k(2.0), 1e-4));
  CHECK_THAT(rf.sensitivity(0, 0, 1, 0), WithinAbs(e.d_c(2.0), 1e-4));
  CHECK_THAT(rf.sensitivity(0, 0, 2, 0), WithinAbs(e.d_y0(2.0), 1e-4));
}

TEST_CASE("integrate_sensitivities refuses bad problems and buffers before any work") {
  using M = fx::compiled<relax, double>;
  const std::vector<double> x0 = {1.0}, th = {0.5, 0.1}, short_atol = {1e-6, 1e-6};
  const fx::ode_problem<double> bad_span{.t0 = 1, .t1 = 0};
  CHECK_THROWS_AS(fx::host::integrate_sensitivities(M{}, fx::tsit5{}, bad_span, 1,
                                                    fx::soa(std::span<const double>(x0)),
                                                    fx::soa(std::span<const double>(th))),
                  fx::problem_error);
  const fx::ode_problem<double> bad_atol{.t0 = 0, .t1 = 1, .atol_per_state = short_atol};
  CHECK_THROWS_AS(fx::host::integrate_sensitivities(M{}, fx::tsit5{}, bad_atol, 1,
                                                    fx::soa(std::span<const double>(x0)),
                                                    fx::soa(std::span<const double>(th))),
                  fx::problem_error);
  const fx::ode_problem<double> ok{.t0 = 0, .t1 = 1};
  CHECK_THROWS_AS(fx::host::integrate_sensitivities(M{}, fx::tsit5{}, ok, 2, fx::soa(std::span<const double>(x0)),
                                                    fx::soa(std::span<const double>(th))),
                  fx::layout_error);
}
