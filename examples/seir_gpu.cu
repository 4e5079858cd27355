// The SEIR example's log-density and its gradient for 100,000 parameter
// sets drawn from the priors, on the GPU (examples/seir_model.hpp; the MAP
// fit is seir_fit.cxx). Without a usable device it evaluates 2,000 sets on
// the host instead, and says so.
//
// Parameter sets are drawn with keyed Philox streams (seed 11, trajectory b,
// series = parameter), so the same sets come out on any machine. Prints the
// best log-density found, how many trajectories failed, and checks the
// first sets against the host's evaluation.
#include <fluxion/cuda.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "seir_model.hpp"

namespace fx = fluxion;
using M = fx::compiled<seir::model, double>;

namespace {

// Prior draws: log-normals, beta(2, 5) for rho, gamma(2, rate 0.1) for phi.
void draw_sets(std::size_t n, std::vector<double>& x0, std::vector<double>& p) {
  x0.assign(4 * n, 0.0);
  p.assign(seir::n_params * n, 0.0);
  for (std::size_t b = 0; b < n; ++b) {
    const auto key = [&](int j) {
      return fx::draw_stream(fx::draw_key{.seed = 11, .trajectory = std::uint32_t(b), .series = std::uint32_t(j)});
    };
    auto s0 = key(0), s1 = key(1), s2 = key(2), s3 = key(3), s4 = key(4);
    p[0 * n + b] = fx::sample_lognormal<double>(s0, std::log(0.5), 0.5);
    p[1 * n + b] = fx::sample_lognormal<double>(s1, std::log(0.25), 0.1);
    p[2 * n + b] = fx::sample_lognormal<double>(s2, std::log(0.2), 0.3);
    p[3 * n + b] = fx::sample_beta<double>(s3, 2.0, 5.0);
    p[4 * n + b] = fx::sample_gamma<double>(s4, 2.0, 0.1);
    const auto x = seir::initial_state(10.0);
    for (int i = 0; i < 4; ++i) x0[std::size_t(i) * n + b] = x[std::size_t(i)];
  }
}

bool device_usable() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

int main() {
  const auto data = seir::make_data();
  const std::vector<fx::series_data<double>> series = {{.values = data.values, .mask = data.mask}};
  const auto ts = seir::save_times<double>();
  const auto pr = seir::problem<double>(ts, 1e-6, 1e-4);
  const fx::likelihood lik(seir::reported);
  const auto pri = seir::priors<double>();
  constexpr std::size_t columns = seir::n_params + 4;

  const bool gpu = device_usable();
  const std::size_t n = gpu ? 100000 : 2000;
  std::vector<double> x0, p;
  draw_sets(n, x0, p);
  std::vector<double> value(n), grad(columns * n);
  std::vector<fx::solve_status> status(n);
  const auto start = std::chrono::steady_clock::now();
  if (gpu) {
    double *dx, *dp, *dv, *dg;
    fx::solve_status* ds;
    fx::detail::check_cuda(cudaMalloc(&dx, x0.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&dp, p.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&dv, n * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&dg, grad.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&ds, n * sizeof(fx::solve_status)), "cudaMalloc");
    cudaMemcpy(dx, x0.data(), x0.size() * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dp, p.data(), p.size() * sizeof(double), cudaMemcpyHostToDevice);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n,
                          fx::soa(std::span<const double>(dx, x0.size())), fx::soa(std::span<const double>(dp, p.size())),
                          fx::log_density_buffers<double>{{dv, n}, {dg, grad.size()}, {ds, n}});
    fx::detail::check_cuda(cudaDeviceSynchronize(), "the log-density kernel");
    cudaMemcpy(value.data(), dv, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(grad.data(), dg, grad.size() * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(status.data(), ds, n * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
    for (void* ptr : {(void*)dx, (void*)dp, (void*)dv, (void*)dg, (void*)ds}) cudaFree(ptr);
  } else {
    std::printf("no usable CUDA device: evaluating %zu parameter sets on the host instead\n", n);
    const auto r = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n,
                                         fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(p)));
    value = r.value, grad = r.gradients, status = r.status;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  std::size_t failed = 0, best = 0;
  for (std::size_t b = 0; b < n; ++b) {
    failed += status[b] != fx::solve_status::success;
    if (value[b] > value[best]) best = b;
  }
  std::printf("%zu prior draws, log-density and its %zu-entry gradient on the %s in %.1f ms (first call, with the "
              "data's upload); %zu trajectories failed (log-density -inf)\n",
              n, columns, gpu ? "GPU" : "host", ms, failed);
  std::printf("best draw %zu: log p = %.4f at beta %.4f, sigma %.4f, gamma %.4f, rho %.4f, phi %.3f\n", best,
              value[best], p[0 * n + best], p[1 * n + best], p[2 * n + best], p[3 * n + best], p[4 * n + best]);

  // The first 64 sets against the host.
  constexpr std::size_t check = 64;
  std::vector<double> xs(4 * check), ps(seir::n_params * check);
  for (std::size_t b = 0; b < check; ++b) {
    for (int i = 0; i < 4; ++i) xs[std::size_t(i) * check + b] = x0[std::size_t(i) * n + b];
    for (int j = 0; j < seir::n_params; ++j) ps[std::size_t(j) * check + b] = p[std::size_t(j) * n + b];
  }
  const auto host = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, check,
                                          fx::soa(std::span<const double>(xs)), fx::soa(std::span<const double>(ps)));
  double worst = 0;
  for (std::size_t b = 0; b < check; ++b) {
    if (status[b] != fx::solve_status::success || host.status[b] != fx::solve_status::success) {
      worst = status[b] == host.status[b] ? worst : 1.0;
      continue;
    }
    worst = std::max(worst, std::abs(value[b] - host.value[b]) / std::max(1.0, std::abs(host.value[b])));
    double scale = 1;
    for (std::size_t j = 0; j < columns; ++j) scale = std::max(scale, std::abs(host.gradient(j, b)));
    for (std::size_t j = 0; j < columns; ++j)
      worst = std::max(worst, std::abs(grad[j * n + b] - host.gradient(j, b)) / scale);
  }
  std::printf("first %zu sets against the host: largest relative difference %.2e\n", check, worst);
  return worst < 1e-6 ? 0 : 1;
}
