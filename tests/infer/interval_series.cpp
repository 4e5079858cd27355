// Series over intervals (issue 39 item 1): an observable accumulated between
// consecutive save times, without a cumulative state in the model.
//
// Oracles:
//   - y' = c - k y has the closed form y(t) = c/k + (y0 - c/k) e^{-kt}, so the
//     count over (a, b] is c/k (b - a) + (y0 - c/k)(e^{-ka} - e^{-kb})/k; the
//     normal log-density of such counts is written out below over
//     std::complex, and its gradient in (k, c, y0) is taken by the complex
//     step (the sd is fixed: its column is zero);
//   - a two-patch SIR observed through weekly negative-binomial counts of new
//     infections: the same model written by hand with a cumulative state C'
//     = new infections, observed as differences of C between save times by
//     a plain C++ RK4 (support/two_patch_sir.hpp's right-hand side), with
//     the gradient by the complex step through that RK4.
// Forward sensitivities, the value alone, the discrete adjoint and a member
// per sensitivity column (the GPU's lane-per-column protocol on host
// threads) are each checked against them.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/infer/log_density_columns.hpp>

#include "log_density_fixtures.hpp"
#include "log_density_harness.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using log_density_fixtures::relax;

namespace {

using M = fx::compiled<relax, double>;
constexpr std::size_t columns = M::n_params + M::n_states;  // k, c, sd, y0
using cplx = std::complex<double>;

const std::vector<double> ts = {0.5, 1.0, 2.0, 3.5, 4.0};
const std::vector<fx::observation<double>> counts = {
    fx::observation<double>::exact(0.6), fx::observation<double>::exact(0.5), fx::observation<double>::exact(0.0),
    fx::observation<double>::exact(1.7), fx::observation<double>::exact(0.45)};
const std::vector<unsigned char> mask = {1, 1, 0, 1, 1};
constexpr double sd = 0.2;

fx::ode_problem<double> problem() { return {.t0 = 0, .t1 = 4.0, .save_times = ts, .rtol = 1e-11, .atol = 1e-12}; }

// The log-likelihood of the counts over (t_{s-1}, t_s] (t_{-1} = 0).
cplx closed_form(cplx kk, cplx cc, cplx y0) {
  cplx value = 0;
  double a = 0;
  for (std::size_t s = 0; s < ts.size(); ++s) {
    const double b = ts[s];
    const cplx count = cc / kk * (b - a) + (y0 - cc / kk) * (std::exp(-kk * a) - std::exp(-kk * b)) / kk;
    a = b;
    if (!mask[s]) continue;
    const cplx r = counts[s].value - count;
    value += -0.5 * r * r / (sd * sd) - std::log(sd) - 0.5 * std::log(2 * std::numbers::pi);
  }
  return value;
}
struct exact_result {
  double value;
  double grad[columns];
};
exact_result exact(double kk, double cc, double y0) {
  constexpr double h = 1e-30;
  exact_result e{closed_form(kk, cc, y0).real(), {}};
  e.grad[0] = closed_form(cplx(kk, h), cc, y0).imag() / h;
  e.grad[1] = closed_form(kk, cplx(cc, h), y0).imag() / h;
  e.grad[2] = 0;
  e.grad[3] = closed_form(kk, cc, cplx(y0, h)).imag() / h;
  return e;
}

const fx::likelihood relax_counts(
    fx::interval_series<fx::normal>{.name = "counts", .observable = 0, .parameters = {fx::fixed(sd)}});

struct inputs {
  static constexpr std::size_t B = 3;
  std::vector<double> x0 = {0.4, 1.3, 2.0};
  std::vector<double> th = {0.5, 1.2, 1.9, /* c */ 0.9, 0.3, 1.4, /* sd, unread */ 1, 1, 1};
};

void check(const fx::log_density_result<double>& r, const inputs& in, bool gradient) {
  for (std::size_t b = 0; b < inputs::B; ++b) {
    INFO("trajectory " << b);
    REQUIRE(r.status[b] == fx::solve_status::success);
    const exact_result e = exact(in.th[b], in.th[inputs::B + b], in.x0[b]);
    CHECK_THAT(r.value[b], WithinRel(e.value, 1e-9));
    if (!gradient) continue;
    REQUIRE(r.columns == columns);
    for (std::size_t j = 0; j < columns; ++j) {
      INFO("column " << j);
      CHECK_THAT(r.gradient(j, b), WithinAbs(e.grad[j], 1e-7 * (1 + std::abs(e.grad[j]))));
    }
  }
}

}  // namespace

