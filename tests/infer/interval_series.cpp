// Series over intervals (issue 39 item 1): an observable accumulated between
// consecutive save times, without a cumulative state in the model; and
// series at their own times (item 2), over intervals or not, beside series
// at the problem's save times (the end of this file).
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
#include <catch2/matchers/catch_matchers_string.hpp>

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
#include <string>
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

// --- Series at their own times (series_data::times) ------------------------------
//
// y' = c - k y observed by four series beside the problem's save times
// {0.5, 2, 3}: "serosurvey" (normal, fixed sd) at its own times {0.3, 1.7,
// 3.2}, the second missing; "weekly" (normal over intervals, an sd per
// observation from the data) at {1, 2.5, 4}: counts over (0, 1], (1, 2.5],
// (2.5, 4]; "halves" (normal over intervals, fixed sd) at {2, 4}, the same
// observable as "weekly" over other intervals; "daily" (normal, sd the model
// parameter) at the problem's save times. The oracle: every term written
// out from the closed form over std::complex, the gradient by the complex step.
namespace {

struct timed_series {
  std::vector<double> times;
  std::vector<double> values;
  std::vector<unsigned char> mask;
  std::vector<double> sds;  // per observation; empty: `sd_param` (-1) or the fixed sd
  double fixed_sd;
  bool interval;
  bool sd_param;
};
const std::vector<double> own_save_times = {0.5, 2.0, 3.0};
const std::vector<timed_series> timed = {
    {{0.3, 1.7, 3.2}, {1.1, -7.0, 1.35}, {1, 0, 1}, {}, 0.1, false, false},
    {{1.0, 2.5, 4.0}, {0.9, 1.9, 1.8}, {1, 1, 1}, {0.2, 0.3, 0.25}, 0, true, false},
    {{2.0, 4.0}, {2.1, 2.4}, {1, 1}, {}, 0.3, true, false},
    {{}, {1.2, 1.3, 1.25}, {}, {}, 0, false, true},
};

cplx relax_y(cplx kk, cplx cc, cplx y0, double t) { return cc / kk + (y0 - cc / kk) * std::exp(-kk * t); }
cplx relax_count(cplx kk, cplx cc, cplx y0, double a, double b) {
  return cc / kk * (b - a) + (y0 - cc / kk) * (std::exp(-kk * a) - std::exp(-kk * b)) / kk;
}
cplx normal_log_pdf(double y, cplx mean, cplx s) {
  const cplx r = (y - mean) / s;
  return -0.5 * r * r - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
}
// Each observation's term in the order of the data (0 where missing).
std::vector<cplx> timed_terms(cplx kk, cplx cc, cplx sdp, cplx y0) {
  std::vector<cplx> out;
  for (const auto& sr : timed) {
    const std::vector<double>& times = sr.times.empty() ? own_save_times : sr.times;
    double a = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const cplx mean = sr.interval ? relax_count(kk, cc, y0, a, times[i]) : relax_y(kk, cc, y0, times[i]);
      a = times[i];
      const cplx s = sr.sd_param ? sdp : cplx(sr.sds.empty() ? sr.fixed_sd : sr.sds[i]);
      out.push_back(sr.mask.empty() || sr.mask[i] ? normal_log_pdf(sr.values[i], mean, s) : cplx(0));
    }
  }
  return out;
}

const fx::likelihood timed_likelihood(
    fx::series<fx::normal>{.name = "serosurvey", .observable = 0, .parameters = {fx::fixed(0.1)}},
    fx::interval_series<fx::normal>{.name = "weekly", .observable = 0, .parameters = {fx::from_data}},
    fx::interval_series<fx::normal>{.name = "halves", .observable = 0, .parameters = {fx::fixed(0.3)}},
    fx::series<fx::normal>{.name = "daily", .observable = 0, .parameters = {2}});

