// fluxion's side of the work-precision diagram (bench/work_precision.py):
// Lorenz ensembles (Model B of BENCHMARKS.md) on the GPU at a ladder of
// tolerances, each explicit method, float64. The inputs come from a file the
// script writes (so that fluxion and the peers integrate the same
// trajectories): u0 then p, each 3 rows of N doubles (SoA). For every
// (method, rtol = atol) it prints one JSON line with the median of 3 timed
// runs after one warm-up (CUDA events, data on the device) and writes the
// final states of the first 512 trajectories (3 rows of 512 doubles) to
// OUTDIR/fluxion-<method>-<rtol>.bin for the script to compare against its
// reference.
// Usage: fluxion-bench-work-precision INPUT.bin N OUTDIR
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include <fluxion/cuda.hpp>
#if __has_include(<fluxion/solve/vern7.hpp>)
#  include <fluxion/solve/vern7.hpp>
#  define FLUXION_BENCH_VERN7 1
#endif

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
using M = fx::compiled<lorenz, double>;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class Method>
void ladder(const char* name, std::size_t N, const double* du0, const double* dp, const char* outdir) {
  double *dfinal;
  fx::solve_status* dstatus;
  fx::solve_statistics* dstats;
  check(cudaMalloc(&dfinal, 3 * N * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&dstatus, N * sizeof(fx::solve_status)), "cudaMalloc");
  check(cudaMalloc(&dstats, N * sizeof(fx::solve_statistics)), "cudaMalloc");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int ex = 3; ex <= 12; ++ex) {
    char rtol_text[16];
    std::snprintf(rtol_text, sizeof rtol_text, "1e-%02d", ex);
    const double tol = std::strtod(rtol_text, nullptr);
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .rtol = tol, .atol = tol};
    const fx::ensemble_buffers<double> out{{}, {dfinal, 3 * N}, {dstatus, N}, {dstats, N}};
    auto call = [&] {
      fx::cuda::integrate(M{}, Method{}, pr, N, fx::soa(std::span<const double>(du0, 3 * N)),
                          fx::soa(std::span<const double>(dp, 3 * N)), out);
    };
    call();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<float> ms;
    for (int r = 0; r < 3; ++r) {
      cudaEventRecord(e0);
      call();
      cudaEventRecord(e1);
      check(cudaEventSynchronize(e1), "timed run");
      float t = 0;
      cudaEventElapsedTime(&t, e0, e1);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<double> fin(3 * N);
    std::vector<fx::solve_status> status(N);
    std::vector<fx::solve_statistics> stats(N);
    cudaMemcpy(fin.data(), dfinal, 3 * N * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(status.data(), dstatus, N * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
    cudaMemcpy(stats.data(), dstats, N * sizeof(fx::solve_statistics), cudaMemcpyDeviceToHost);
    std::size_t failed = 0;
    double steps = 0, rhs = 0;
    for (std::size_t i = 0; i < N; ++i) {
      failed += status[i] != fx::solve_status::success;
      steps += double(stats[i].accepted);
      rhs += double(stats[i].rhs_evaluations);
    }
    const std::size_t R = std::min<std::size_t>(512, N);
    const std::string path = std::string(outdir) + "/fluxion-" + name + "-" + rtol_text + ".bin";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      for (int k = 0; k < 3; ++k) std::fwrite(&fin[std::size_t(k) * N], sizeof(double), R, f);
      std::fclose(f);
    }
    std::printf(
        "{\"impl\": \"fluxion-%s\", \"dtype\": \"f64\", \"N\": %zu, \"rtol\": %s, \"median_ms\": %.4f, "
        "\"min_ms\": %.4f, \"steps_mean\": %.2f, \"rhs_mean\": %.2f, \"failed\": %zu, \"final_states\": \"%s\"}\n",
        name, N, rtol_text, ms[1], ms[0], steps / double(N), rhs / double(N), failed, path.c_str());
    std::fflush(stdout);
  }
  cudaFree(dfinal), cudaFree(dstatus), cudaFree(dstats);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fluxion-bench-work-precision INPUT.bin N OUTDIR\n");
    return 2;
  }
  const std::size_t N = std::strtoull(argv[2], nullptr, 10);
  std::vector<double> host(6 * N);
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(host.data(), sizeof(double), host.size(), f) != host.size()) {
    std::fprintf(stderr, "cannot read %zu doubles from %s\n", host.size(), argv[1]);
    return 1;
  }
  std::fclose(f);
  double *du0, *dp;
  check(cudaMalloc(&du0, 3 * N * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&dp, 3 * N * sizeof(double)), "cudaMalloc");
  check(cudaMemcpy(du0, host.data(), 3 * N * sizeof(double), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dp, host.data() + 3 * N, 3 * N * sizeof(double), cudaMemcpyHostToDevice), "copy");
  ladder<fx::tsit5>("tsit5", N, du0, dp, argv[3]);
#ifdef FLUXION_BENCH_VERN7
  ladder<fx::vern7>("vern7", N, du0, dp, argv[3]);
#endif
  cudaFree(du0), cudaFree(dp);
}
