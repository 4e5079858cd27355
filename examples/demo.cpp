// Quick start: one model, its layout, and a batch of 4096 instances.
//
// A seasonally forced SIR model is written once as expressions; fluxion
// compiles it into an evaluator with a fixed flat layout, and the host batch
// driver evaluates 4096 parameter sets stored structure-of-arrays (instance
// fastest, the layout GPUs prefer). The summary checks that the population is
// conserved in every instance. Built by nvcc (examples/demo_gpu.cu includes
// this file) it evaluates the batch on the GPU when one is usable, and says
// which device it used.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <fluxion/fluxion.hpp>  // the host batches
#if defined(__CUDACC__)
#  include <fluxion/cuda.hpp>  // the GPU launchers (nvcc)
#endif

namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta0"> beta0;
constexpr fx::param<"amp"> amp;
constexpr fx::param<"gamma"> gam;
constexpr fx::constant<"two_pi", 6.283185307179586> two_pi;

constexpr auto N = fx::alias<"N">(S + I + R);
constexpr auto infection = fx::alias<"infection">(beta0 * (1.0 + amp * fx::cos(two_pi * fx::t / 365.0)) * S * I / N);
constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta0, amp, gam),
                               fx::d(S) = -infection, fx::d(I) = infection - gam * I, fx::d(R) = gam * I,
                               fx::observe<"incidence">() = infection, fx::observe<"prevalence">() = I / N);
using M = fx::compiled<sir, double>;

// A template, so that nvcc's host code generation keeps the model's types
// symbolic (demo_gpu.cu compiles this file with nvcc).
template <class Evaluator = M>
int run() {
  std::printf("%s", fx::layout_table(typename Evaluator::layout{}).c_str());

  // SoA buffers: element j of instance b at [j * B + b].
  constexpr std::size_t B = 4096;
  std::vector<double> x(Evaluator::n_states * B), p(Evaluator::n_params * B), dx(Evaluator::n_states * B), y(Evaluator::n_observables * B);
  for (std::size_t b = 0; b < B; ++b) {
    const double u = double(b) / (B - 1);  // sweep every parameter across the batch
    x[0 * B + b] = 1e5 * (1 - 0.5 * u);
    x[1 * B + b] = 10 + 990 * std::fmod(7 * u, 1.0);
    x[2 * B + b] = 1e4 * u;
    p[0 * B + b] = 0.2 + 0.4 * u;                   // beta0
    p[1 * B + b] = 0.4 * std::fmod(3 * u, 1.0);    // amp
    p[2 * B + b] = 0.1 + 0.15 * std::fmod(5 * u, 1.0);  // gamma
  }
  const double t = 30.0;
  const char* where = "host";
  bool on_device = false;
#if defined(__CUDACC__)
  int devices = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    double *xd, *pd, *dxd, *yd;
    fx::detail::check_cuda(cudaMalloc(&xd, x.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&pd, p.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&dxd, dx.size() * sizeof(double)), "cudaMalloc");
    fx::detail::check_cuda(cudaMalloc(&yd, y.size() * sizeof(double)), "cudaMalloc");
    cudaMemcpy(xd, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(pd, p.data(), p.size() * sizeof(double), cudaMemcpyHostToDevice);
    fx::cuda::rhs(Evaluator{}, t, B, std::span<const double>(xd, x.size()), std::span<const double>(pd, p.size()),
                  std::span<double>(dxd, dx.size()));
    fx::cuda::observe(Evaluator{}, t, B, std::span<const double>(xd, x.size()), std::span<const double>(pd, p.size()),
                      std::span<double>(yd, y.size()));
    fx::detail::check_cuda(cudaMemcpy(dx.data(), dxd, dx.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    fx::detail::check_cuda(cudaMemcpy(y.data(), yd, y.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(xd), cudaFree(pd), cudaFree(dxd), cudaFree(yd);
    where = prop.name;
    on_device = true;
  } else {
    cudaGetLastError();
    std::printf("\nno usable CUDA device: evaluating on the host\n");
  }
#endif
  if (!on_device) {
    fx::host::rhs(Evaluator{}, t, B, fx::soa(x), fx::soa(p), fx::soa(dx));
    fx::host::observe(Evaluator{}, t, B, fx::soa(x), fx::soa(p), fx::soa(y));
  }

  auto summary = [](const char* name, const double* v) {
    const auto [lo, hi] = std::minmax_element(v, v + B);
    double mean = 0;
    for (std::size_t b = 0; b < B; ++b) mean += v[b] / B;
    std::printf("  %-12s min %11.4g  mean %11.4g  max %11.4g\n", name, *lo, mean, *hi);
  };
  std::printf("\n%zu instances at t = %.0f (SoA), evaluated on: %s\n", B, t, where);
  summary("dI/dt", &dx[1 * B]);
  summary("incidence", &y[0 * B]);
  summary("prevalence", &y[1 * B]);

  double worst = 0;  // |dS + dI + dR| relative to the flows, over the batch
  for (std::size_t b = 0; b < B; ++b) {
    const double flows = std::abs(dx[b]) + std::abs(dx[B + b]) + std::abs(dx[2 * B + b]);
    worst = std::max(worst, std::abs(dx[b] + dx[B + b] + dx[2 * B + b]) / flows);
  }
  std::printf("population conserved: max |dS + dI + dR| / flows = %.1e\n", worst);
  return worst < 1e-14 ? 0 : 1;
}

int main() { return run(); }
