// The SEIR benchmark's parameter sets and its host measurement, shared by
// bench/seir_log_density.cu (GPU, then this host part) and
// bench/seir_gradient_host.cpp (this host part alone, without CUDA).
// Parameter set b (bench/peers/seir_log_density_jax.py computes the same ones):
//   beta  = 0.4 + 0.4  frac((b + 1) 0.7548776662466927)
//   sigma = 0.2 + 0.1  frac((b + 1) 0.5698402909980532)
//   gamma = 0.15 + 0.1 frac((b + 1) 0.6180339887498949)
//   rho   = 0.2 + 0.2  frac((b + 1) 0.4142135623730950)
//   phi   = 5 + 15     frac((b + 1) 0.7320508075688772)
// and the initial state (N - 10, 0, 10, 0).
#pragma once
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../examples/seir_model.hpp"

namespace seir_bench {

namespace fx = fluxion;

constexpr double weyl[seir::n_params] = {0.7548776662466927, 0.5698402909980532, 0.6180339887498949,
                                         0.4142135623730950, 0.7320508075688772};
constexpr double lower[seir::n_params] = {0.4, 0.2, 0.15, 0.2, 5};
constexpr double width[seir::n_params] = {0.4, 0.1, 0.1, 0.2, 15};

template <class T>
void parameter_sets(std::size_t n, std::vector<T>& x0, std::vector<T>& p) {
  x0.assign(4 * n, T(0));
  p.assign(seir::n_params * n, T(0));
  for (std::size_t b = 0; b < n; ++b) {
    const auto x = seir::initial_state(10.0);
    for (int i = 0; i < 4; ++i) x0[std::size_t(i) * n + b] = T(x[std::size_t(i)]);
    for (int j = 0; j < seir::n_params; ++j) {
      const double f = double(b + 1) * weyl[j];
      p[std::size_t(j) * n + b] = T(lower[j] + width[j] * (f - std::floor(f)));
    }
  }
}

template <class T>
std::vector<fx::series_data<T>> series_of(const std::vector<fx::observation<T>>& v, const std::vector<unsigned char>& m) {
  return {{.values = v, .mask = m}};
}

// The median of 3 timed calls of f after one untimed (milliseconds).
template <class F>
double median_ms(F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < 3; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

// Host, one thread: a plain solve, the log-density, and with its gradient.
inline void host_costs(std::size_t n, const seir::synthetic& data) {
  using M = fx::compiled<seir::model, double>;
  std::vector<double> x0, p;
  parameter_sets(n, x0, p);
  const auto series = series_of(data.values, data.mask);
  const auto ts = seir::save_times<double>();
  const auto pr = seir::problem<double>(ts, 1e-6, 1e-4);
  const fx::likelihood lik(seir::reported);
  const auto pri = seir::priors<double>();
  fx::host::threads one(1);
  one.simd_lanes = false;
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(p));
  const auto time_ms = [](auto&& f) { return median_ms(f); };
  std::size_t steps_solve = 0, steps_grad = 0;
  const double solve = time_ms([&] {
    const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, n, xs, ps, one);
    steps_solve = 0;
    for (const auto& s : r.stats) steps_solve += std::size_t(s.accepted + s.rejected);
  });
  const double value = time_ms([&] {
    fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, false, one);
  });
  const double grad = time_ms([&] {
    const auto r = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, true, one);
    steps_grad = 0;
    for (const auto& s : r.stats) steps_grad += std::size_t(s.accepted + s.rejected);
  });
  const double adjoint = time_ms([&] {
    fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, fx::discrete_adjoint{}, one);
  });
  std::printf("{\"impl\": \"fluxion-host\", \"what\": \"gradient_cost\", \"N\": %zu, \"solve_ms\": %.3f, "
              "\"value_ms\": %.3f, \"value_and_grad_ms\": %.3f, \"grad_over_solve\": %.3f, \"bound\": %d, "
              "\"steps_solve\": %zu, \"steps_grad\": %zu, \"value_and_grad_adjoint_ms\": %.3f, "
              "\"adjoint_over_solve\": %.3f}\n",
              n, solve, value, grad, grad / solve, 1 + seir::n_params + 4, steps_solve, steps_grad, adjoint,
              adjoint / solve);
}

}  // namespace seir_bench