TEST_CASE("counts over intervals of y' = c - k y: value and gradient match the closed form") {
  const std::vector<fx::series_data<double>> data = {{.values = counts, .mask = mask}};
  const inputs in;
  const auto run = [&](auto... how) {
    return fx::host::log_density(M{}, fx::tsit5{}, problem(), relax_counts, std::span(data), fx::priors<>{},
                                 inputs::B, fx::soa(std::span<const double>(in.x0)),
                                 fx::soa(std::span<const double>(in.th)), how...);
  };
  SECTION("forward sensitivities") { check(run(), in, true); }
  SECTION("the value alone") { check(run(false), in, false); }
  SECTION("the discrete adjoint") { check(run(fx::discrete_adjoint{}), in, true); }
  SECTION("Vern7, per-state tolerances given for the model's one state") {
    const std::vector<double> atol = {1e-12};
    fx::ode_problem<double> pr = problem();
    pr.atol_per_state = atol;
    check(fx::host::log_density(M{}, fx::vern7{}, pr, relax_counts, std::span(data), fx::priors<>{}, inputs::B,
                                fx::soa(std::span<const double>(in.x0)), fx::soa(std::span<const double>(in.th))),
          in, true);
  }
}

TEST_CASE("counts over intervals: a member per sensitivity column gives the closed form") {
  const std::vector<fx::series_data<double>> data = {{.values = counts, .mask = mask}};
  using E = fx::detail::integrated_model_t<M, std::remove_cvref_t<decltype(relax_counts)>>;
  STATIC_REQUIRE(E::n_states == 2);
  const inputs in;
  for (std::size_t b = 0; b < inputs::B; ++b) {
    INFO("trajectory " << b);
    const double xb[1] = {in.x0[b]}, tb[3] = {in.th[b], in.th[inputs::B + b], 1};
    double value = std::nan(""), grad[columns + 1];
    for (double& g : grad) g = std::nan("");
    const auto status = log_density_harness::members_log_density<fx::tsit5, M>(problem(), relax_counts, data,
                                                                                fx::priors<>{}, xb, tb, &value, grad, 1);
    for (const auto st : status) REQUIRE(st == fx::solve_status::success);
    const exact_result e = exact(in.th[b], in.th[inputs::B + b], in.x0[b]);
    CHECK_THAT(value, WithinRel(e.value, 1e-9));
    for (std::size_t j = 0; j < columns; ++j) {
      INFO("column " << j);
      CHECK_THAT(grad[j], WithinAbs(e.grad[j], 1e-7 * (1 + std::abs(e.grad[j]))));
    }
    // Only the given model's columns are written.
    CHECK(std::isnan(grad[columns]));
  }
}

