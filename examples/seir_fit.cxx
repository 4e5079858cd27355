// A maximum a-posteriori fit of an SEIR model to synthetic negative binomial
// incidence with missing and right-censored days (examples/seir_model.hpp),
// with NLopt's L-BFGS on the unconstrained parameters and fluxion's exact
// gradient (forward sensitivities). Then replay: posterior-predictive draws
// at the fit from keyed Philox streams. Built where NLopt is found.
//
//   seir_fit [out.csv]     writes day, data, fit and draw quantiles when given
//
// Unknowns: beta, sigma, gamma, rho, phi (the model's parameters) and the
// initially infectious I0, which sets the initial state (N - I0, 0, I0, 0):
// its gradient is chained from the gradient with respect to the initial
// state. Unconstrained: u = log x (rho: logit), with the log-Jacobians of
// fluxion/infer/transforms.hpp. Exits 1 unless the fit lands near the
// truth and its gradient vanishes.
#include <nlopt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include "seir_model.hpp"

namespace fx = fluxion;
using M = fx::compiled<seir::model, double>;

namespace {

constexpr int n_unknowns = seir::n_params + 1;  // + log I0

struct fit_context {
  const std::vector<double>* ts;
  const std::vector<fx::series_data<double>>* data;
  int evaluations = 0;
};

// The constrained values of the unknowns and d x / d u.
void to_constrained(const double* u, double* x, double* dx) {
  for (int j = 0; j < n_unknowns; ++j) {
    if (j == seir::p_rho) {
      const fx::logit_transform<double> t{0.0, 1.0};
      x[j] = t.to_constrained(u[j]);
      dx[j] = x[j] * (1 - x[j]);
    } else {
      x[j] = std::exp(u[j]);
      dx[j] = x[j];
    }
  }
}

// The negative log-density of the unknowns on the unconstrained line.
double objective(unsigned n, const double* u, double* grad, void* data) {
  auto& ctx = *static_cast<fit_context*>(data);
  ++ctx.evaluations;
  double x[n_unknowns], dx[n_unknowns];
  to_constrained(u, x, dx);
  const double i0 = x[seir::n_params];
  const auto x0 = seir::initial_state(i0);
  const std::vector<double> p(x, x + seir::n_params);
  const auto pr = seir::problem<double>(*ctx.ts, 1e-9, 1e-8);
  const fx::likelihood lik(seir::reported);
  const auto r = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(*ctx.data), seir::priors<double>(), 1,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(p)),
                                       grad != nullptr);
  // A prior on I0 (log-normal around 10) and every log-Jacobian: log x' for
  // the log transforms, log rho (1 - rho) for the logit.
  const double li0 = std::log(i0), z = (li0 - std::log(10.0)) / 1.0;
  double value = r.value[0] - 0.5 * z * z - li0;
  for (int j = 0; j < n_unknowns; ++j) value += std::log(dx[j]);
  if (grad) {
    for (int j = 0; j < seir::n_params; ++j) grad[j] = r.gradient(std::size_t(j), 0) * dx[j];
    // d/d I0 through x0 = (N - I0, 0, I0, 0): columns n_params + state.
    const double d_i0 = -r.gradient(seir::n_params + 0, 0) + r.gradient(seir::n_params + 2, 0) - z / i0 - 1 / i0;
    grad[seir::n_params] = d_i0 * dx[seir::n_params];
    for (int j = 0; j < n_unknowns; ++j) grad[j] += j == seir::p_rho ? 1 - 2 * x[j] : 1.0;  // d log-Jacobian / du
    for (unsigned j = 0; j < n; ++j) grad[j] = -grad[j];
  }
  return -value;
}

}  // namespace

