// Models, data and independent oracles shared by the log-density tests
// (log_density.cpp: forward sensitivities; log_density_adjoint.cpp: the
// discrete adjoint):
//   - y' = c - k y observed under a normal density, with the closed-form
//     solution's log-likelihood and gradient written out (relax_closed_form);
//   - a two-patch SIR observed through a negative binomial (exact, masked,
//     right-, left- and interval-censored points) and a log-normal series,
//     with a hand-written RK4 in plain C++ and hand-written densities (pmf
//     sums for the censored points) as the oracle (oracle_log_density, over
//     std::complex for the complex step).
#pragma once
#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>

#include "support/two_patch_sir.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <vector>

namespace log_density_fixtures {

namespace fx = fluxion;

// --- y' = c - k y, observed y ~ normal(y(t), sd) ----------------------------------
constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr fx::param<"c"> c;
constexpr fx::param<"sd"> sd;
constexpr auto relax = fx::model(fx::states(y), fx::params(k, c, sd), fx::d(y) = c - k * y,
                                 fx::observe<"y_obs">() = y);

// --- two-patch SIR with observables --------------------------------------------------
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
constexpr fx::param<"phi"> phi;
constexpr fx::param<"sigma"> sigma;
constexpr auto N = fx::alias<"N">(S(p) + I(p) + R(p));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * I(q)) / N(p));
constexpr auto sir2 = fx::model(fx::states(S, I, R), fx::params(beta, C, gam, phi, sigma),  //
                                fx::d(S(p)) = -lam(p) * S(p),                               //
                                fx::d(I(p)) = lam(p) * S(p) - gam * I(p),                   //
                                fx::d(R(p)) = gam * I(p),                                   //
                                fx::observe<"infected">(p) = I(p),                          //
                                fx::observe<"new_infections">() = fx::sum(q, lam(q) * S(q)));
// Flat orders (symbol-major): states S0 S1 I0 I1 R0 R1; parameters beta0 beta1
// C00 C01 C10 C11 gamma phi sigma; observables infected0 infected1 new_infections.
constexpr int n_states = 6, n_params = 9;

// Negative binomial (mean mu, dispersion phi) log pmf, written out.
template <class Z>
Z nb_log_pmf(double yv, Z mu, double ph) {
  return std::lgamma(yv + ph) - std::lgamma(ph) - std::lgamma(yv + 1) + Z(ph) * std::log(Z(ph) / (mu + Z(ph))) +
         Z(yv) * std::log(mu / (mu + Z(ph)));
}
template <class Z>
Z nb_cdf(double c, Z mu, double ph) {  // P(Y <= c)
  Z sum = 0;
  for (int v = 0; v <= int(std::floor(c)); ++v) sum += std::exp(nb_log_pmf(double(v), mu, ph));
  return sum;
}

struct point {
  fx::observation<double> obs;
  bool observed;
};

// The SIR data: new_infections under NB at the save times (exact, masked,
// right-, left- and interval-censored), infected[1] under a log-normal.
inline const std::vector<double> save_times = {2.0, 5.0, 9.0, 14.0, 20.0, 27.0};
inline const std::vector<point> nb_points = {
    {fx::observation<double>::exact(37), true},        {fx::observation<double>::exact(0), false},
    {fx::observation<double>::right(60), true},        {fx::observation<double>::interval(30, 55), true},
    {fx::observation<double>::left(40), true},         {fx::observation<double>::exact(12), true}};
inline const std::vector<double> ln_values = {6.0, 14.0, 30.0, 45.0, 41.0, 30.0};
inline const std::vector<unsigned char> ln_mask = {1, 1, 0, 1, 1, 1};

// Those data as the library takes them (the masked log-normal value is NaN:
// it must never be read), and the likelihood tying them to sir2.
struct sir2_data {
  std::vector<fx::observation<double>> nb_obs, ln_obs;
  std::vector<unsigned char> nb_mask;
  sir2_data() {
    for (const auto& pt : nb_points) nb_obs.push_back(pt.obs), nb_mask.push_back(pt.observed ? 1 : 0);
    for (double v : ln_values) ln_obs.push_back(fx::observation<double>::exact(v));
    ln_obs[2] = fx::observation<double>::exact(std::nan(""));
  }
  std::vector<fx::series_data<double>> series() const {
    return {{.values = nb_obs, .mask = nb_mask}, {.values = ln_obs, .mask = ln_mask}};
  }
};
inline const fx::likelihood sir2_likelihood(
    fx::series<fx::neg_binomial_2>{.name = "new infections", .observable = 2, .parameters = {7}},
    fx::series<fx::lognormal>{.name = "prevalence 1", .observable = 1, .parameters = {8}});

