// An intervention model on the GPU (issue 39): SEIR in fractions of the
// population with a lockdown switched on at day 30 (a state L, L' = 0, that
// an event sets to 1; transmission beta (1 - effect L)) and a vaccination
// pulse at day 60 (a fifth of S moved to R), t in [0, 120], per-trajectory
// i0, beta, sigma, gamma and effect, only the final state kept, adaptive
// Tsit5 with rtol = 1e-6, atol = 1e-8, through fx::cuda::integrate with
// fx::timed_events (the integration stops at both dates and restarts there).
// Median and minimum of 5 timed runs after 2 warm-ups (CUDA events around
// the call; inputs on the device); mean accepted steps; the largest error of
// the final states of 512 trajectories against the host in double at
// rtol = 1e-12, over the largest final value. One JSON object per line, as
// bench/intervention_diffrax.py prints its peer's:
//   {"impl": "fluxion-tsit5-events", "dtype": "f32", "N": 1000000, "median_ms": ..., ...}
// Usage: fluxion-bench-intervention [N ...]   (default 100000 1000000)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>  // the host reference

#include "intervention_model.hpp"

namespace fx = fluxion;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T>
void run(std::size_t N, const char* dtype) {
  using M = fx::compiled<intervention::seirl, T>;
  constexpr std::size_t n = M::n_states, np = M::n_params;
  std::vector<T> x0, p;
  intervention::inputs(N, 7, x0, p);
  T *dx0, *dp, *dfinal;
  fx::solve_status* dstatus;
  fx::solve_statistics* dstats;
  check(cudaMalloc(&dx0, n * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dp, np * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dfinal, n * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dstatus, N * sizeof(fx::solve_status)), "cudaMalloc");
  check(cudaMalloc(&dstats, N * sizeof(fx::solve_statistics)), "cudaMalloc");
  check(cudaMemcpy(dx0, x0.data(), n * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dp, p.data(), np * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  const fx::timed_events<T> ev = intervention::events<T>();
  const fx::ode_problem<T> pr{.t0 = 0, .t1 = 120, .rtol = T(1e-6), .atol = T(1e-8), .events = ev};
  const auto call = [&](const fx::ensemble_buffers<T>& out) {
    fx::cuda::integrate(M{}, fx::tsit5{}, pr, N, fx::soa(std::span<const T>(dx0, n * N)),
                        fx::soa(std::span<const T>(dp, np * N)), out);
  };
  const fx::ensemble_buffers<T> out{{}, {dfinal, n * N}, {dstatus, N}, {}};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 2; ++w) call(out);
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0);
    call(out);
    cudaEventRecord(e1);
    check(cudaEventSynchronize(e1), "timed run");
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  call(fx::ensemble_buffers<T>{{}, {dfinal, n * N}, {dstatus, N}, {dstats, N}});
  check(cudaDeviceSynchronize(), "run with statistics");
  std::vector<T> fin(n * N);
  std::vector<fx::solve_status> status(N);
  std::vector<fx::solve_statistics> stats(N);
  cudaMemcpy(fin.data(), dfinal, n * N * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(status.data(), dstatus, N * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
  cudaMemcpy(stats.data(), dstats, N * sizeof(fx::solve_statistics), cudaMemcpyDeviceToHost);
  double steps = 0;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < N; ++i) {
    steps += double(stats[i].accepted);
    failed += status[i] != fx::solve_status::success;
  }
  // Reference: the first 512 trajectories on the host, in double, rtol 1e-12.
  const std::size_t R = std::min<std::size_t>(512, N);
  std::vector<double> rx0(n * R), rp(np * R);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < R; ++i) rx0[k * R + i] = double(x0[k * N + i]);
  for (std::size_t k = 0; k < np; ++k)
    for (std::size_t i = 0; i < R; ++i) rp[k * R + i] = double(p[k * N + i]);
  using MD = fx::compiled<intervention::seirl, double>;
  const fx::timed_events<double> evd = intervention::events<double>();
  const fx::ode_problem<double> tight{.t0 = 0, .t1 = 120, .rtol = 1e-12, .atol = 1e-14, .events = evd};
  const auto ref = fx::host::integrate(MD{}, fx::tsit5{}, tight, R, fx::soa(std::span<const double>(rx0)),
                                       fx::soa(std::span<const double>(rp)));
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < R; ++i) {
      err = std::max(err, std::abs(double(fin[k * N + i]) - ref.final_value(k, i)));
      scale = std::max(scale, std::abs(ref.final_value(k, i)));
    }
  std::printf(
      "{\"impl\": \"fluxion-tsit5-events\", \"dtype\": \"%s\", \"N\": %zu, \"median_ms\": %.4f, \"min_ms\": %.4f, "
      "\"steps_mean\": %.2f, \"failed\": %zu, \"ref_err\": %.3g}\n",
      dtype, N, ms[2], ms[0], steps / double(N), failed, err / scale);
  std::fflush(stdout);
  // For the peer (bench/intervention_diffrax.py), in double: the inputs
  // (x0 then p, each [element][trajectory]) and the reference's final states
  // of the first R trajectories ([trajectory][state]), in DIR.
  if (const char* dir = std::getenv("INTERVENTION_DIR"); dir && dtype[1] == '6') {
    const auto write = [&](const std::string& name, const std::vector<double>& v) {
      FILE* f = std::fopen((std::string(dir) + "/" + name).c_str(), "wb");
      std::fwrite(v.data(), sizeof(double), v.size(), f);
      std::fclose(f);
    };
    std::vector<double> in(x0.begin(), x0.end());
    in.insert(in.end(), p.begin(), p.end());
    write("inputs_" + std::to_string(N) + ".f64", in);
    std::vector<double> finals;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < n; ++k) finals.push_back(ref.final_value(k, i));
    write("reference.f64", finals);
  }
  cudaFree(dx0);
  cudaFree(dp);
  cudaFree(dfinal);
  cudaFree(dstatus);
  cudaFree(dstats);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::strtoull(argv[a], nullptr, 10));
  if (sizes.empty()) sizes = {100000, 1000000};
  for (std::size_t N : sizes) {
    run<float>(N, "f32");
    run<double>(N, "f64");
  }
}