namespace {

// The two-patch SIR by hand with a cumulative state C' = sum_a lambda_a S_a
// (new infections), by RK4 (400 steps a unit of time) over std::complex: the
// log-density of weekly negative-binomial counts C(t_s) - C(t_{s-1}) with a
// fixed dispersion.
namespace sir = log_density_fixtures;
const std::vector<double> weeks = {7, 14, 21, 28};
const std::vector<double> weekly = {310, 900, 1200, 800};
const std::vector<unsigned char> weekly_mask = {1, 1, 0, 1};
constexpr double dispersion = 6;

cplx weekly_oracle(const std::array<cplx, 6>& x0, const cplx* th) {
  std::array<cplx, 7> x{};
  for (int i = 0; i < 6; ++i) x[std::size_t(i)] = x0[std::size_t(i)];
  const auto f = [&](const std::array<cplx, 7>& z) {
    std::array<cplx, 7> dz{};
    two_patch_sir::rhs(z.data(), th, dz.data());
    for (int a = 0; a < 2; ++a) dz[6] += two_patch_sir::force(z.data(), th, a) * z[std::size_t(a)];
    return dz;
  };
  cplx total = 0, before = 0;
  double t = 0;
  for (std::size_t s = 0; s < weeks.size(); ++s) {
    const int steps = int((weeks[s] - t) * 400);
    const double h = (weeks[s] - t) / steps;
    for (int k = 0; k < steps; ++k) {
      std::array<cplx, 7> tmp;
      const auto k1 = f(x);
      for (int i = 0; i < 7; ++i) tmp[std::size_t(i)] = x[std::size_t(i)] + h / 2 * k1[std::size_t(i)];
      const auto k2 = f(tmp);
      for (int i = 0; i < 7; ++i) tmp[std::size_t(i)] = x[std::size_t(i)] + h / 2 * k2[std::size_t(i)];
      const auto k3 = f(tmp);
      for (int i = 0; i < 7; ++i) tmp[std::size_t(i)] = x[std::size_t(i)] + h * k3[std::size_t(i)];
      const auto k4 = f(tmp);
      for (int i = 0; i < 7; ++i)
        x[std::size_t(i)] += h / 6 * (k1[std::size_t(i)] + 2.0 * k2[std::size_t(i)] + 2.0 * k3[std::size_t(i)] +
                                      k4[std::size_t(i)]);
    }
    t = weeks[s];
    const cplx count = x[6] - before;
    before = x[6];
    if (weekly_mask[s]) total += sir::nb_log_pmf(weekly[s], count, dispersion);
  }
  return total;
}

}  // namespace

TEST_CASE("weekly counts of a two-patch SIR's new infections: the differences of a cumulative state by hand") {
  using S = fx::compiled<sir::sir2, double>;
  constexpr std::size_t n = S::n_states, np = S::n_params, cols = np + n;
  const double xb[n] = {950, 480, 8, 2, 0, 5};
  const double tb[np] = {0.35, 0.3, 1.0, 0.15, 0.12, 1.0, 0.14, 3.0, 0.3};
  std::vector<fx::observation<double>> obs;
  for (double v : weekly) obs.push_back(fx::observation<double>::exact(v));
  const fx::likelihood lik(fx::interval_series<fx::neg_binomial_2>{
      .name = "weekly new infections", .observable = 2, .parameters = {fx::fixed(dispersion)}});
  const std::vector<fx::series_data<double>> data = {{.values = obs, .mask = weekly_mask}};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 28, .save_times = weeks, .rtol = 1e-12, .atol = 1e-10};
  // The oracle's value and gradient by the complex step (the dispersion is
  // fixed: column 7 is zero, and so is sigma's, 8, which nothing reads).
  std::array<cplx, 6> x0c;
  cplx thc[np];
  for (std::size_t i = 0; i < n; ++i) x0c[i] = xb[i];
  for (std::size_t j = 0; j < np; ++j) thc[j] = tb[j];
  const double want = weekly_oracle(x0c, thc).real();
  double want_grad[cols];
  for (std::size_t j = 0; j < cols; ++j) {
    std::array<cplx, 6> xz = x0c;
    cplx tz[np];
    for (std::size_t l = 0; l < np; ++l) tz[l] = thc[l];
    if (j < np) tz[j] += cplx(0, 1e-30);
    else xz[j - np] += cplx(0, 1e-30);
    want_grad[j] = weekly_oracle(xz, tz).imag() / 1e-30;
  }
  const auto xs = fx::soa(std::span<const double>(xb));
  const auto ps = fx::soa(std::span<const double>(tb));
  const auto forward = fx::host::log_density(S{}, fx::vern7{}, pr, lik, std::span(data), fx::priors<>{}, 1, xs, ps);
  const auto adjoint = fx::host::log_density(S{}, fx::vern7{}, pr, lik, std::span(data), fx::priors<>{}, 1, xs, ps,
                                             fx::discrete_adjoint{});
  for (const auto* r : {&forward, &adjoint}) {
    REQUIRE(r->status[0] == fx::solve_status::success);
    CHECK_THAT(r->value[0], WithinRel(want, 1e-9));
    for (std::size_t j = 0; j < cols; ++j) {
      INFO("column " << j);
      CHECK_THAT(r->gradient(j, 0), WithinAbs(want_grad[j], 1e-6 * (1 + std::abs(want_grad[j]))));
    }
  }
  CHECK(forward.gradient(7, 0) == 0.0);
  CHECK(forward.gradient(8, 0) == 0.0);
}
