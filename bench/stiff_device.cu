// Model C of BENCHMARKS.md on the GPU: Robertson ensembles, per-trajectory
// rate constants (0.04, 3e7, 1e4) times uniform(0.5, 1.5), y0 = (1, 0, 0),
// t in [0, 1e5], through fx::cuda::integrate with Rodas5P and Rosenbrock23:
// f64 rtol 1e-6 / atol 1e-10, f32 rtol 1e-4 / atol 1e-7, first step 1e-6,
// the final state only ("final") or also the 20 save times of the peers
// ("saveat", served by dense output). With --ladder, Rodas5P in f64 also runs
// (final state) at rtol and atol both scaled by 0.8, 0.6, 0.45, 0.35 and
// 0.25: the points that compare it with the peer's Rodas5 at matched error
// (the two methods have different error constants, so equal tolerances do
// not give equal errors; bench/solver_ratios.py prints the comparison).
// The rate constants are read from a file the peers' generator wrote (so
// both integrate the same trajectories), and the error is the largest relative error of the final states of the
// first 256 trajectories against the shipped Radau reference, per component,
// as peers/stiff_peers.py computes it. One JSON object per line.
// Usage: fluxion-bench-stiff K_FILE REF_NPY [--ladder] [N ...]
//   K_FILE: N_max x 3 doubles, trajectory-major (numpy's tofile of (N, 3));
//   REF_NPY: peers/robertson_ref_seed7_n256_radau1e-10.npy
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fluxion/cuda.hpp>

namespace fx = fluxion;

namespace {

constexpr fx::state<"y1"> Y1;
constexpr fx::state<"y2"> Y2;
constexpr fx::state<"y3"> Y3;
constexpr fx::param<"k1"> K1;
constexpr fx::param<"k2"> K2;
constexpr fx::param<"k3"> K3;
constexpr auto robertson = fx::model(fx::states(Y1, Y2, Y3), fx::params(K1, K2, K3),  //
                                     fx::d(Y1) = -K1 * Y1 + K3 * Y2 * Y3,             //
                                     fx::d(Y2) = K1 * Y1 - K2 * Y2 * Y2 - K3 * Y2 * Y3,  //
                                     fx::d(Y3) = K2 * Y2 * Y2);

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

std::vector<double> read_doubles(const std::string& path, std::size_t skip_header_npy) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::size_t offset = 0;
  if (skip_header_npy) {  // .npy: magic, version, header length, header
    const unsigned major = static_cast<unsigned char>(bytes[6]);
    const std::size_t len = major == 1 ? std::size_t(static_cast<unsigned char>(bytes[8])) |
                                             std::size_t(static_cast<unsigned char>(bytes[9])) << 8
                                       : std::size_t(static_cast<unsigned char>(bytes[8])) |
                                             std::size_t(static_cast<unsigned char>(bytes[9])) << 8 |
                                             std::size_t(static_cast<unsigned char>(bytes[10])) << 16;
    offset = (major == 1 ? 10 : 12) + len;
  }
  if (bytes.size() < offset + sizeof(double)) {
    std::fprintf(stderr, "%s holds no values\n", path.c_str());
    std::exit(1);
  }
  std::vector<double> v((bytes.size() - offset) / sizeof(double));
  std::memcpy(v.data(), bytes.data() + offset, v.size() * sizeof(double));
  return v;
}