struct timed_data {
  std::vector<std::vector<fx::observation<double>>> values;
  std::vector<fx::series_data<double>> series;
  timed_data() {
    for (const auto& sr : timed) {
      values.emplace_back();
      for (double v : sr.values) values.back().push_back(fx::observation<double>::exact(v));
    }
    for (std::size_t k = 0; k < timed.size(); ++k)
      series.push_back({.values = values[k], .mask = timed[k].mask, .parameter_values = timed[k].sds,
                        .times = timed[k].times});
  }
};

fx::ode_problem<double> timed_problem() {
  return {.t0 = 0, .t1 = 4.0, .save_times = own_save_times, .rtol = 1e-11, .atol = 1e-12};
}

}  // namespace

TEST_CASE("series at their own times: values, terms and gradients match the closed form") {
  const timed_data data;
  const inputs in;
  std::size_t n_terms = 0;
  for (const auto& d : data.series) n_terms += d.values.size();
  REQUIRE(n_terms == 11);
  const auto x0 = fx::soa(std::span<const double>(in.x0));
  const auto th = fx::soa(std::span<const double>(in.th));
  const auto want = [&](std::size_t b, std::size_t column) {  // column == columns: the value
    const double h = 1e-30;
    cplx v[4] = {in.th[b], in.th[inputs::B + b], in.th[2 * inputs::B + b], in.x0[b]};
    if (column < columns) v[column] += cplx(0, h);
    cplx total = 0;
    for (const cplx t : timed_terms(v[0], v[1], v[2], v[3])) total += t;
    return column < columns ? total.imag() / h : total.real();
  };
  for (int how = 0; how < 3; ++how) {
    INFO((how == 0 ? "forward sensitivities" : how == 1 ? "the value alone" : "the discrete adjoint"));
    const auto r = how == 0 ? fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood,
                                                     std::span(data.series), fx::priors<>{}, inputs::B, x0, th)
                   : how == 1 ? fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood,
                                                      std::span(data.series), fx::priors<>{}, inputs::B, x0, th, false)
                              : fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood,
                                                      std::span(data.series), fx::priors<>{}, inputs::B, x0, th,
                                                      fx::discrete_adjoint{});
    for (std::size_t b = 0; b < inputs::B; ++b) {
      INFO("trajectory " << b);
      REQUIRE(r.status[b] == fx::solve_status::success);
      CHECK_THAT(r.value[b], WithinRel(want(b, columns), 1e-9));
      if (how == 1) continue;
      for (std::size_t j = 0; j < columns; ++j) {
        INFO("column " << j);
        CHECK_THAT(r.gradient(j, b), WithinAbs(want(b, j), 1e-7 * (1 + std::abs(want(b, j)))));
      }
    }
  }
  SECTION("each series' sum and each observation's term, in the order of the data") {
    std::vector<double> value(inputs::B), grad(columns * inputs::B), sums(4 * inputs::B, -1.0),
        terms(n_terms * inputs::B, -1.0);
    std::vector<fx::solve_status> status(inputs::B);
    fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood, std::span(data.series),
                          fx::priors<>{}, inputs::B, x0, th,
                          fx::log_density_buffers<double>{.value = value, .gradients = grad, .status = status,
                                                          .series_values = sums, .observation_values = terms});
    for (std::size_t b = 0; b < inputs::B; ++b) {
      const auto oracle = timed_terms(in.th[b], in.th[inputs::B + b], in.th[2 * inputs::B + b], in.x0[b]);
      std::size_t place = 0;
      for (std::size_t k = 0; k < timed.size(); ++k) {
        double sum = 0;
        for (std::size_t i = 0; i < data.series[k].values.size(); ++i, ++place) {
          INFO("trajectory " << b << ", series " << k << ", observation " << i);
          CHECK_THAT(terms[place * inputs::B + b], WithinAbs(oracle[place].real(), 1e-8));
          sum += oracle[place].real();
        }
        CHECK_THAT(sums[k * inputs::B + b], WithinAbs(sum, 1e-8));
      }
      CHECK(terms[1 * inputs::B + b] == 0.0);  // the serosurvey's missing value
    }
    // A terms buffer one observation short: refused.
    std::vector<double> short_terms((n_terms - 1) * inputs::B);
    CHECK_THROWS_AS(fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood, std::span(data.series),
                                          fx::priors<>{}, inputs::B, x0, th,
                                          fx::log_density_buffers<double>{.value = value, .gradients = grad,
                                                                          .status = status,
                                                                          .observation_values = short_terms}),
                    fx::layout_error);
  }
  SECTION("a member per sensitivity column (the GPU's lanes)") {
    for (std::size_t b = 0; b < inputs::B; ++b) {
      INFO("trajectory " << b);
      const double xb[1] = {in.x0[b]}, tb[3] = {in.th[b], in.th[inputs::B + b], in.th[2 * inputs::B + b]};
      double value = std::nan(""), grad[columns];
      const auto status = log_density_harness::members_log_density<fx::tsit5, M>(
          timed_problem(), timed_likelihood, data.series, fx::priors<>{}, xb, tb, &value, grad, 1);
      for (const auto st : status) REQUIRE(st == fx::solve_status::success);
      CHECK_THAT(value, WithinRel(want(b, columns), 1e-9));
      for (std::size_t j = 0; j < columns; ++j) {
        INFO("column " << j);
        CHECK_THAT(grad[j], WithinAbs(want(b, j), 1e-7 * (1 + std::abs(want(b, j)))));
      }
    }
  }
}

