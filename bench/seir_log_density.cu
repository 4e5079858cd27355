// The SEIR example's log-density (examples/seir_model.hpp: 70 days of
// negative binomial incidence, 5 missing, right-censored above 1,000) and
// its gradient for N parameter sets on the GPU, in float and double, with
// and without the gradient; then on the host CPU (one thread) the cost of
// the gradient as a multiple of one solve. Prints JSON lines.
//
//   fluxion-bench-seir-log-density OUTDIR [N]
//
// Writes OUTDIR/seir_data.csv (the data, for bench/peers/seir_log_density_jax.py
// and bench/python_bench.py) and OUTDIR/seir_sets.f64 (the initial states and
// parameter sets, for bench/python_bench.py) first. The parameter sets and the host part: bench/seir_bench.hpp. Variants: "full" (the example's
// data) and "exact" (the censored days masked too: what a peer without
// differentiable censoring sees).
#include <fluxion/cuda.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "seir_bench.hpp"

namespace fx = fluxion;

namespace {

using seir_bench::parameter_sets;
using seir_bench::series_of;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T>
struct device_array {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit device_array(std::size_t count) : n(count) { check(cudaMalloc(&ptr, count * sizeof(T)), "cudaMalloc"); }
  explicit device_array(const std::vector<T>& h) : device_array(h.size()) {
    check(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_array() { cudaFree(ptr); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    check(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
};


template <class T>
void gpu(std::size_t n, const seir::synthetic& data, const std::string& variant) {
  using M = fx::compiled<seir::model, T>;
  std::vector<T> x0, p;
  parameter_sets(n, x0, p);
  std::vector<fx::observation<T>> obs;
  std::vector<unsigned char> mask = data.mask;
  for (std::size_t d = 0; d < data.values.size(); ++d) {
    const auto& o = data.values[d];
    obs.push_back({o.kind, T(o.value), T(o.upper)});
    if (variant == "exact" && o.kind != fx::censoring::none) mask[d] = 0;
  }
  const auto series = series_of(obs, mask);
  const auto ts = seir::save_times<T>();
  const auto pr = seir::problem<T>(ts, T(1e-6), T(1e-4));
  const fx::likelihood lik(seir::reported);
  const auto pri = seir::priors<T>();
  device_array<T> dx(x0), dp(p), value(n), grad((seir::n_params + 4) * n);
  device_array<fx::solve_status> status(n);
  const char* dtype = sizeof(T) == 8 ? "f64" : "f32";
  // value; value and gradient a thread a trajectory; the same a lane a
  // column; the same by the discrete adjoint, its backward pass in the
  // trajectories' order, aligned to each warp's longest lane (the default),
  // in order of their steps (backward_by_steps), and not aligned
  // (aligned_backward = false).
  // FLUXION_BENCH_ONLY=adjoint: the discrete adjoint alone (launch-bound sweeps).
  const char* only = std::getenv("FLUXION_BENCH_ONLY");
  const bool adjoint_only = only && std::string(only) == "adjoint";
  for (int what = adjoint_only ? 3 : 0; what < 6; ++what) {
    const bool gradient = what > 0, by_column = what == 2, by_adjoint = what >= 3;
    const fx::log_density_buffers<T> out{{value.ptr, n}, gradient ? std::span<T>(grad.ptr, grad.n) : std::span<T>{},
                                         {status.ptr, n}};
    const auto run = [&] {
      const auto xs = fx::soa(std::span<const T>(dx.ptr, dx.n));
      const auto ps = fx::soa(std::span<const T>(dp.ptr, dp.n));
      if (by_column)
        fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, out,
                              fx::cuda::lane_per_column{});
      else if (by_adjoint)
        fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, out,
                              fx::discrete_adjoint{.backward_by_steps = what == 4, .aligned_backward = what != 5});
      else
        fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(series), pri, n, xs, ps, out);
    };
    run();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> ms;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(a);
      run();
      cudaEventRecord(b);
      check(cudaEventSynchronize(b), "run");
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const auto v = value.get();
    const auto st = status.get();
    std::size_t failed = 0;
    for (auto s : st) failed += s != fx::solve_status::success;
    std::printf("{\"impl\": \"fluxion\", \"what\": \"%s\", \"variant\": \"%s\", \"dtype\": \"%s\", \"N\": %zu, "
                "\"median_ms\": %.4f, \"min_ms\": %.4f, \"failed\": %zu, \"value0\": %.10g",
                what == 5 ? "value_and_grad_adjoint_unaligned" : what == 4 ? "value_and_grad_adjoint_by_steps" : what == 3 ? "value_and_grad_adjoint" : what == 2 ? "value_and_grad_lanes" : gradient ? "value_and_grad" : "value", variant.c_str(), dtype, n, ms[ms.size() / 2], ms[0], failed,
                double(v[0]));
    // digest: FNV-1a over the bytes of every value (and gradient), so that
    // builds that must agree bit for bit (tape layouts, orders) can be compared.
    std::uint64_t digest = 14695981039346656037ull;
    const auto fold = [&digest](const auto& values) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
      for (std::size_t k = 0; k < values.size() * sizeof(values[0]); ++k) digest = (digest ^ bytes[k]) * 1099511628211ull;
    };
    fold(v);
    if (gradient) {
      const auto g = grad.get();
      fold(g);
      std::printf(", \"grad0\": [");
      for (std::size_t j = 0; j < seir::n_params + 4; ++j) std::printf("%s%.10g", j ? ", " : "", double(g[j * n]));
      std::printf("]");
    }
    std::printf(", \"digest\": \"%016llx\"", static_cast<unsigned long long>(digest));
    std::printf("}\n");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTDIR [N]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const std::size_t n = argc > 2 ? std::size_t(std::atoll(argv[2])) : 100000;
  // FLUXION_BENCH_POOL=keep: the device's default memory pool keeps what the
  // log-density frees (as JAX's and PyTorch's allocators keep theirs), so
  // that repeated calls do not map their scratch again each time.
  if (const char* pool = std::getenv("FLUXION_BENCH_POOL"); pool && std::string(pool) == "keep") {
    cudaMemPool_t mp;
    check(cudaDeviceGetDefaultMemPool(&mp, 0), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep = UINT64_MAX;
    check(cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  }
  const auto data = seir::make_data();
  if (std::FILE* f = std::fopen((out + "/seir_data.csv").c_str(), "w")) {
    std::fprintf(f, "day,value,observed,right_censored\n");
    for (std::size_t d = 0; d < data.values.size(); ++d)
      std::fprintf(f, "%zu,%.17g,%d,%d\n", d + 1, data.values[d].value, int(data.mask[d]),
                   int(data.values[d].kind == fx::censoring::right));
    std::fclose(f);
  }
  // The parameter sets and initial states (double, [parameter][set] and
  // [state][set]), so that bench/python_bench.py evaluates the same ones.
  {
    std::vector<double> x0, p;
    parameter_sets(n, x0, p);
    if (std::FILE* f = std::fopen((out + "/seir_sets.f64").c_str(), "wb")) {
      std::fwrite(x0.data(), sizeof(double), x0.size(), f);
      std::fwrite(p.data(), sizeof(double), p.size(), f);
      std::fclose(f);
    }
  }
  for (const char* variant : {"full", "exact"}) {
    gpu<double>(n, data, variant);
    gpu<float>(n, data, variant);
  }
  if (!std::getenv("FLUXION_BENCH_ONLY")) seir_bench::host_costs(2000, data);
  return 0;
}
