// Model B of BENCHMARKS.md on the GPU: Lorenz ensembles, t in [0, 1],
// per-trajectory u0 in [0.5, 1.5]^3 and (sigma, rho, beta) in [5, 15] x
// [20, 30] x [2, 3], only the final state kept, adaptive Tsit5 with
// rtol = atol = 1e-6 (each trajectory its own steps), through
// fx::cuda::integrate. Median and minimum of 5 timed runs after 2 warm-ups
// (CUDA events around the call; the inputs stay on the device), the mean
// accepted steps, and the largest relative error of the final states of 512
// trajectories against the host integration in double at rtol = 1e-12.
// One JSON object per line, as peers/ode_peers.py prints them:
//   {"impl": "fluxion-tsit5", "dtype": "f32", "N": 1000000, "mode": "adaptive", "median_ms": ..., ...}
// Usage: fluxion-bench-ensemble [N ...]   (default 100000 1000000)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>  // the host batches it compares with

namespace fx = fluxion;

namespace {

constexpr fx::state<"x"> X;
constexpr fx::state<"y"> Y;
constexpr fx::state<"z"> Z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;
constexpr auto lorenz = fx::model(fx::states(X, Y, Z), fx::params(sigma, rho, beta),  //
                                  fx::d(X) = sigma * (Y - X),                         //
                                  fx::d(Y) = X * (rho - Z) - Y,                       //
                                  fx::d(Z) = X * Y - beta * Z);

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// SoA inputs: u0 (3 rows of N) and p (3 rows of N).
template <class T>
void inputs(std::size_t N, std::uint64_t seed, std::vector<T>& u0, std::vector<T>& p) {
  std::mt19937_64 rng(seed);
  u0.resize(3 * N);
  p.resize(3 * N);
  std::uniform_real_distribution<double> a(0.5, 1.5), s(5, 15), r(20, 30), b(2, 3);
  for (std::size_t i = 0; i < 3 * N; ++i) u0[i] = T(a(rng));
  for (std::size_t i = 0; i < N; ++i) p[i] = T(s(rng)), p[N + i] = T(r(rng)), p[2 * N + i] = T(b(rng));
}

template <class T>
void run(std::size_t N, const char* dtype) {
  using M = fx::compiled<lorenz, T>;
  std::vector<T> u0, p;
  inputs(N, 3, u0, p);
  T *du0, *dp, *dfinal;
  fx::solve_status* dstatus;
  fx::solve_statistics* dstats;
  check(cudaMalloc(&du0, 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dp, 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dfinal, 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dstatus, N * sizeof(fx::solve_status)), "cudaMalloc");
  check(cudaMalloc(&dstats, N * sizeof(fx::solve_statistics)), "cudaMalloc");
  check(cudaMemcpy(du0, u0.data(), 3 * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dp, p.data(), 3 * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  fx::ode_problem<T> pr{.t0 = 0, .t1 = 1, .rtol = T(1e-6), .atol = T(1e-6), .initial_step = T(1e-3)};
  const fx::ensemble_buffers<T> out{{}, {dfinal, 3 * N}, {dstatus, N}, {}};
  auto call = [&] {
    fx::cuda::integrate(M{}, fx::tsit5{}, pr, N, fx::soa(std::span<const T>(du0, 3 * N)),
                        fx::soa(std::span<const T>(dp, 3 * N)), out);
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 2; ++w) call();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0);
    call();
    cudaEventRecord(e1);
    check(cudaEventSynchronize(e1), "timed run");
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  // Steps and statuses of one more run, with statistics.
  const fx::ensemble_buffers<T> with_stats{{}, {dfinal, 3 * N}, {dstatus, N}, {dstats, N}};
  fx::cuda::integrate(M{}, fx::tsit5{}, pr, N, fx::soa(std::span<const T>(du0, 3 * N)),
                      fx::soa(std::span<const T>(dp, 3 * N)), with_stats);
  check(cudaDeviceSynchronize(), "run with statistics");
  std::vector<T> fin(3 * N);
  std::vector<fx::solve_status> status(N);
  std::vector<fx::solve_statistics> stats(N);
  cudaMemcpy(fin.data(), dfinal, 3 * N * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(status.data(), dstatus, N * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
  cudaMemcpy(stats.data(), dstats, N * sizeof(fx::solve_statistics), cudaMemcpyDeviceToHost);
  double steps = 0;
  std::size_t failed = 0;
  long long steps_max = 0;
  for (std::size_t i = 0; i < N; ++i) {
    steps += double(stats[i].accepted);
    steps_max = std::max<long long>(steps_max, stats[i].accepted);
    failed += status[i] != fx::solve_status::success;
  }
  // Reference: the first 512 trajectories on the host, in double, rtol 1e-12.
  const std::size_t R = std::min<std::size_t>(512, N);
  std::vector<double> ru0(3 * R), rp(3 * R);
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < R; ++i) ru0[k * R + i] = double(u0[k * N + i]), rp[k * R + i] = double(p[k * N + i]);
  using MD = fx::compiled<lorenz, double>;
  fx::ode_problem<double> tight{.t0 = 0, .t1 = 1, .rtol = 1e-12, .atol = 1e-12};
  const auto ref = fx::host::integrate(MD{}, fx::tsit5{}, tight, R, fx::soa(std::span<const double>(ru0)),
                                       fx::soa(std::span<const double>(rp)));
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < R; ++i) {
      err = std::max(err, std::abs(double(fin[k * N + i]) - ref.final_value(k, i)));
      scale = std::max(scale, std::abs(ref.final_value(k, i)));
    }
  std::printf(
      "{\"impl\": \"fluxion-tsit5\", \"dtype\": \"%s\", \"N\": %zu, \"mode\": \"adaptive\", \"median_ms\": %.4f, "
      "\"min_ms\": %.4f, \"traj_per_s\": %.4g, \"steps_mean\": %.2f, \"steps_max\": %lld, \"failed\": %zu, "
      "\"ref_err\": %.3g}\n",
      dtype, N, ms[2], ms[0], double(N) / (ms[2] * 1e-3), steps / double(N), steps_max, failed, err / scale);
  std::fflush(stdout);
  cudaFree(du0);
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