TEST_CASE("series at their own times: what is refused, naming the series and the time index") {
  const inputs in;
  const auto x0 = fx::soa(std::span<const double>(in.x0));
  const auto th = fx::soa(std::span<const double>(in.th));
  const auto refused = [&](std::vector<double> times, std::size_t values, const std::string& says,
                           std::size_t index = fx::data_error::no_index) {
    timed_data data;
    data.series[0].times = times;
    data.values[0].resize(values, fx::observation<double>::exact(1.0));
    data.series[0].values = data.values[0];
    const std::vector<unsigned char> no_mask;
    data.series[0].mask = no_mask;
    try {
      fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood, std::span(data.series),
                            fx::priors<>{}, inputs::B, x0, th);
      FAIL("not refused: " << says);
    } catch (const fx::data_error& e) {
      INFO(e.what());
      CHECK(e.series() == "serosurvey");
      CHECK(e.index() == index);
      CHECK(std::string(e.what()).find(says) != std::string::npos);
    }
  };
  refused({0.3, 0.3, 3.2}, 3, "strictly increasing", 1);
  refused({0.3, 2.0, 1.0}, 3, "strictly increasing", 2);
  refused({0.3, 1.7, 4.5}, 3, "outside the problem's span", 2);
  refused({-0.1, 1.7, 3.2}, 3, "outside the problem's span", 0);
  refused({0.3, std::nan(""), 3.2}, 3, "not finite", 1);
  refused({0.3, 1.7, 3.2}, 2, "2 values but 3 times of its own");
  refused({}, 2, "2 values but the problem has 3 save times");
  // A mask, trials or parameter values count per time of the series.
  timed_data data;
  const std::vector<unsigned char> long_mask = {1, 1, 1, 1};
  data.series[0].mask = long_mask;
  CHECK_THROWS_AS(fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood, std::span(data.series),
                                        fx::priors<>{}, inputs::B, x0, th),
                  fx::data_error);
  timed_data short_sd;
  short_sd.series[1].parameter_values = std::span<const double>(timed[1].sds).first(2);
  CHECK_THROWS_WITH(fx::host::log_density(M{}, fx::tsit5{}, timed_problem(), timed_likelihood,
                                          std::span(short_sd.series), fx::priors<>{}, inputs::B, x0, th),
                    Catch::Matchers::ContainsSubstring("one parameter value per time of the series (3), got 2"));
}
