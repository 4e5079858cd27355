// The SEIR model of the inference examples (seir_fit.cxx on the host,
// seir_gpu.cu on the GPU) and of bench/seir_log_density.cu: an outbreak in
// a closed population of 100,000, daily reported incidence rho sigma E
// observed through a negative binomial with dispersion phi. Synthetic data
// are drawn from the model at known parameters with keyed Philox streams
// (the same counts on any machine); days 30-34 are missing (a reporting
// gap), and days above 1,000 reported cases are recorded only as "more than
// 1,000" (right-censored).
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace seir {

namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"E"> E;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;    // transmission rate per day
constexpr fx::param<"sigma"> sigma;  // 1 / latent period
constexpr fx::param<"gamma"> gam;    // 1 / infectious period
constexpr fx::param<"rho"> rho;      // reporting probability
constexpr fx::param<"phi"> phi;      // negative binomial dispersion

constexpr auto model = fx::model(fx::states(S, E, I, R), fx::params(beta, sigma, gam, rho, phi),  //
                                 fx::d(S) = -beta * S * I / (S + E + I + R),                         //
                                 fx::d(E) = beta * S * I / (S + E + I + R) - sigma * E,              //
                                 fx::d(I) = sigma * E - gam * I,                                     //
                                 fx::d(R) = gam * I,                                                 //
                                 fx::observe<"reported_incidence">() = rho * sigma * E);

// Parameter order (symbol-major layout): beta, sigma, gamma, rho, phi.
enum parameter : int { p_beta = 0, p_sigma = 1, p_gamma = 2, p_rho = 3, p_phi = 4 };
constexpr int n_params = 5;
constexpr double population = 1e5;
constexpr double truth[n_params] = {0.6, 0.25, 0.2, 0.3, 12.0};
constexpr double truth_initial_infected = 10.0;
constexpr int days = 70;
constexpr double reporting_cap = 1000;  // counts above it are recorded as "more than 1,000"
constexpr std::uint64_t data_seed = 20261204;

// The initial state for i0 initially infectious people.
template <class T>
std::vector<T> initial_state(T i0) {
  return {T(population) - i0, T(0), i0, T(0)};
}

template <class T>
std::vector<T> save_times() {
  std::vector<T> ts(days);
  for (int d = 0; d < days; ++d) ts[std::size_t(d)] = T(d + 1);
  return ts;
}

// The series, its priors and the problem.
inline constexpr fx::series<fx::neg_binomial_2> reported{.name = "reported cases", .observable = 0,
                                                          .parameters = {p_phi}};
template <class T>
auto priors() {
  return fx::priors(fx::prior_on{p_beta, fx::lognormal_prior<T>{T(std::log(0.5)), T(0.5)}},
                    fx::prior_on{p_sigma, fx::lognormal_prior<T>{T(std::log(0.25)), T(0.1)}},
                    fx::prior_on{p_gamma, fx::lognormal_prior<T>{T(std::log(0.2)), T(0.3)}},
                    fx::prior_on{p_rho, fx::beta_prior<T>{T(2), T(5)}},
                    fx::prior_on{p_phi, fx::gamma_prior<T>{T(2), T(0.1)}});
}

template <class T>
fx::ode_problem<T> problem(std::span<const T> ts, T rtol = T(1e-7), T atol = T(1e-6)) {
  return {.t0 = 0, .t1 = T(days), .save_times = ts, .rtol = rtol, .atol = atol};
}

// Synthetic data: the model at the true parameters, negative binomial draws
// keyed (seed, trajectory 0, series 0, day), then the gap and the cap.
struct synthetic {
  std::vector<fx::observation<double>> values;
  std::vector<unsigned char> mask;
  std::vector<double> counts;  // the draws before censoring (for plots)
};

inline synthetic make_data() {
  using M = fx::compiled<model, double>;
  const auto ts = save_times<double>();
  const auto x0 = initial_state(truth_initial_infected);
  const std::vector<double> p(truth, truth + n_params);
  const auto pr = problem<double>(ts, 1e-10, 1e-8);
  const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, 1, fx::soa(std::span<const double>(x0)),
                                     fx::soa(std::span<const double>(p)));
  synthetic d;
  for (int day = 0; day < days; ++day) {
    double y[1];
    double x[4];
    for (int i = 0; i < 4; ++i) x[i] = r.saved(std::size_t(day), std::size_t(i), 0);
    M{}.observe(double(day + 1), x, p.data(), y);
    fx::draw_stream s(fx::draw_key{.seed = data_seed, .trajectory = 0, .series = 0, .time = std::uint32_t(day)});
    const double count = double(fx::sample_neg_binomial_2(s, y[0], truth[p_phi]));
    d.counts.push_back(count);
    d.values.push_back(count > reporting_cap ? fx::observation<double>::right(reporting_cap)
                                             : fx::observation<double>::exact(count));
    d.mask.push_back(day >= 29 && day <= 33 ? 0 : 1);
  }
  return d;
}

}  // namespace seir
