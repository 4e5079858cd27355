// Model A over a parameter grid on the GPU (examples/model_a_grid.hpp): G x G
// trajectories (default G = 256: 2^16), t in [0, 200], the states of all 128
// compartments at 10 save times, adaptive Tsit5 with rtol = atol = 1e-6,
// through fx::cuda::integrate, in float and double, a thread and a warp a
// trajectory. Median and minimum of 5
// timed runs after 2 warm-ups (CUDA events around the call; inputs and
// outputs stay on the device), mean and largest accepted steps.
// One JSON object per line, as the peer (bench/peers/model_a_grid_diffrax.py)
// prints them:
//   {"impl": "fluxion-tsit5", "model": "model_a_grid", "dtype": "f64", "N": 65536, "median_ms": ...}
// With SAMPLE_DIR, writes the final states of the sampled trajectories
// b = 0, 256, 512, ... (256 of them; canonical order (c P + p) K + k, double)
// to SAMPLE_DIR/fluxion_model_a_grid_<dtype>.bin, for the peer to compare
// against its own tight reference.
// Usage: fluxion-bench-model-a-grid [G [SAMPLE_DIR]]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <fluxion/cuda.hpp>

#include "../examples/model_a_grid.hpp"

namespace fx = fluxion;
using namespace model_a_grid;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Policy: a thread a trajectory (impl "fluxion-tsit5") or a warp a
// trajectory ("fluxion-tsit5-warp", solve/cooperative.hpp).
template <class T, class Policy>
void run(std::size_t G, const char* dtype, const char* sample_dir) {
  constexpr bool by_warp = std::is_same_v<Policy, fx::cuda::warp_per_trajectory>;
  using M = fx::compiled<model, T>;
  using LS = typename M::layout::state;
  constexpr std::size_t n = M::n_states;
  const std::size_t B = G * G;
  std::vector<T> x0, prm;
  grid_inputs(G, x0, prm);
  const auto ts_d = save_times();
  const std::vector<T> ts(ts_d.begin(), ts_d.end());
  const fx::ode_problem<T> pr{.t0 = 0, .t1 = T(t_end), .save_times = ts, .rtol = T(1e-6), .atol = T(1e-6)};
  T *dx0, *dp, *dsaved, *dfinal;
  fx::solve_status* dstatus;
  fx::solve_statistics* dstats;
  check(cudaMalloc(&dx0, x0.size() * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dp, prm.size() * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dsaved, ts.size() * n * B * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dfinal, n * B * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&dstatus, B * sizeof(fx::solve_status)), "cudaMalloc");
  check(cudaMalloc(&dstats, B * sizeof(fx::solve_statistics)), "cudaMalloc");
  check(cudaMemcpy(dx0, x0.data(), x0.size() * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dp, prm.data(), prm.size() * sizeof(T), cudaMemcpyHostToDevice), "copy");
  const fx::ensemble_buffers<T> out{{dsaved, ts.size() * n * B}, {dfinal, n * B}, {dstatus, B}, {}};
  // FLUXION_GRID_CHUNK=C (an experiment): C trajectories a launch, one
  // launch after another, so that fewer trajectories' stages are live at once.
  const char* chunk_env = std::getenv("FLUXION_GRID_CHUNK");
  const std::size_t chunk =
      chunk_env && !by_warp ? std::max<std::size_t>(1, std::strtoull(chunk_env, nullptr, 10)) : B;
  auto call = [&](const fx::ensemble_buffers<T>& o) {
    if (chunk >= B) {
      fx::cuda::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const T>(dx0, x0.size())),
                          fx::soa(std::span<const T>(dp, prm.size())), o, Policy{});
      return;
    }
    // A chunk reads a strided view of the inputs (element j of trajectory b
    // at j B + b) and writes its own outputs, carved from the full ones.
    for (std::size_t b0 = 0; b0 < B; b0 += chunk) {
      const std::size_t c = std::min(chunk, B - b0);
      const auto view = [&](const T* base, std::size_t elements) {
        return fx::strided(std::span<const T>(base + b0, (elements - 1) * B + c), std::ptrdiff_t(B), 1);
      };
      const fx::ensemble_buffers<T> part{{o.saved.data() + b0 * ts.size() * n, ts.size() * n * c},
                                         {o.final_state.data() + b0 * n, n * c},
                                         {o.status.data() + b0, c},
                                         {}};
      fx::cuda::integrate(M{}, fx::tsit5{}, pr, c, view(dx0, n), view(dp, M::n_params), part);
    }
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
  const fx::ensemble_buffers<T> with_stats{out.saved, out.final_state, out.status, {dstats, B}};
  fx::cuda::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const T>(dx0, x0.size())),
                      fx::soa(std::span<const T>(dp, prm.size())), with_stats, Policy{});
  check(cudaDeviceSynchronize(), "run with statistics");
  std::vector<T> fin(n * B);
  std::vector<fx::solve_status> status(B);
  std::vector<fx::solve_statistics> stats(B);
  cudaMemcpy(fin.data(), dfinal, n * B * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(status.data(), dstatus, B * sizeof(fx::solve_status), cudaMemcpyDeviceToHost);
  cudaMemcpy(stats.data(), dstats, B * sizeof(fx::solve_statistics), cudaMemcpyDeviceToHost);
  double steps = 0;
  long long steps_max = 0;
  std::size_t failed = 0;
  for (std::size_t b = 0; b < B; ++b) {
    steps += double(stats[b].accepted);
    steps_max = std::max<long long>(steps_max, stats[b].accepted);
    failed += status[b] != fx::solve_status::success;
  }
  if (sample_dir) {
    const std::string path =
        std::string(sample_dir) + "/fluxion_model_a_grid_" + dtype + (by_warp ? "_warp" : "") + ".bin";
    std::vector<double> sample;
    const std::size_t stride = std::max<std::size_t>(1, B / 256);
    for (std::size_t b = 0; b < B; b += stride)
      for (int c = 0; c < 4; ++c)
        for (int pp = 0; pp < P; ++pp)
          for (int kk = 0; kk < K; ++kk) {
            const std::size_t off = c == 0   ? LS::offset(S, pp, kk)
                                    : c == 1 ? LS::offset(E, pp, kk)
                                    : c == 2 ? LS::offset(I, pp, kk)
                                             : LS::offset(R, pp, kk);
            sample.push_back(double(fin[off * B + b]));
          }
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(sample.data(), sizeof(double), sample.size(), f);
      std::fclose(f);
    }
  }
  std::printf(
      "{\"impl\": \"%s\", \"model\": \"model_a_grid\", \"dtype\": \"%s\", \"N\": %zu, \"states\": %zu, "
      "\"saves\": %zu, \"median_ms\": %.4f, \"min_ms\": %.4f, \"traj_per_s\": %.4g, \"steps_mean\": %.2f, "
      "\"steps_max\": %lld, \"failed\": %zu, \"chunk\": %zu}\n",
      by_warp ? "fluxion-tsit5-warp" : "fluxion-tsit5", dtype, B, n, ts.size(), ms[2], ms[0], double(B) / (ms[2] * 1e-3), steps / double(B), steps_max, failed, chunk);
  std::fflush(stdout);
  cudaFree(dx0), cudaFree(dp), cudaFree(dsaved), cudaFree(dfinal), cudaFree(dstatus), cudaFree(dstats);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t G = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  const char* sample_dir = argc > 2 ? argv[2] : nullptr;
  run<float, fx::cuda::thread_per_trajectory>(G, "f32", sample_dir);
  run<double, fx::cuda::thread_per_trajectory>(G, "f64", sample_dir);
  run<float, fx::cuda::warp_per_trajectory>(G, "f32", sample_dir);
  run<double, fx::cuda::warp_per_trajectory>(G, "f64", sample_dir);
}