int main(int argc, char** argv) {
  const auto data = seir::make_data();
  const auto ts = seir::save_times<double>();
  const std::vector<fx::series_data<double>> series = {{.values = data.values, .mask = data.mask}};
  fit_context ctx{&ts, &series};

  // Start from the priors' medians.
  std::array<double, n_unknowns> u = {std::log(0.5), std::log(0.25), std::log(0.2), 0.0, std::log(20.0),
                                      std::log(10.0)};
  u[seir::p_rho] = std::log(0.2 / 0.8);
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n_unknowns);
  nlopt_set_min_objective(opt, objective, &ctx);
  // Bounds keep the line search where the outbreak stays integrable
  // (unbounded trial points can leave the solver's step budget).
  std::array<double, n_unknowns> lower, upper;
  for (int j = 0; j < n_unknowns; ++j) lower[std::size_t(j)] = u[std::size_t(j)] - 3, upper[std::size_t(j)] = u[std::size_t(j)] + 3;
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_initial_step1(opt, 0.1);
  nlopt_set_ftol_rel(opt, 1e-12);
  nlopt_set_xtol_rel(opt, 1e-8);
  nlopt_set_maxeval(opt, 2000);
  double best = 0;
  const nlopt_result status = nlopt_optimize(opt, u.data(), &best);
  nlopt_destroy(opt);

  double x[n_unknowns], dx[n_unknowns], g[n_unknowns];
  to_constrained(u.data(), x, dx);
  objective(n_unknowns, u.data(), g, &ctx);
  double gnorm = 0;
  for (double v : g) gnorm = std::max(gnorm, std::abs(v));
  const char* names[n_unknowns] = {"beta", "sigma", "gamma", "rho", "phi", "I0"};
  const double true_values[n_unknowns] = {seir::truth[0], seir::truth[1], seir::truth[2], seir::truth[3],
                                          seir::truth[4], seir::truth_initial_infected};
  std::printf("MAP fit of the SEIR model to %d days of negative binomial incidence (5 missing, %d right-censored)\n",
              seir::days, int(std::count_if(data.values.begin(), data.values.end(), [](const auto& o) {
                return o.kind == fx::censoring::right;
              })));
  std::printf("NLopt L-BFGS: status %d, %d log-density evaluations, -log p = %.6f, max |gradient| = %.2e\n",
              int(status), ctx.evaluations, best, gnorm);
  std::printf("%-6s %10s %10s\n", "", "fit", "truth");
  for (int j = 0; j < n_unknowns; ++j) std::printf("%-6s %10.4f %10.4f\n", names[j], x[j], true_values[j]);
  // R0 = beta / gamma and the reporting rate are what the data pin down.
  const double r0_fit = x[0] / x[2], r0_true = true_values[0] / true_values[2];
  std::printf("R0     %10.4f %10.4f\n", r0_fit, r0_true);
  const bool near = std::abs(r0_fit / r0_true - 1) < 0.1 && std::abs(x[3] / true_values[3] - 1) < 0.3 && gnorm < 1e-3 &&
         status > 0;

  // Replay: 200 posterior-predictive series at the fit, keyed (seed, draw, 0, day).
  const auto x0 = seir::initial_state(x[seir::n_params]);
  const std::vector<double> p(x, x + seir::n_params);
  const auto sol = fx::host::integrate(M{}, fx::tsit5{}, seir::problem<double>(ts, 1e-9, 1e-8), 1,
                                       fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(p)));
  constexpr int draws = 200;
  std::vector<double> mean(seir::days), lo(seir::days), mid(seir::days), hi(seir::days);
  for (int day = 0; day < seir::days; ++day) {
    double state[4], y[1];
    for (int i = 0; i < 4; ++i) state[i] = sol.saved(std::size_t(day), std::size_t(i), 0);
    M{}.observe(double(day + 1), state, p.data(), y);
    mean[std::size_t(day)] = y[0];
    std::vector<double> v(draws);
    for (int k = 0; k < draws; ++k) {
      fx::draw_stream s(fx::draw_key{.seed = 7, .trajectory = std::uint32_t(k), .series = 0, .time = std::uint32_t(day)});
      v[std::size_t(k)] = double(fx::sample_neg_binomial_2(s, y[0], x[seir::p_phi]));
    }
    std::sort(v.begin(), v.end());
    lo[std::size_t(day)] = v[draws / 20];
    mid[std::size_t(day)] = v[draws / 2];
    hi[std::size_t(day)] = v[draws - 1 - draws / 20];
  }
  if (argc > 1) {
    if (std::FILE* f = std::fopen(argv[1], "w")) {
      std::fprintf(f, "day,count,observed,right_censored,fit_mean,draw_q05,draw_q50,draw_q95\n");
      for (int day = 0; day < seir::days; ++day)
        std::fprintf(f, "%d,%.0f,%d,%d,%.6f,%.0f,%.0f,%.0f\n", day + 1, data.counts[std::size_t(day)],
                     int(data.mask[std::size_t(day)]),
                     int(data.values[std::size_t(day)].kind == fx::censoring::right), mean[std::size_t(day)],
                     lo[std::size_t(day)], mid[std::size_t(day)], hi[std::size_t(day)]);
      std::fclose(f);
      std::printf("wrote %s\n", argv[1]);
    }
  }
  std::printf(near ? "the fit recovers R0 and the reporting rate\n" : "the fit is off\n");
  return near ? 0 : 1;
}
