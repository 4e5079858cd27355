// The SEIR example's log-density (examples/seir_model.hpp: 70 days of
// negative binomial incidence, 5 missing, right-censored above 1,000) and
// its gradient for N parameter sets on the GPU, in float and double, with
// and without the gradient; then on the host CPU (one thread) the cost of
// the gradient as a multiple of one solve. Prints JSON lines.
//
//   fluxion-bench-seir-log-density OUTDIR [N]
//
// Writes OUTDIR/seir_data.csv (the data, for bench/peers/seir_log_density_jax.py)
// first. Parameter set b (the peer computes the same ones):
//   beta  = 0.4 + 0.4  frac((b + 1) 0.7548776662466927)
//   sigma = 0.2 + 0.1  frac((b + 1) 0.5698402909980532)
//   gamma = 0.15 + 0.1 frac((b + 1) 0.6180339887498949)
//   rho   = 0.2 + 0.2  frac((b + 1) 0.4142135623730950)
//   phi   = 5 + 15     frac((b + 1) 0.7320508075688772)
// and the initial state (N - 10, 0, 10, 0). Variants: "full" (the example's
// data) and "exact" (the censored days masked too: what a peer without
// differentiable censoring sees).
#include <fluxion/cuda.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../examples/seir_model.hpp"

namespace fx = fluxion;

namespace {

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
std::vector<fx::series_data<T>> series_of(const std::vector<fx::observation<T>>& v, const std::vector<unsigned char>& m) {
  return {{.values = v, .mask = m}};
}

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
  // column; the same by the discrete adjoint.
  for (int what = 0; what < 4; ++what) {
    const bool gradient = what > 0, by_column = what == 2, by_adjoint = what == 3;
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
                              fx::discrete_adjoint{});
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
                what == 3 ? "value_and_grad_adjoint" : what == 2 ? "value_and_grad_lanes" : gradient ? "value_and_grad" : "value", variant.c_str(), dtype, n, ms[ms.size() / 2], ms[0], failed,
                double(v[0]));
    if (gradient) {
      const auto g = grad.get();
      std::printf(", \"grad0\": [");
      for (std::size_t j = 0; j < seir::n_params + 4; ++j) std::printf("%s%.10g", j ? ", " : "", double(g[j * n]));
      std::printf("]");
    }
    std::printf("}\n");
    std::fflush(stdout);
  }
}

// Host, one thread: a plain solve, the log-density, and with its gradient.
void host_costs(std::size_t n, const seir::synthetic& data) {
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
  const auto time_ms = [](auto&& f) {
    f();
    std::vector<double> t;
    for (int r = 0; r < 3; ++r) {
      const auto a = std::chrono::steady_clock::now();
      f();
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[1];
  };
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTDIR [N]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const std::size_t n = argc > 2 ? std::size_t(std::atoll(argv[2])) : 100000;
  const auto data = seir::make_data();
  if (std::FILE* f = std::fopen((out + "/seir_data.csv").c_str(), "w")) {
    std::fprintf(f, "day,value,observed,right_censored\n");
    for (std::size_t d = 0; d < data.values.size(); ++d)
      std::fprintf(f, "%zu,%.17g,%d,%d\n", d + 1, data.values[d].value, int(data.mask[d]),
                   int(data.values[d].kind == fx::censoring::right));
    std::fclose(f);
  }
  for (const char* variant : {"full", "exact"}) {
    gpu<double>(n, data, variant);
    gpu<float>(n, data, variant);
  }
  host_costs(2000, data);
  return 0;
}