template <class T, class Method>
void run(const char* method_name, Method method, const char* dtype, std::size_t N, bool saveat,
         const std::vector<double>& k_all, const std::vector<double>& ref, double tolerance_scale = 1) {
  using M = fx::compiled<robertson, T>;
  std::vector<T> x0(3 * N, T(0)), p(3 * N);
  for (std::size_t i = 0; i < N; ++i) {
    x0[i] = T(1);
    for (int j = 0; j < 3; ++j) p[std::size_t(j) * N + i] = T(k_all[3 * i + std::size_t(j)]);
  }
  std::vector<T> ts(20);
  for (int s = 0; s < 20; ++s) ts[std::size_t(s)] = T(std::pow(10.0, -4.0 + 9.0 * s / 19.0));
  ts[19] = T(1e5);
  const bool f64 = sizeof(T) == 8;
  const double rtol = (f64 ? 1e-6 : 1e-4) * tolerance_scale, atol = (f64 ? 1e-10 : 1e-7) * tolerance_scale;
  fx::ode_problem<T> pr{.t0 = 0, .t1 = T(1e5), .rtol = T(rtol), .atol = T(atol), .initial_step = T(1e-6)};
  if (saveat) pr.save_times = ts;
  const std::size_t n_save = saveat ? ts.size() : 0;
  T *dx0, *dp, *dsaved = nullptr, *dfinal;
  fx::solve_status* dstatus;
  fx::solve_statistics* dstats;
  check(cudaMalloc(&dx0, 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dp, 3 * N * sizeof(T)), "cudaMalloc");
  if (n_save) check(cudaMalloc(&dsaved, n_save * 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dfinal, 3 * N * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dstatus, N * sizeof(fx::solve_status)), "cudaMalloc");
  check(cudaMalloc(&dstats, N * sizeof(fx::solve_statistics)), "cudaMalloc");
  check(cudaMemcpy(dx0, x0.data(), 3 * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dp, p.data(), 3 * N * sizeof(T), cudaMemcpyHostToDevice), "copy");
  const fx::ensemble_buffers<T> out{{dsaved, n_save * 3 * N}, {dfinal, 3 * N}, {dstatus, N}, {}};
  auto call = [&](const fx::ensemble_buffers<T>& o) {
    fx::cuda::integrate(M{}, method, pr, N, fx::soa(std::span<const T>(dx0, 3 * N)),
                        fx::soa(std::span<const T>(dp, 3 * N)), o);
  };
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
  call({{dsaved, n_save * 3 * N}, {dfinal, 3 * N}, {dstatus, N}, {dstats, N}});
  check(cudaDeviceSynchronize(), "run with statistics");
  std::vector<T> fin(3 * N);
  std::vector<fx::solve_status> status(N);
  std::vector<fx::solve_statistics> stats(N);
  cudaMemcpy(fin.data(), dfinal, 3 * N * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(status.data(), dstatus, N * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
  cudaMemcpy(stats.data(), dstats, N * sizeof(fx::solve_statistics), cudaMemcpyDeviceToHost);
  double acc = 0, rej = 0;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < N; ++i) {
    acc += double(stats[i].accepted);
    rej += double(stats[i].rejected);
    failed += status[i] != fx::solve_status::success;
  }
  double err[3] = {0, 0, 0};
  const std::size_t R = std::min<std::size_t>(256, N);
  for (std::size_t i = 0; i < R; ++i)
    for (int c = 0; c < 3; ++c) {
      const double r = ref[(i * 20 + 19) * 3 + std::size_t(c)];
      err[c] = std::max(err[c], std::abs(double(fin[std::size_t(c) * N + i]) - r) / std::max(std::abs(r), 1e-12));
    }
  std::printf(
      "{\"impl\": \"fluxion-%s\", \"dtype\": \"%s\", \"N\": %zu, \"mode\": \"%s\", \"rtol\": %.3g, "
      "\"atol\": %.3g, \"tolerance_scale\": %.3g, \"median_ms\": %.4f, "
      "\"min_ms\": %.4f, \"traj_per_s\": %.4g, \"steps_mean\": %.2f, \"rejected_mean\": %.2f, \"failed\": %zu, "
      "\"max_rel_err_final\": [%.3g, %.3g, %.3g]}\n",
      method_name, dtype, N, saveat ? "saveat" : "final", rtol, atol, tolerance_scale, ms[2], ms[0],
      double(N) / (ms[2] * 1e-3), acc / double(N),
      rej / double(N), failed, err[0], err[1], err[2]);
  std::fflush(stdout);
  cudaFree(dx0);
  cudaFree(dp);
  if (dsaved) cudaFree(dsaved);
  cudaFree(dfinal);
  cudaFree(dstatus);
  cudaFree(dstats);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fluxion-bench-stiff K_FILE REF_NPY [N ...]\n");
    return 2;
  }
  const auto k_all = read_doubles(argv[1], 0);
  const auto ref = read_doubles(argv[2], 1);
  std::vector<std::size_t> sizes;
  bool ladder = false;
  for (int a = 3; a < argc; ++a) {
    if (std::strcmp(argv[a], "--ladder") == 0)
      ladder = true;
    else
      sizes.push_back(std::strtoull(argv[a], nullptr, 10));
  }
  if (sizes.empty()) sizes = {10000, 100000, 1000000};
  for (std::size_t N : sizes) {
    if (3 * N > k_all.size()) {
      std::fprintf(stderr, "K_FILE holds fewer than %zu trajectories\n", N);
      return 2;
    }
    for (bool saveat : {false, true}) {
      run<double>("rodas5p", fx::rodas5p{}, "f64", N, saveat, k_all, ref);
      run<double>("rosenbrock23", fx::rosenbrock23{}, "f64", N, saveat, k_all, ref);
    }
    if (ladder)
      for (double scale : {0.8, 0.6, 0.45, 0.35, 0.25})
        run<double>("rodas5p", fx::rodas5p{}, "f64", N, false, k_all, ref, scale);
  }
  const std::size_t big = sizes.back();
  run<float>("rodas5p", fx::rodas5p{}, "f32", big, false, k_all, ref);
  run<float>("rosenbrock23", fx::rosenbrock23{}, "f32", big, false, k_all, ref);
}
