// Device benchmark of Model A (BENCHMARKS.md): rhs, observe and sparse jac_x
// values, one thread an instance, structure-of-arrays batches, float and
// double. One JSON line a measurement; times are medians of CUDA-event
// timings after warm-up.
//   fluxion-bench-device [--sweep]
#include <fluxion/cuda.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device_timing.hpp"
#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

using bench::device_vec;
using bench::median_ms;

template <class T>
void fill(device_vec<T>& v, unsigned seed, double lo, double hi) {
  std::vector<T> h(v.n);
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (auto& e : h) e = T(u(g));
  fx::detail::check_cuda(cudaMemcpy(v.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
}

template <class T>
void run(std::size_t B, bool with_jac, bool with_observe) {
  using M = fx::compiled<model_a::model, T>;
  const char* dt = sizeof(T) == 8 ? "f64" : "f32";
  device_vec<T> x(M::n_states * B), p(M::n_params * B), dx(M::n_states * B), y(M::n_observables * B);
  fill(x, 1, 0.1, 1.0);
  fill(p, 2, 0.01, 0.5);
  const double ms = median_ms([&] { fx::cuda::rhs(M{}, T(0), B, x.cspan(), p.cspan(), dx.span()); });
  const double bytes = double(B) * (2.0 * M::n_states + M::n_params) * sizeof(T);
  std::printf("{\"bench\": \"rhs\", \"target\": \"device\", \"layout\": \"soa\", \"dtype\": \"%s\", \"B\": %zu, \"ms\": %.4f, "
              "\"ns_per_instance\": %.4f, \"GBps\": %.1f}\n", dt, B, ms, ms * 1e6 / double(B), bytes / (ms * 1e-3) / 1e9);
  if (with_observe) {
    const double mo = median_ms([&] { fx::cuda::observe(M{}, T(0), B, x.cspan(), p.cspan(), y.span()); });
    // No GBps: an observable reads only the states it names (Model A's: E and sigma).
    std::printf("{\"bench\": \"observe\", \"target\": \"device\", \"layout\": \"soa\", \"dtype\": \"%s\", \"B\": %zu, \"ms\": %.4f, "
                "\"ns_per_instance\": %.4f}\n", dt, B, mo, mo * 1e6 / double(B));
  }
  if (with_jac) {
    const std::size_t nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();
    device_vec<T> vals(nnz * B);
    const double mj = median_ms([&] {
      fx::cuda::jacobian_values<M, M::jacobian::x>(M{}, T(0), B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::soa(vals.span()), nnz);
    }, 10);
    std::printf("{\"bench\": \"jac_x_sparse_values\", \"target\": \"device\", \"layout\": \"soa\", \"dtype\": \"%s\", \"B\": %zu, "
                "\"ms\": %.4f, \"ns_per_instance\": %.4f, \"nnz\": %zu}\n", dt, B, mj, mj * 1e6 / double(B), nnz);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool sweep = argc > 1 && std::strcmp(argv[1], "--sweep") == 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 1;
  }
  std::printf("# device: %s\n", prop.name);
  run<double>(std::size_t(1) << 20, false, true);
  run<float>(std::size_t(1) << 20, false, true);
  run<double>(16384, true, false);
  run<float>(16384, true, false);
  if (sweep)
    for (int e = 10; e <= 22; e += 2) {
      run<double>(std::size_t(1) << e, false, false);
      run<float>(std::size_t(1) << e, false, false);
    }
  return 0;
}
