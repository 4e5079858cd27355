// Gradients of log-densities on one host thread, as multiples of one solve
// (Tsit5, rtol 1e-6, atol 1e-4): forward sensitivities, whose cost grows
// with the columns (1 + n_params + n_states solves' worth), against the
// discrete adjoint, whose cost does not. Prints two JSON lines:
//   - the SEIR example (4 states, 5 parameters: 9 columns; bench/seir_bench.hpp,
//     the line bench/seir_log_density.cu prints after its GPU part);
//   - an age-structured SEIR (8 age groups, an 8 x 8 contact matrix of
//     parameters: 32 states, 67 parameters, 99 columns) observed through a
//     negative binomial on its daily incidence, 60 days.
//
//   fluxion-bench-seir-gradient-host [N]     (default 2000 parameter sets; the age model N / 10)
#include <cstdlib>
#include <random>

#include "seir_bench.hpp"

namespace {

namespace fx = fluxion;

constexpr int ages = 8;
using age = fx::index<"age", ages>;
constexpr fx::ivar<age, 0, "a"> a;
constexpr fx::ivar<age, 1, "b"> b;
constexpr fx::state<"S", age> S;
constexpr fx::state<"E", age> E;
constexpr fx::state<"I", age> I;
constexpr fx::state<"R", age> R;
constexpr fx::param<"C", age, age> C;  // contacts of age a with age b, per day
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"phi"> phi;
constexpr auto lambda = fx::alias<"lambda">(fx::sum(b, C(a, b) * I(b) / (S(b) + E(b) + I(b) + R(b))));
constexpr auto age_seir = fx::model(fx::states(S, E, I, R), fx::params(C, sigma, gam, phi),  //
                                    fx::d(S(a)) = -lambda(a) * S(a),                           //
                                    fx::d(E(a)) = lambda(a) * S(a) - sigma * E(a),             //
                                    fx::d(I(a)) = sigma * E(a) - gam * I(a),                   //
                                    fx::d(R(a)) = gam * I(a),                                  //
                                    fx::observe<"incidence">() = fx::sum(a, sigma * E(a)));

void age_structured(std::size_t n) {
  using M = fx::compiled<age_seir, double>;
  constexpr std::size_t ns = M::n_states, np = M::n_params;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x0(ns * n), p(np * n);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < std::size_t(ages); ++i) {
      x0[i * n + k] = 1000;                          // S
      x0[(2 * ages + i) * n + k] = 1 + u(rng);       // I; E and R start at 0
    }
    for (std::size_t j = 0; j < std::size_t(ages * ages); ++j) p[j * n + k] = 0.05 + 0.05 * u(rng);
    p[std::size_t(ages * ages) * n + k] = 0.25;      // sigma
    p[std::size_t(ages * ages + 1) * n + k] = 0.2;   // gamma
    p[std::size_t(ages * ages + 2) * n + k] = 10;    // phi
  }
  std::vector<double> ts;
  std::vector<fx::observation<double>> counts;
  for (int d = 1; d <= 60; ++d) {
    ts.push_back(d);
    counts.push_back(fx::observation<double>::exact(double(20 + (d * 37) % 60)));
  }
  const std::vector<fx::series_data<double>> data = {{.values = counts}};
  const fx::likelihood lik(fx::series<fx::neg_binomial_2>{.name = "incidence", .observable = 0, .parameters = {ages * ages + 2}});
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 60, .save_times = ts, .rtol = 1e-6, .atol = 1e-4};
  fx::host::threads one(1);
  one.simd_lanes = false;
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(p));
  const auto time_ms = [](auto&& f) { return seir_bench::median_ms(f); };
  fx::log_density_result<double> forward, adjoint;
  const double solve = time_ms([&] { fx::host::integrate(M{}, fx::tsit5{}, pr, n, xs, ps, one); });
  const double fwd = time_ms([&] {
    forward = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, n, xs, ps, true, one);
  });
  const double adj = time_ms([&] {
    adjoint = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), fx::priors<>{}, n, xs, ps,
                                    fx::discrete_adjoint{}, one);
  });
  // The two gradients differ by the tolerances (the forward run's error
  // control covers the sensitivities, so it takes other steps).
  double worst = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double scale = 1;
    for (std::size_t j = 0; j < forward.columns; ++j) scale = std::max(scale, std::abs(forward.gradient(j, k)));
    for (std::size_t j = 0; j < forward.columns; ++j)
      worst = std::max(worst, std::abs(adjoint.gradient(j, k) - forward.gradient(j, k)) / scale);
  }
  std::printf("{\"impl\": \"fluxion-host\", \"what\": \"gradient_cost\", \"model\": \"age-structured SEIR\", \"N\": %zu, "
              "\"columns\": %zu, \"solve_ms\": %.3f, \"value_and_grad_ms\": %.3f, \"grad_over_solve\": %.3f, "
              "\"value_and_grad_adjoint_ms\": %.3f, \"adjoint_over_solve\": %.3f, \"max_rel_diff\": %.2e}\n",
              n, forward.columns, solve, fwd, fwd / solve, adj, adj / solve, worst);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 2000;
  seir_bench::host_costs(n, seir::make_data());
  age_structured(n / 10 > 0 ? n / 10 : 1);
  return 0;
}