// The oracle's log-density (likelihood + priors) at (x0, th): Z complex for
// the complex step in x0 and the observables' parameters.
template <class Z>
Z oracle_log_density(const std::array<Z, 6>& x0, const Z* th, double ph, double sg) {
  const auto traj = two_patch_sir::rk4<Z>(x0, th, save_times, 400);
  Z total = 0;
  for (std::size_t s = 0; s < save_times.size(); ++s) {
    Z mu = 0;  // new infections: sum_a lambda_a S_a
    for (int a = 0; a < P; ++a) mu += two_patch_sir::force(traj[s].data(), th, a) * traj[s][std::size_t(a)];
    const auto& pt = nb_points[s];
    if (pt.observed) {
      switch (pt.obs.kind) {
        case fx::censoring::none: total += nb_log_pmf(pt.obs.value, mu, ph); break;
        case fx::censoring::right: total += std::log(Z(1) - nb_cdf(pt.obs.value, mu, ph)); break;
        case fx::censoring::left: total += std::log(nb_cdf(pt.obs.value, mu, ph)); break;
        case fx::censoring::interval:
          total += std::log(nb_cdf(pt.obs.upper, mu, ph) - nb_cdf(pt.obs.value, mu, ph));
          break;
      }
    }
    if (ln_mask[s]) {
      const double yv = ln_values[s];
      const Z z = (std::log(yv) - std::log(traj[s][3])) / sg;
      total += -std::log(yv) - std::log(sg) - 0.5 * std::log(2 * std::numbers::pi) - Z(0.5) * z * z;
    }
  }
  // Priors: gamma ~ lognormal(log 0.15, 0.5); phi ~ gamma(shape 2, rate 0.2).
  const Z lg = std::log(th[6]);
  total += -lg - std::log(0.5) - 0.5 * std::log(2 * std::numbers::pi) -
           Z(0.5) * (lg - std::log(0.15)) * (lg - std::log(0.15)) / 0.25;
  total += 2 * std::log(0.2) - std::lgamma(2.0) + (2 - 1) * std::log(ph) - 0.2 * ph;
  return total;
}


// The oracle's log-density and its gradient (the parameters, then x0) at
// one trajectory's (x0, th): the complex step in the parameters and initial
// states that move the observables, central differences in the dispersion
// (parameter 7) and the log-normal sigma (8).
struct sir2_expected {
  double value = 0;
  std::array<double, n_params + n_states> grad{};
};
inline sir2_expected oracle_value_and_gradient(const double* x0, const double* th) {
  using Z = std::complex<double>;
  const double hcs = 1e-30;
  std::array<Z, 6> xb;
  Z tb[n_params];
  for (int i = 0; i < n_states; ++i) xb[std::size_t(i)] = x0[i];
  for (int j = 0; j < n_params; ++j) tb[j] = th[j];
  const double ph = th[7], sg = th[8];
  sir2_expected e;
  e.value = oracle_log_density<Z>(xb, tb, ph, sg).real();
  for (int j = 0; j < n_params + n_states; ++j) {
    if (j == 7 || j == 8) {
      const double h = 1e-5 * (j == 7 ? ph : sg);
      const double up = oracle_log_density<Z>(xb, tb, j == 7 ? ph + h : ph, j == 8 ? sg + h : sg).real();
      const double dn = oracle_log_density<Z>(xb, tb, j == 7 ? ph - h : ph, j == 8 ? sg - h : sg).real();
      e.grad[std::size_t(j)] = (up - dn) / (2 * h);
    } else {
      std::array<Z, 6> xz = xb;
      Z tz[n_params];
      for (int l = 0; l < n_params; ++l) tz[l] = tb[l];
      if (j < n_params) tz[j] += Z(0, hcs);
      else xz[std::size_t(j - n_params)] += Z(0, hcs);
      e.grad[std::size_t(j)] = oracle_log_density<Z>(xz, tz, ph, sg).imag() / hcs;
    }
  }
  return e;
}

// The closed-form log-likelihood of relax (normal series on y with sd = th[2],
// observed where mask is 1) plus the test's priors, normal(1, 0.5) on k and
// half-normal(1) on sd, and its gradient (k, c, sd, y0).
struct relax_exact {
  double value = 0;
  double grad[4] = {};
};
inline relax_exact relax_closed_form(double kk, double cc, double s, double y0, const std::vector<double>& ts,
                                     const std::vector<fx::observation<double>>& obs,
                                     const std::vector<unsigned char>& mask) {
  relax_exact r;
  double& value = r.value;
  double &dk = r.grad[0], &dc = r.grad[1], &ds = r.grad[2], &dy0 = r.grad[3];
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!mask[i]) continue;
    const double t = ts[i], e = std::exp(-kk * t);
    const double yt = cc / kk + (y0 - cc / kk) * e;
    const double r_ = obs[i].value - yt;
    value += -0.5 * r_ * r_ / (s * s) - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
    const double w = r_ / (s * s);  // d/d y(t)
    dk += w * (-cc / (kk * kk) + cc / (kk * kk) * e - t * (y0 - cc / kk) * e);
    dc += w * (1 - e) / kk;
    dy0 += w * e;
    ds += r_ * r_ / (s * s * s) - 1 / s;
  }
  value += -0.5 * (kk - 1) * (kk - 1) / 0.25 - std::log(0.5) - 0.5 * std::log(2 * std::numbers::pi);
  dk += -(kk - 1) / 0.25;
  value += std::log(2.0) - 0.5 * s * s - 0.5 * std::log(2 * std::numbers::pi);
  ds += -s;
  return r;
}

// y' = c - k y from y(0) = 0 observed through sqrt(y), whose derivative is
// infinite at t = 0: a missing value there must add nothing to the gradient.
constexpr auto relax_sqrt = fx::model(fx::states(y), fx::params(k, c, sd), fx::d(y) = c - k * y,
                                      fx::observe<"root">() = fx::sqrt(y));

}  // namespace log_density_fixtures
